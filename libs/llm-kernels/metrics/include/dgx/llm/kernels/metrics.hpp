// What a measured GEMM or transformer layer reports through the SDK, against the dense peak of the device's system
// profile (configs/systems, through the model library's resolver): the formulas, metric names and provenance fields
// in one place for the gemm, llm-layer and llm-pretrain plugins. CUDA-free: llm-pretrain's measure mode compiles it
// without a toolkit and the tests run it on a fake host.
#pragma once

#include <dgx/sdk/host.hpp>
#include <dgx/sdk/workload.hpp>

#include "dgx/llm/device_peak.hpp"
#include "dgx/llm/kernels/layer_spec.hpp"
#include "dgx/llm/kernels/op_timing.hpp"

#include <string_view>
#include <vector>

namespace dgx::llm::kernels {

/// The performance model's name for a kernels precision (bf16, fp8).
[[nodiscard]] llm::Precision model_precision(Precision precision);

/// The peak a measurement in `precision` on the CUDA device `device_name` is compared with: `configured_tflops` when
/// positive, else the device's system profile (llm::resolve_peak).
[[nodiscard]] llm::Expected<llm::DevicePeak> device_peak(double configured_tflops, std::string_view device_name,
                                                         Precision precision);

/// The configuration key `key` that overrides the dense peak of `precision` (TFLOP/s; 0, the default: the peak of
/// the GPU's system profile). Its help names the profiles, so --describe says where peaks come from.
[[nodiscard]] sdk::Param peak_param(std::string key, Precision precision);

/// "% of peak" and MFU: 100 · achieved TFLOP/s / the dense peak.
[[nodiscard]] double percent_of_peak(double tflops, const llm::DevicePeak& peak);

/// The current case's provenance of its % of peak or MFU: field `system` (the profile the peak came from; absent
/// for a configured peak) and field `peak` ("<N> TFLOP/s dense bf16 (h100-sxm)"), or, without a peak, `peak` saying
/// why and which configuration key (`peak_key`) would give one.
void add_peak_fields(const sdk::Host& host, const llm::Expected<llm::DevicePeak>& peak, std::string_view peak_key);

/// The metrics of one measured transformer layer on the current case, each named `<prefix><name>`:
///   model_tflops       model FLOPs of a step (LayerTiming::model_flops) / the step's median time  [TFLOP/s]
///   mfu                percent_of_peak(model_tflops, peak), only with a peak                      [%]
///   forward_time, backward_time                                                                   [s]
///   peak_memory, activation_memory, weight_memory, gradient_memory (the last two JSON-only)       [B]
/// and the peak's provenance (add_peak_fields).
void add_layer_metrics(const sdk::Host& host, std::string_view prefix, const LayerTiming& timing, double step_seconds,
                       const llm::Expected<llm::DevicePeak>& peak, std::string_view peak_key);

/// What add_layer_metrics' metrics mean (ABI 1.1 declarations: unit, which way is better, label and help), named
/// `<prefix><name>` as it names them, for the WorkloadSpec of every workload whose rows carry them.
[[nodiscard]] std::vector<sdk::MetricSpec> layer_metric_specs(std::string_view prefix);

}  // namespace dgx::llm::kernels
