// llm-finetune's measure mode, on a machine with a GPU: measure one layer of the model as the method trains it (SFT:
// every weight; LoRA: the frozen base with its adapters) at the configuration's per-rank shapes and packed samples,
// once per precision, with the host's timing loop; for LoRA also the frozen layer without adapters, so the
// adapters' cost is stated (layer.adapter_overhead). Then the measured op times replace the model's estimates, op
// by op, and the cluster is projected from them: rows labelled "measured-calibrated", with the device named.
#pragma once

#include <memory>
#include <string>

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/layer_probe.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

class MeasureMode {
public:
  MeasureMode(const dgx::sdk::Host& host, const FinetuneSettings& settings,
              const llm::workload::Assumptions& assumptions, const FinetuneJob& job);

  /// Which system the measurement calibrates: the device's profile when the catalog has one.
  void setup();
  [[nodiscard]] std::size_t case_count() const { return settings_.precisions.size(); }
  dgx::sdk::Case begin_case(std::size_t index);
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result);
  void end_case(std::size_t index, const dgx::sdk::Stats& stats);

private:
  [[nodiscard]] llm::TrainConfig train_for(std::size_t index) const;
  /// The frozen layer without adapters, timed alone (LoRA only): seconds per step.
  [[nodiscard]] double frozen_base_seconds(const llm::TrainConfig& train) const;

  const dgx::sdk::Host& host_;
  FinetuneSettings settings_;
  llm::workload::Assumptions assumptions_;
  FinetuneJob job_;
  std::string device_;
  std::unique_ptr<llm::kernels::LayerProbe> probe_;
};

/// Throws NoDevice when no layer can be measured here (the workload's can_measure).
void require_layer_probe();

}  // namespace dgx::plugins::llm_finetune
