// llm-pretrain's measure mode, on a machine with a GPU: measure one transformer layer of the model at the
// configuration's per-rank shapes (TP, CP, EP, MBS, sequence length), once per precision, with the host's timing
// loop; then let the measured op times replace the model's estimates, op by op, and project the cluster from
// them. The projected rows say so: "measured-calibrated", with the device named.
#pragma once

#include <memory>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "assumptions.hpp"
#include "dgx/llm/kernels/layer_probe.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_pretrain {

class MeasureMode {
public:
  MeasureMode(const dgx::sdk::Host& host, const PretrainSettings& settings, const Assumptions& assumptions);

  /// Which system the measurement calibrates: the device's profile when the catalog has one.
  void setup();
  [[nodiscard]] std::size_t case_count() const { return settings_.precisions.size(); }
  dgx::sdk::Case begin_case(std::size_t index);
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);
  void end_case(std::size_t index, const dgx::sdk::Stats& stats);

private:
  [[nodiscard]] llm::TrainConfig train_for(std::size_t index) const;

  const dgx::sdk::Host& host_;
  PretrainSettings settings_;
  Assumptions assumptions_;
  std::string device_;
  std::unique_ptr<llm::kernels::LayerProbe> probe_;
};

/// Throws NoDevice when no layer can be measured here (the workload's can_measure).
void require_layer_probe();

}  // namespace dgx::plugins::llm_pretrain
