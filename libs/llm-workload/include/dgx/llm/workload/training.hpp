// A training workload on the skeleton (llm-pretrain, llm-finetune; a fourth such as distillation derives the same
// way): the job a plugin states of its own, as the hooks of one class. Its settings and assumptions, the variant of
// the step model and the layer it trains, its rows and its notes; the shared modes call them: project() here (one
// configuration), TrainingMeasure (training_measure.hpp) for measure mode, and the explore note builders of
// training_notes.hpp for the plugin's explore(). The defaults of the layer hooks are pretraining's.
#pragma once

#include <string>
#include <vector>

#include <dgx/plugin.h>
#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/layer_ops.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/step_model.hpp"
#include "dgx/llm/workload/assumptions.hpp"
#include "dgx/llm/workload/training_rows.hpp"
#include "dgx/llm/workload/training_settings.hpp"

namespace dgx::llm::workload {

class TrainingMeasure;

/// The GEMM precisions a training workload projects: BF16; FP8, which covers both E4M3 (forward) and E5M2
/// (gradients), as Transformer Engine's hybrid recipe uses them; MXFP8 and NVFP4 on systems with block-scaled formats
/// (Blackwell). Its spec's precisions (PluginInfo).
[[nodiscard]] std::vector<dgx_precision> training_precisions();

class Training {
public:
  using Measure = TrainingMeasure;

  virtual ~Training() = default;

  /// The keys every training workload shares, as read (train.tokens: what the run processes).
  [[nodiscard]] virtual const TrainingSettings& training() const = 0;
  [[nodiscard]] virtual const Assumptions& assumptions() const = 0;
  /// Projects `system` from now on, the assumptions resolved again for it (measure mode: the measured device's).
  virtual void use_system(const std::string& system) = 0;

  // What is trained.

  /// The training method as labels and errors name it ("LoRA r16 qkv", "SFT"); empty for pretraining.
  [[nodiscard]] virtual std::string method() const { return {}; }
  /// The step model's variant of the job (fine-tuning: the method); pretraining's model as it is.
  virtual void configure(StepModel& /*model*/) const {}
  /// The layer measure mode runs at `train`'s per-rank shapes.
  [[nodiscard]] virtual kernels::LayerSpec layer_spec(const TrainConfig& train) const;
  /// The model's ops of that layer, which the measured ones replace.
  [[nodiscard]] virtual OpList layer_ops(const ShapeKey& shape) const;
  /// The model's activation memory of that layer.
  [[nodiscard]] virtual double activation_bytes(const ShapeKey& shape) const;

  // Rows and notes.

  /// A projected row of `table` for `train`: config, provenance, headline and breakdown metrics.
  [[nodiscard]] virtual dgx::sdk::Row projected_row(const std::string& table, const TrainConfig& train,
                                                    const Headline& headline, const StepBreakdown& breakdown) const = 0;
  /// Before the table: what was assumed, and (project mode) the configuration.
  [[nodiscard]] virtual std::string assumptions_note() const = 0;
  [[nodiscard]] virtual std::string configuration_note(const Projection& projection) const = 0;
  /// Where the run lies outside the calibrated runs ("Outside calibration"); empty: no such note.
  [[nodiscard]] virtual std::string scope_note() const { return {}; }
  /// After the table: throughput and time of the run, how FLOPs are counted (empty: no such note), and that the
  /// numbers are projections.
  [[nodiscard]] virtual std::string throughput_note(const Projection& projection) const = 0;
  [[nodiscard]] virtual std::string flops_note() const { return {}; }
  [[nodiscard]] virtual std::string projection_note() const = 0;
  /// Appended to project mode's error when the configuration cannot run for `reason` (e.g. where it would fit).
  [[nodiscard]] virtual std::string infeasible_hint(const std::string& /*reason*/) const { return {}; }

  // Measure mode.

  /// The "Measured" note: what runs on `device` (the layer `spec`) and what its times replace.
  [[nodiscard]] virtual std::string measured_note(const std::string& device, const kernels::LayerSpec& spec) const = 0;
  /// The case label's name of the layer: "<model> <layer name> <precision>".
  [[nodiscard]] virtual std::string layer_name() const { return "layer"; }
  /// Keys of a case beyond its precision and device.
  virtual void add_case_keys(dgx::sdk::Case& /*c*/) const {}
  /// Metrics of a measured case beyond the layer's (the host's current case; `step_seconds`: its median).
  virtual void add_measured_metrics(const dgx::sdk::Host& /*host*/, const TrainConfig& /*train*/,
                                    double /*step_seconds*/) const {}

  // The modes.

  /// --mode project: the configuration's projected row between its notes. Throws dgx::sdk::InvalidArgument when it
  /// is invalid for the model and system or does not fit, with the model's reason.
  void project(const dgx::sdk::Host& host) const;
  /// --mode explore: the plugin's sweep, rows and notes.
  virtual void explore(const dgx::sdk::Host& host) const = 0;

  /// "64 x h100-sxm, bf16, TP4 PP4 CP2 VP5 MBS1", after the method when there is one ("LoRA r16 qkv on 8 x ...").
  [[nodiscard]] std::string configuration_label() const;

protected:
  Training() = default;
  Training(const Training&) = default;
  Training& operator=(const Training&) = default;
  Training(Training&&) = default;
  Training& operator=(Training&&) = default;
};

}  // namespace dgx::llm::workload
