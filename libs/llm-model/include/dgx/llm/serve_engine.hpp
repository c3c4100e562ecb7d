// Serving-engine profiles (configs/engines/<engine>.toml): the engine as a dimension of a serving projection, as the
// framework is for training. A profile holds what differs physically between engines (the scheduler's token budget
// and batch limit, CUDA-graph batch sizes, overlap scheduling, which features exist), its dated releases, and the
// engine's calibration: a correction of the physical model's TPOT and TTFT fitted to the engine's aggregated rows of
// configs/baselines/serving-measured.csv, with the mean error and the band of its leave-one-stack-out
// cross-validation (bench_inference_calibration writes both). It corrects the engine's decode loop and request path,
// which its disaggregated workers run too: disaggregated projections take it as well, and the bench checks that on
// the disaggregated rows, none of which it was fitted to.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_config.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::llm {

/// One release of an engine the profile describes.
struct EngineRelease {
  std::string version;   ///< "1.2.0rc6", "0.19.0"
  std::string released;  ///< "YYYY-MM"
  std::string runtime;   ///< "dynamo": NVIDIA Dynamo's runtime container of the engine (disaggregated); empty else
};

/// The engine's correction of the physical model in one mode, fitted to measured closed-loop rows:
///   TPOT = tpot_scale · TPOT_model + tpot_per_kernel · K + tpot_offset
///   TTFT = ttft_scale · TTFT_model + ttft_wave · W + ttft_iterations · I + ttft_offset
/// K is the kernels a decode iteration launches (layers × ops: each small kernel of a small batch costs more than the
/// roofline's fixed launch overhead, in proportion to how many there are).
/// I is the model's decode iteration: the first token reaches the client some iterations after its prompt's (an
/// overlap scheduler hands an iteration's tokens out during the next one; the fits find more, 5-10 iterations).
/// W (prefill_wave_seconds) is the time to prefill every in-flight prompt once at the engine's token budget: the
/// queueing a closed-loop benchmark's TTFT sees when its requests start together and stay in step (the steady
/// state's fluid has none of it). band_*: the 90th percentile of |relative error| over the cross-validated rows;
/// cv_*: their mean |relative error|.
struct EngineCalibration {
  double tpot_scale = 1, tpot_offset = 0, tpot_per_kernel = 0;
  double ttft_scale = 1, ttft_wave = 0, ttft_iterations = 0, ttft_offset = 0;
  int rows = 0, stacks = 0;
  double cv_ttft = 0, cv_tpot = 0;
  double band_ttft = 0, band_tpot = 0;
  [[nodiscard]] bool fitted() const { return rows > 0; }
};

/// What the physical (uncalibrated) model gives, seconds: the calibration's inputs.
struct ServeFeatures {
  double ttft = 0, tpot = 0;  ///< tpot: the decode iteration I when each step emits one token (no speculation)
  double wave = 0;            ///< W
  double kernels = 0;         ///< K
};

/// The calibration's TTFT and TPOT for features `f`.
[[nodiscard]] double calibrated_ttft(const EngineCalibration& c, const ServeFeatures& f);
[[nodiscard]] double calibrated_tpot(const EngineCalibration& c, const ServeFeatures& f);

struct EngineProfile {
  ServeEngine engine = ServeEngine::trtllm;
  std::string name;                     ///< "trtllm"
  std::string display;                  ///< "TensorRT-LLM (PyTorch backend)"
  std::string source;                   ///< where the scheduler defaults come from
  std::vector<EngineRelease> releases;  ///< oldest first
  int max_batch_tokens = 0;             ///< the token budget of one iteration by default
  int max_batch_size = 0;               ///< requests scheduled at once by default
  int cuda_graph_max_batch = 0;         ///< decode-only batches up to this size run as CUDA graphs
  bool overlap_scheduler = true;        ///< the host prepares iteration n + 1 while the GPU runs n
  bool attention_dp = true;             ///< data-parallel attention with expert-parallel MoE
  bool pipeline_parallel = true;
  std::vector<Speculation> speculative;  ///< methods it implements
  EngineCalibration calibration;         ///< [calibration.aggregated]: fitted to the aggregated rows
  /// The newest release of the engine itself (not a runtime container of it).
  [[nodiscard]] const EngineRelease& newest() const;
};

[[nodiscard]] Expected<EngineProfile> parse_engine_profile(std::string_view toml_text, std::string_view file);
/// The profile of an engine (configs/engines/<name>.toml: a search folder's, else the compiled-in copy).
[[nodiscard]] Expected<EngineProfile> find_engine(ServeEngine engine);
/// The embedded profile of an engine, read once (nullptr when it cannot be read: the physical model alone).
[[nodiscard]] const EngineProfile* engine_profile(ServeEngine engine);
/// The engines' names, as serve.engine takes them.
[[nodiscard]] std::vector<std::string> engine_names();

/// Whether `version` is a release of the profile; an error naming the known releases when it is not.
[[nodiscard]] std::optional<Error> engine_version_error(const EngineProfile& profile, std::string_view version);

/// What the engine cannot run of `config`: attention DP, pipeline parallelism or a speculative method it lacks
/// (an error naming the key and the engine), else nullopt.
[[nodiscard]] std::optional<Error> engine_feature_error(const EngineProfile& profile, const ServeConfig& config);

}  // namespace dgx::llm
