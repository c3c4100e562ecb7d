// The llm-decode workload (measure only): a whole model decoding on this machine's GPU — every layer with random
// weights of the chosen precision, a paged KV cache, the LM head and a greedy token, captured as one CUDA graph per
// batch size and replayed by the host's runner. One measured row per batch size: TPOT, tokens/s, and MBU against
// the HBM peak of the GPU's system profile. For models that fit one GPU (Llama 3.1 8B in BF16, 70B in FP8 on an
// H200).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <dgx/sdk/workload.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/kernels/serve_spec.hpp"
#include "params.hpp"
#include "serve_probe.hpp"

namespace dgx::plugins::llm_inference {

inline constexpr const char* kDecodeWorkloadName = "llm-decode";

/// Its config keys: the serving workload's model, precision and serve.kv_precision, and its own.
namespace decode_key {
using key::kv_precision;
using key::model;
using key::precision;
inline constexpr const char* context = "decode.context";
inline constexpr const char* batches = "decode.batches";
}  // namespace decode_key

[[nodiscard]] std::vector<dgx::sdk::Param> decode_params();

/// can_measure: throws dgx::sdk::NoDevice when there is no CUDA device (or no CUDA build).
void require_decode_runner();

/// The decode loop the configuration describes. Throws dgx::sdk::InvalidArgument / Unsupported for what it cannot
/// run (a MoE model, a precision other than bf16 or fp8, an unknown model).
[[nodiscard]] llm::kernels::DecodeModelSpec decode_spec(const dgx::sdk::Host& host, std::vector<std::int64_t>& batches);

class DecodeWorkload final : public dgx::sdk::Workload {
public:
  explicit DecodeWorkload(dgx::sdk::Host& host);

  void setup() override;
  std::size_t case_count() override { return batches_.size(); }
  dgx::sdk::Case begin_case(std::size_t index) override;
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) override;
  void end_case(std::size_t index, const dgx::sdk::Stats& stats) override;

private:
  dgx::sdk::Host& host_;
  std::vector<std::int64_t> batches_;
  llm::kernels::DecodeModelSpec spec_;
  std::string model_name_;
  std::unique_ptr<DecodeRunner> runner_;
  double peak_bytes_per_s_ = 0;
  std::string peak_label_;
};

}  // namespace dgx::plugins::llm_inference
