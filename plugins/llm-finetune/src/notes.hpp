// The texts around the tables: what was assumed (model, job, methods, system, price, model accuracy), how FLOPs
// are counted, the trade between the methods, and that the numbers are projections. Honesty of numbers
// (DESIGN.md): no projected number without its label.
#pragma once

#include <string>

#include "dgx/llm/workload/assumptions.hpp"
#include "job.hpp"
#include "settings.hpp"

namespace dgx::plugins::llm_finetune {

/// Model, job (data set, packing, tokens processed, steps), methods (trainable parameters), system, price and the
/// performance model with its accuracy on the fine-tuning and pretraining calibration sets; one line each.
[[nodiscard]] std::string assumptions_note(const FinetuneSettings& settings,
                                           const llm::workload::Assumptions& assumptions, const FinetuneJob& job);

/// How model FLOPs (MFU, model TFLOP/s) are counted for SFT and LoRA.
[[nodiscard]] std::string flops_note();

/// What LoRA and SFT trade: trainable parameters, memory, time (`comparison`: what the rows show, e.g. "on 8
/// GPUs in bf16 LoRA takes 2.1 h, SFT 3.0 h"; may be empty); quality is not modelled.
[[nodiscard]] std::string trade_note(const FinetuneSettings& settings, const llm::workload::Assumptions& assumptions,
                                     const std::string& comparison);

/// That these are projections of a calibrated model, and how to measure instead.
[[nodiscard]] std::string projection_note(const llm::workload::Assumptions& assumptions);

}  // namespace dgx::plugins::llm_finetune
