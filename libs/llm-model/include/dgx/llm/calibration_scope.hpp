// What the calibration sets cover, and whether a configuration lies inside it: the stated accuracy of a projection
// only holds for the kind of run it was measured on. A projection on a system or in a precision without a published
// run, of a model far from every calibrated size, of a mixture-of-experts model or with layer kinds no run has, at a
// sequence length no run used, or with a framework release that has no run on that GPU architecture, says so.
#pragma once

#include "dgx/llm/catalog.hpp"

#include <string>
#include <vector>

namespace dgx::llm {

/// A model this far (as a ratio of total parameters) from the nearest calibrated model size is "far" from them.
inline constexpr double kFarModelSizeRatio = 3.0;

/// The layer kinds of `model` that no calibration run has, named ("Mamba-2, MLP-only layers"): Mamba-2, linear
/// attention, MLP-only and mixer-only layers, chunked local attention, DSA's sparse attention, output gates; empty
/// when every layer is attention (GQA or MLA, sliding windows included) + MLP, as in the calibrated runs.
[[nodiscard]] std::string uncalibrated_layer_kinds(const ModelConfig& model);

/// Reasons the configuration lies outside the calibrated runs of the embedded pretraining sets, one sentence
/// each; empty when it lies inside. `system` as the framework release runs it (SystemProfile::software names
/// the release).
[[nodiscard]] std::vector<std::string> outside_calibration(const ModelConfig& model, const SystemProfile& system,
                                                           Precision precision, int seq_len);

}  // namespace dgx::llm
