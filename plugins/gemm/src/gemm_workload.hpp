// The gemm workload: D[m, n] = A[m, k] · B[n, k]ᵀ through cuBLASLt for every shape × precision of the sweep,
// timed by device events by the host's runner, with TFLOP/s, % of the device's dense peak and a correctness
// check of sampled entries against a double-precision reference on fresh random data.
#pragma once

#include <dgx/sdk.hpp>

#include "dgx/llm/cuda/blas.hpp"
#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/fp8.hpp"
#include "dgx/llm/kernels/gemm_case.hpp"

#include <memory>
#include <vector>

namespace dgx::plugins::gemm {

class GemmWorkload final : public sdk::Workload {
public:
  explicit GemmWorkload(sdk::Host& host);
  ~GemmWorkload() override;

  /// The sweep of the configuration; throws sdk::InvalidArgument naming the bad value.
  static std::vector<llm::kernels::GemmCase> read_sweep(const sdk::Host& host);

  void setup() override;
  std::size_t case_count() override { return cases_.size(); }
  sdk::Case begin_case(std::size_t index) override;
  void run(const sdk::SampleRequest& request, sdk::SampleResult& result) override;
  void end_case(std::size_t index, const sdk::Stats& stats) override;
  void finalize() override;

private:
  void check(const llm::kernels::GemmCase& c);

  sdk::Host& host_;
  std::vector<llm::kernels::GemmCase> cases_;
  double peak_bf16_, peak_fp8_;
  bool check_, fast_accum_;
  int candidates_;
  std::uint64_t seed_;

  llm::cuda::DeviceProperties device_;
  std::unique_ptr<llm::cuda::Stream> stream_;
  std::unique_ptr<llm::cuda::BlasLt> blas_;
  llm::cuda::DeviceBuffer l2_flush_;
  // The current case.
  llm::cuda::DeviceBuffer a_, b_, d_, a8_, b8_, scales_;
  std::unique_ptr<llm::cuda::Gemm> gemm_;
  std::unique_ptr<llm::cuda::Event> start_, stop_;  // created in setup: the constructor makes no CUDA call
};

}  // namespace dgx::plugins::gemm
