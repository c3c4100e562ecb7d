// Measured op times into the serving model, the serving counterpart of dgx/llm/kernels/measured_ops.hpp: a measured
// op of a layer's serving iteration (libs/llm-kernels) replaces the model's estimate of the same op
// (dgx::llm::serve_layer_ops), and calibrates it at other shapes. CUDA-free: the matching is tested on any machine.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/kernels/op_timing.hpp"
#include "dgx/llm/kernels/serve_spec.hpp"
#include "dgx/llm/op_time.hpp"
#include "dgx/llm/serve_ops.hpp"

namespace dgx::llm::workload {

/// Measured op times as corrections of a fallback provider (the roofline). For each op name it keeps the ratio
/// measured / fallback at every measured shape; an op of that name is timed as the fallback × the ratio, taken at
/// the nearest measured size in log scale (GEMM rows, attention query × key pairs, bytes of a memory-bound op) and
/// interpolated between two. At a measured shape the time is the measurement itself; ops without a measurement keep
/// the fallback's time. The fallback must outlive this object.
class MeasuredRatios final : public OpTimeProvider {
public:
  explicit MeasuredRatios(const OpTimeProvider& fallback) : fallback_(&fallback) {}

  void add(const Op& op, double measured_seconds);
  [[nodiscard]] std::size_t size() const { return ratios_.size(); }

  [[nodiscard]] double seconds(const Op& op) const override;
  [[nodiscard]] std::string_view source(const Op& op) const override;

private:
  [[nodiscard]] double ratio(const Op& op) const;

  const OpTimeProvider* fallback_;
  std::map<std::string, std::map<double, double>, std::less<>> ratios_;  ///< name -> log size -> ratio
};

/// How a measured iteration met the model's ops.
struct ServeMatchReport {
  int model_ops = 0;  ///< compute ops of the model's layer (communication is never measured here)
  int matched = 0;
  std::vector<std::string> unmatched;  ///< model op names left to the roofline
};

/// Records in `ratios` every compute op of `model_ops` (one layer's iteration) that `measured` timed: matched by name
/// (GEMMs also by n and k, in any order).
ServeMatchReport apply_serve_measurements(const std::vector<kernels::OpTiming>& measured,
                                          const std::vector<Op>& model_ops, MeasuredRatios& ratios);

/// The layer the kernels library runs for `model` at the per-rank shapes of a serving configuration, with
/// `decode_batch` sequences of `context` tokens and a prompt chunk. Throws dgx::sdk::Unsupported for what it cannot
/// run (nvfp4 / mxfp8 weights, an nvfp4 KV cache).
[[nodiscard]] kernels::ServeLayerSpec serve_layer_spec(const ModelConfig& model, const ServeShape& shape,
                                                       std::int64_t decode_batch, std::int64_t context,
                                                       std::int64_t prefill_tokens);

/// The model's description for the kernels library.
[[nodiscard]] kernels::Architecture kernels_architecture(const ModelConfig& model);

}  // namespace dgx::llm::workload
