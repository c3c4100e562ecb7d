#include "inference_host.hpp"

#include <stdexcept>

#include "decode_workload.hpp"
#include "dgx/llm/embedded_configs.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_inference::testing {

InferenceHost::InferenceHost() : WorkloadHost(inference_params()) {}

void InferenceHost::use_preset(const std::string& name) {
  const auto text = llm::embedded_config("workloads/" + name + ".toml");
  if (!text) throw std::runtime_error("no embedded preset " + name);
  use_preset_text(*text);
}

DecodeHost::DecodeHost() : WorkloadHost(decode_params()) {}

}  // namespace dgx::plugins::llm_inference::testing
