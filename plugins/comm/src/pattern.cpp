#include "pattern.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <dgx/sdk/numeric.hpp>

namespace dgx::plugins::comm {

namespace num = sdk::numeric;
using sdk::DType;
using sdk::ReduceOp;

double load(DType t, const void* base, std::size_t i) {
  switch (t) {
  case DType::int8: return static_cast<const std::int8_t*>(base)[i];
  case DType::uint8: return static_cast<const std::uint8_t*>(base)[i];
  case DType::int32: return static_cast<const std::int32_t*>(base)[i];
  case DType::uint32: return static_cast<const std::uint32_t*>(base)[i];
  case DType::int64: return static_cast<double>(static_cast<const std::int64_t*>(base)[i]);
  case DType::uint64: return static_cast<double>(static_cast<const std::uint64_t*>(base)[i]);
  case DType::fp16: return num::fp16_to_float(static_cast<const std::uint16_t*>(base)[i]);
  case DType::bf16: return num::bf16_to_float(static_cast<const std::uint16_t*>(base)[i]);
  case DType::fp32: return static_cast<const float*>(base)[i];
  case DType::fp64: return static_cast<const double*>(base)[i];
  case DType::fp8_e4m3: return num::e4m3_to_float(static_cast<const std::uint8_t*>(base)[i]);
  case DType::fp8_e5m2: return num::e5m2_to_float(static_cast<const std::uint8_t*>(base)[i]);
  }
  return 0;
}

void store(DType t, void* base, std::size_t i, double v) {
  switch (t) {
  case DType::int8: static_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(v); break;
  case DType::uint8: static_cast<std::uint8_t*>(base)[i] = static_cast<std::uint8_t>(v); break;
  case DType::int32: static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(v); break;
  case DType::uint32: static_cast<std::uint32_t*>(base)[i] = static_cast<std::uint32_t>(v); break;
  case DType::int64: static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(v); break;
  case DType::uint64: static_cast<std::uint64_t*>(base)[i] = static_cast<std::uint64_t>(v); break;
  case DType::fp16: static_cast<std::uint16_t*>(base)[i] = num::float_to_fp16(static_cast<float>(v)); break;
  case DType::bf16: static_cast<std::uint16_t*>(base)[i] = num::float_to_bf16(static_cast<float>(v)); break;
  case DType::fp32: static_cast<float*>(base)[i] = static_cast<float>(v); break;
  case DType::fp64: static_cast<double*>(base)[i] = v; break;
  case DType::fp8_e4m3: static_cast<std::uint8_t*>(base)[i] = num::float_to_e4m3(static_cast<float>(v)); break;
  case DType::fp8_e5m2: static_cast<std::uint8_t*>(base)[i] = num::float_to_e5m2(static_cast<float>(v)); break;
  }
}

namespace {

// The largest integer up to which every integer is exactly representable (and within range).
int exact_integer_limit(DType t) {
  switch (t) {
  case DType::int8: return 127;
  case DType::uint8: return 255;
  case DType::fp8_e4m3: return 16;  // 3 mantissa bits
  case DType::fp8_e5m2: return 8;   // 2 mantissa bits
  case DType::bf16: return 256;     // 8 significant bits
  case DType::fp16: return 2048;
  default: return 1 << 20;
  }
}

// NCCL's AVG of floating-point data pre-scales each rank's value by 1/n in the element type.
double avg_tolerance(DType t) {
  switch (t) {
  case DType::fp8_e4m3: return 0.07;
  case DType::fp8_e5m2: return 0.13;
  case DType::bf16: return 0.01;
  case DType::fp16: return 2e-3;
  case DType::fp32: return 1e-6;
  case DType::fp64: return 1e-12;
  default: return 0;  // integers: rank-independent values divide exactly
  }
}

}  // namespace

Pattern::Pattern(Collective c, DType type, ReduceOp op, int ranks, int root)
    : collective_(c), type_(type), op_(op), ranks_(ranks), root_(root) {
  const int limit = exact_integer_limit(type);
  if (!uses_op(c)) {
    modulus_ = std::min(7, limit);
    return;
  }
  switch (op) {
  case ReduceOp::sum:
    if (ranks > limit) {
      why_not_ = "a sum over " + std::to_string(ranks) + " ranks is not exact in " + std::string(sdk::dtype_name(type));
    }
    modulus_ = std::clamp(limit / std::max(ranks, 1), 1, 7);  // every partial sum stays <= limit
    break;
  case ReduceOp::prod: modulus_ = 1; break;  // one rank contributes 2, the others 1: the product is 2
  case ReduceOp::avg:
    modulus_ = std::min(7, limit);
    tolerance_ = avg_tolerance(type);
    break;
  default: modulus_ = std::min(7, limit); break;
  }
}

double Pattern::send_value(int rank, std::size_t index) const {
  const auto r = static_cast<std::size_t>(rank);
  if (!uses_op(collective_)) {
    return 1.0 + static_cast<double>((r * 3 + index) % static_cast<std::size_t>(modulus_));
  }
  switch (op_) {
  case ReduceOp::prod: return index % static_cast<std::size_t>(ranks_) == r ? 2.0 : 1.0;
  case ReduceOp::avg: return 1.0 + static_cast<double>(index % static_cast<std::size_t>(modulus_));
  default: return 1.0 + static_cast<double>((r + index) % static_cast<std::size_t>(modulus_));
  }
}

double Pattern::reduce_over_ranks(std::size_t index) const {
  double acc = send_value(0, index);
  for (int r = 1; r < ranks_; ++r) {
    const double v = send_value(r, index);
    switch (op_) {
    case ReduceOp::prod: acc *= v; break;
    case ReduceOp::max: acc = std::max(acc, v); break;
    case ReduceOp::min: acc = std::min(acc, v); break;
    default: acc += v; break;
    }
  }
  return op_ == ReduceOp::avg ? acc / ranks_ : acc;
}

bool Pattern::has_result(int rank) const { return collective_ != Collective::reduce || rank == root_; }

double Pattern::expected(int rank, std::size_t index, const Shape& shape) const {
  const int n = ranks_;
  const std::size_t count = shape.count;
  const auto me = static_cast<std::size_t>(rank);
  switch (collective_) {
  case Collective::all_reduce:
  case Collective::reduce: return reduce_over_ranks(index);
  case Collective::broadcast: return send_value(root_, index);
  case Collective::all_gather: return send_value(static_cast<int>(index / count), index % count);
  case Collective::reduce_scatter: return reduce_over_ranks(me * count + index);
  case Collective::alltoall: return send_value(static_cast<int>(index / count), me * count + index % count);
  case Collective::sendrecv: return send_value((rank - 1 + n) % n, index);
  }
  return 0;
}

void Pattern::prepare(void* send_image, void* recv_image, const Shape& shape, int rank, bool in_place) const {
  const std::size_t element = sdk::dtype_size(type_);
  std::memset(recv_image, 0, shape.recv_elems * element);
  if (!in_place || collective_ == Collective::reduce_scatter) {
    for (std::size_t i = 0; i < shape.send_elems; ++i) {
      store(type_, send_image, i, send_value(rank, i));
    }
    return;
  }
  // In place, the input lives in the receive allocation: this rank's chunk of it for all_gather.
  const std::size_t offset = collective_ == Collective::all_gather ? shape.count * static_cast<std::size_t>(rank) : 0;
  for (std::size_t i = 0; i < shape.send_elems; ++i) {
    store(type_, recv_image, offset + i, send_value(rank, i));
  }
}

bool Pattern::result_in_send(bool in_place) const { return in_place && collective_ == Collective::reduce_scatter; }

std::size_t Pattern::result_offset(const Shape& shape, int rank, bool in_place) const {
  return result_in_send(in_place) ? shape.count * static_cast<std::size_t>(rank) : 0;
}

std::uint64_t Pattern::count_wrong(const void* result, const Shape& shape, int rank) const {
  if (!has_result(rank)) {
    return 0;
  }
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < shape.recv_elems; ++i) {
    const double want = expected(rank, i, shape);
    const double got = load(type_, result, i);
    const bool ok = tolerance_ == 0 ? got == want : std::abs(got - want) <= tolerance_ * std::abs(want);
    if (!ok) {
      ++wrong;
    }
  }
  return wrong;
}

}  // namespace dgx::plugins::comm
