// From the pick to a deployment (dgxhost --emit DIR, which the host writes): the files a user runs to deploy the
// chosen serving configuration and to measure it. trtllm-serve with its extra_llm_api_options YAML (disaggregated:
// a context and a generation worker's YAML and the disaggregated router's config), or vllm serve's flags with
// serve.engine = vllm; and the aiperf profile command with the same lengths, load (concurrency or request rate) and
// SLOs (as AIPerf's goodput), so the real endpoint's TTFT, ITL and throughput come back comparable. Plain text, a few
// keys each: the projection's values and nothing else to review.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/workload/serve_assumptions.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_inference {

struct LaunchFiles {
  std::vector<std::pair<std::string, std::string>> files;  ///< (file name, text), the server's script first
  [[nodiscard]] const std::string* find(const std::string& name) const;
};

/// The launch files of `projection` (aggregated or disaggregated) for settings.config.engine. Every name in them (the
/// checkpoint, the model's, the system's, the draft model's, the lengths file's) is one shell word
/// (sdk::text::shell_quote) or one double-quoted YAML/JSON scalar; throws sdk::InvalidArgument, naming which, when
/// one holds a line break, a control character or invalid UTF-8 (sdk::text::one_line_problem).
/// `replicas` > 1: a fleet of that many copies of `projection` behind one endpoint carries settings.fleet_rate; the
/// AIPerf command then offers the fleet's rate.
[[nodiscard]] LaunchFiles launch_files(const InferenceSettings& settings, const llm::workload::ServeAssumptions& a,
                                       const llm::ServeProjection& projection, int replicas = 1);

/// The permission bits of launch file `name`: a script (.sh) is executable (0755), the rest 0644.
[[nodiscard]] std::uint32_t launch_file_mode(const std::string& name);

/// The checkpoint the engines load for a catalog model at a precision (Hugging Face ids of the published
/// checkpoints: NVIDIA's ModelOpt FP8 / NVFP4 ones for quantized Llama, DeepSeek's own FP8 weights), or `name`
/// itself when none is known (serve.checkpoint sets it).
[[nodiscard]] std::string default_checkpoint(const std::string& name, llm::Precision precision);

}  // namespace dgx::plugins::llm_inference
