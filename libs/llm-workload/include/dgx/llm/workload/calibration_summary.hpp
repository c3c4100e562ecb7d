// How accurate the performance model is, stated with every projection: the calibration sets are projected once
// per process (a few tens of milliseconds), so the quoted errors can never go stale against the model.
#pragma once

#include <string>
#include <vector>

#include "dgx/llm/accuracy_band.hpp"
#include "dgx/llm/catalog.hpp"

namespace dgx::llm::workload {

/// E.g. "configs/baselines/calibration.md, calibration-2.md and calibration-3.md: mean 5.4%, max 50.2% over 110
/// published runs on b200, gb200-nvl72, ...".
[[nodiscard]] std::string calibration_summary();

/// How far off one projected configuration is expected to be: the 90 % band of the calibration residuals of the
/// published runs most like it (dgx/llm/accuracy_band.hpp; system as its framework release runs it, precision, model
/// size and kind, scale, pretraining or fine-tuning), widened and flagged outside the calibrated domain.
[[nodiscard]] AccuracyBand projection_band(const ModelConfig& model, const SystemProfile& system, Precision precision,
                                           int gpus, bool finetune = false);

/// The band in words, e.g. "h100-sxm fp8 at 512 GPUs: ±5.1% (9 in 10 published runs like it fall within; 14.2
/// runs' worth of evidence)", with "; outside calibration: <reasons>" where it applies.
[[nodiscard]] std::string band_text(const AccuracyBand& band, const SystemProfile& system, Precision precision,
                                    int gpus);

/// The sentence of the assumptions note: "every row's band ± column is its 90 % band ...; at gpus GPUs: " and
/// band_text of each precision.
[[nodiscard]] std::string bands_sentence(const ModelConfig& model, const SystemProfile& system,
                                         const std::vector<Precision>& precisions, int gpus, bool finetune = false);

/// Where a configuration lies outside what was calibrated (outside_calibration), over the precisions of
/// the run, each reason once; empty when everything was calibrated.
[[nodiscard]] std::vector<std::string> calibration_scope(const ModelConfig& model, const SystemProfile& system,
                                                         const std::vector<Precision>& precisions, int seq_len);

/// The same for the fine-tuning rows: "configs/baselines/finetune.md and calibration-3.md's LoRA rows: mean 3.9%,
/// max 10.5% over 23 published SFT and LoRA runs on gb200-nvl72, h100-sxm", followed, for a system no run was on, by ";
/// b200 is uncalibrated for fine-tuning".
[[nodiscard]] std::string finetune_calibration_summary(const SystemProfile& system);

/// The serving model's accuracy: "configs/baselines/inference.md: mean 5.0%, max 6.3% over 7 published TensorRT-LLM
/// offline throughputs on h100-sxm", with "; b200 is uncalibrated ..." for a system none ran on.
[[nodiscard]] std::string serving_calibration_summary(const SystemProfile& system);

/// The band of a serving projection's throughput: 1.645 × the RMS error of the published serving runs (TensorRT-LLM
/// offline throughputs, configs/baselines/inference.md) on the same system and precision, shrunk toward the whole
/// set's with two rows' worth of weight; widened 1.5× and flagged outside calibration for a system or precision no
/// published run used. Latencies under load are less certain than offline throughput (the field says so).
[[nodiscard]] AccuracyBand serving_band(const SystemProfile& system, Precision precision);

/// What every projection note begins with: "These numbers are projections of <model_version> for <system>, not
/// measurements on this machine (...); JSON carries the provenance). ", then `how_to_measure`.
[[nodiscard]] std::string projection_disclaimer(const std::string& model_version, const std::string& system,
                                                const std::string& how_to_measure);

}  // namespace dgx::llm::workload
