// The comm workloads: a sweep of message sizes (and placements, and for `comm` several collectives), each case
// one measured row in nccl-tests' terms — size, count, time per operation averaged over ranks (with the
// fastest and slowest rank), algbw, busbw, and the number of wrong elements of a correctness check.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <dgx/sdk.hpp>

#include "backend.hpp"
#include "collective.hpp"
#include "pattern.hpp"
#include "sweep.hpp"

namespace dgx::plugins::comm {

struct CommConfig {
  std::vector<Collective> collectives;
  SweepSpec sweep;
  sdk::DType type = sdk::DType::fp32;
  sdk::ReduceOp op = sdk::ReduceOp::sum;
  int root = 0;
  bool out_of_place = true;
  bool in_place = true;
  bool check = true;
  int warmup_ops = 5;
  double max_time = 30.0;          // runner.max_time: also bounds the untimed warm-up operations (s)
  std::string transport = "auto";  // auto | nccl | host
  double link_bandwidth = 0;       // GB/s per direction for "% of peak"; 0: from the GPU, if known
};

/// Reads the comm.* keys; `collectives` is the workload's own collective, or empty to read comm.collectives.
CommConfig read_comm_config(const sdk::Host& host, const std::vector<Collective>& collectives);

/// The parameter schema shared by all comm workloads (`multi`: the `comm` workload, with comm.collectives).
std::vector<sdk::Param> comm_params(bool multi);

/// Throws NoDevice when comm.transport = nccl cannot run here.
void comm_can_measure(sdk::Host& host);

class CommWorkload final : public sdk::Workload {
public:
  CommWorkload(sdk::Host& host, const std::vector<Collective>& collectives);

  void setup() override;
  std::size_t case_count() override { return cases_.size(); }
  sdk::Case begin_case(std::size_t index) override;
  void run(const sdk::SampleRequest& request, sdk::SampleResult& result) override;
  void end_case(std::size_t index, const sdk::Stats& stats) override;
  void finalize() override;

private:
  struct CaseSpec {
    Collective collective;
    std::uint64_t size;
    bool in_place;
    Shape shape;
  };
  struct Summary {
    double busbw_sum = 0;
    std::uint64_t wrong = 0;
    int cases = 0;
  };

  [[nodiscard]] std::pair<std::size_t, std::size_t> largest_buffers() const;
  void check_host_memory(std::int64_t max_bytes) const;
  void prepare_buffers(const CaseSpec& c, const Pattern& pattern);
  /// Whether every rank stops: rank 0's `mine` is everyone's answer, so every rank issues the same collectives.
  bool agreed_stop(bool mine);
  /// One element-wise collective (all_reduce, broadcast, reduce) of host memory in chunks of kHostChunkBytes, the
  /// ranks agreeing between chunks whether to stop (sdk::Cancelled).
  void issue_in_chunks(const CaseSpec& c, const Buffers& b);
  static constexpr std::uint64_t kHostChunkBytes = std::uint64_t{64} << 20;
  Buffers buffers(const CaseSpec& c);
  std::string check(const CaseSpec& c, std::uint64_t& wrong);
  double peak_link() const;

  sdk::Host& host_;
  CommConfig config_;
  int rank_ = 0;
  int ranks_ = 1;
  std::vector<CaseSpec> cases_;
  std::unique_ptr<Backend> backend_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  std::vector<std::byte> send_image_;
  std::vector<std::byte> recv_image_;
  const CaseSpec* current_ = nullptr;
  std::vector<double> local_times_;  // this rank's seconds per operation, per timed sample
  std::vector<Summary> summaries_;   // per collective
  std::vector<std::string> failures_;
};

}  // namespace dgx::plugins::comm
