// The configuration of the llm-layer workload: its parameter schema and how the keys become a LayerSpec per
// measured precision. CUDA-free, so configuration errors are found (and tested) anywhere.
#pragma once

#include <dgx/sdk.hpp>

#include "dgx/llm/kernels/layer_spec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dgx::plugins::llm_layer {

struct LayerConfig {
  std::string model;                                ///< a label (the catalog will fill the architecture later)
  llm::kernels::LayerSpec spec;                     ///< precision: the first of `precisions`
  std::vector<llm::kernels::Precision> precisions;  ///< one measured case each
  int profile_repeats = 5;                          ///< steps timed op by op (medians)
  bool stage_ops = false;                           ///< also time embedding, final norm, LM head, loss (vocab > 0)
  int gemm_candidates = 8;
  std::uint64_t seed = 1;
  double peak_bf16 = 0, peak_fp8 = 0;  ///< TFLOP/s; 0: the GPU's system profile (configs/systems)

  /// The spec of case `index` (its precision).
  [[nodiscard]] llm::kernels::LayerSpec case_spec(std::size_t index) const;
};

/// The parameters of the workload, defaults: one Llama 3.1 70B layer at TP1, seq 8192, MBS 1, BF16.
[[nodiscard]] std::vector<sdk::Param> layer_params();

/// Reads and validates the configuration (every precision's spec). Throws sdk::InvalidArgument naming the key.
[[nodiscard]] LayerConfig read_layer_config(const sdk::Host& host);

/// Presets for the calibration models' layers: "llama3.1-8b-layer", "llama3.1-70b-layer", "mixtral-8x7b-layer".
[[nodiscard]] std::vector<sdk::PresetSpec> layer_presets();

}  // namespace dgx::plugins::llm_layer
