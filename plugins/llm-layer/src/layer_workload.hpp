// The llm-layer workload: one transformer layer's forward + backward at the per-rank shapes of a layout, timed
// step by step by the host's runner (device events) and op by op (events around each op), with achieved TFLOP/s,
// % of peak and the measured peak memory. One case per precision.
#pragma once

#include <dgx/sdk.hpp>

#include "dgx/llm/cuda/layer.hpp"
#include "dgx/llm/device_peak.hpp"
#include "layer_config.hpp"

#include <memory>

namespace dgx::plugins::llm_layer {

class LayerWorkload final : public sdk::Workload {
public:
  explicit LayerWorkload(sdk::Host& host);
  ~LayerWorkload() override;

  std::size_t case_count() override { return config_.precisions.size(); }
  sdk::Case begin_case(std::size_t index) override;
  void run(const sdk::SampleRequest& request, sdk::SampleResult& result) override;
  void end_case(std::size_t index, const sdk::Stats& stats) override;
  void finalize() override;

private:
  void emit_ops(const std::vector<llm::kernels::OpTiming>& ops, llm::kernels::Precision precision);
  /// The dense peak % of peak and MFU use: the configured one, else the GPU's system profile's.
  [[nodiscard]] llm::Expected<llm::DevicePeak> peak(llm::kernels::Precision precision) const;
  [[nodiscard]] static std::string peak_key(llm::kernels::Precision precision);

  sdk::Host& host_;
  LayerConfig config_;
  std::string device_;
  std::unique_ptr<llm::cuda::TransformerLayer> layer_;
};

}  // namespace dgx::plugins::llm_layer
