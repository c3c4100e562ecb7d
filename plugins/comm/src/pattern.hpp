// Exactly predictable data for the correctness check, in the spirit of nccl-tests: every rank fills its send
// buffer with small integers chosen so that every partial result of the collective is exactly representable in
// the element type (AVG of floating-point types, which NCCL computes by pre-scaling, gets a stated tolerance).
// The expected result is then known element by element, on every rank, without communication.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <dgx/sdk/comm.hpp>

#include "collective.hpp"

namespace dgx::plugins::comm {

/// Element `i` of a buffer of `type`, as a double, and back (rounding to nearest, FP8 E4M3 saturating).
double load(sdk::DType type, const void* base, std::size_t i);
void store(sdk::DType type, void* base, std::size_t i, double value);

class Pattern {
public:
  Pattern(Collective c, sdk::DType type, sdk::ReduceOp op, int ranks, int root);

  /// False when no exactly representable pattern exists (e.g. an FP8 sum over more ranks than it can count).
  [[nodiscard]] bool checkable() const { return why_not_.empty(); }
  [[nodiscard]] const std::string& why_not() const { return why_not_; }
  /// Relative tolerance of a comparison (0: exact).
  [[nodiscard]] double tolerance() const { return tolerance_; }

  /// Element `index` of rank `rank`'s send data.
  [[nodiscard]] double send_value(int rank, std::size_t index) const;
  /// Element `index` of rank `rank`'s result; only meaningful where has_result(rank).
  [[nodiscard]] double expected(int rank, std::size_t index, const Shape& shape) const;
  /// Reduce leaves a result on the root only.
  [[nodiscard]] bool has_result(int rank) const;

  /// Fills host images of the send and receive allocations for one operation of `shape` on `rank`.
  void prepare(void* send_image, void* recv_image, const Shape& shape, int rank, bool in_place) const;
  /// Where the result lies: true when in the send allocation (in-place reduce_scatter).
  [[nodiscard]] bool result_in_send(bool in_place) const;
  /// Offset in elements of the result within its allocation.
  [[nodiscard]] std::size_t result_offset(const Shape& shape, int rank, bool in_place) const;
  /// Number of result elements on `rank` that differ from the expected values.
  [[nodiscard]] std::uint64_t count_wrong(const void* result, const Shape& shape, int rank) const;

private:
  [[nodiscard]] double reduce_over_ranks(std::size_t index) const;

  Collective collective_;
  sdk::DType type_;
  sdk::ReduceOp op_;
  int ranks_;
  int root_;
  int modulus_ = 1;
  double tolerance_ = 0;
  std::string why_not_;
};

}  // namespace dgx::plugins::comm
