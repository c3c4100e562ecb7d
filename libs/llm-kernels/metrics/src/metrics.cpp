#include "dgx/llm/kernels/metrics.hpp"

#include "dgx/llm/catalog.hpp"

#include <string>

namespace dgx::llm::kernels {

llm::Precision model_precision(Precision precision) {
  return precision == Precision::fp8 ? llm::Precision::fp8 : llm::Precision::bf16;
}

llm::Expected<llm::DevicePeak> device_peak(double configured_tflops, std::string_view device_name,
                                           Precision precision) {
  return llm::resolve_peak(configured_tflops, device_name, model_precision(precision));
}

sdk::Param peak_param(std::string key, Precision precision) {
  std::string profiles;
  for (const std::string& name : llm::system_names()) {
    profiles += (profiles.empty() ? "" : ", ") + name;
  }
  const std::string format = precision == Precision::fp8 ? "FP8" : "BF16";
  return sdk::Param::floating(std::move(key), 0.0,
                              "dense " + format + " peak for % of peak and MFU; 0: the peak of the system profile " +
                                  "whose device_names match this GPU (configs/systems: " + profiles + ")",
                              "TFLOP/s");
}

double percent_of_peak(double tflops, const llm::DevicePeak& peak) { return 100.0 * tflops / peak.tflops; }

void add_peak_fields(const sdk::Host& host, const llm::Expected<llm::DevicePeak>& peak, std::string_view peak_key) {
  if (!peak) {
    std::string text = "none: " + peak.error().message;
    if (!peak_key.empty()) {
      text += "; set " + std::string(peak_key) + " (TFLOP/s)";
    }
    host.add_field("peak", text);
    return;
  }
  if (!peak->system.empty()) {
    host.add_field("system", peak->system);
  }
  host.add_field("peak", peak->label());
}

void add_layer_metrics(const sdk::Host& host, std::string_view prefix, const LayerTiming& timing, double step_seconds,
                       const llm::Expected<llm::DevicePeak>& peak, std::string_view peak_key) {
  const auto name = [&](const char* metric) { return std::string(prefix) + metric; };
  const double model_tflops = timing.model_flops / step_seconds / 1e12;
  host.add_metric(name("model_tflops"), model_tflops, "TFLOP/s", 0, "layer TFLOP/s");
  if (peak) {
    host.add_metric(name("mfu"), percent_of_peak(model_tflops, *peak), "%", 0, "layer MFU %");
  }
  host.add_metric(name("forward_time"), timing.forward_seconds, "s");
  host.add_metric(name("backward_time"), timing.backward_seconds, "s");
  host.add_metric(name("peak_memory"), static_cast<double>(timing.peak_bytes), "B", 0, "peak mem");
  host.add_metric(name("activation_memory"), static_cast<double>(timing.activation_bytes), "B");
  host.add_metric(name("weight_memory"), static_cast<double>(timing.weight_bytes), "B", DGX_METRIC_HIDDEN);
  host.add_metric(name("gradient_memory"), static_cast<double>(timing.gradient_bytes), "B", DGX_METRIC_HIDDEN);
  add_peak_fields(host, peak, peak_key);
}

std::vector<sdk::MetricSpec> layer_metric_specs(std::string_view prefix) {
  const auto name = [&](const char* metric) { return std::string(prefix) + metric; };
  using sdk::MetricSpec;
  return {
      MetricSpec::higher(name("model_tflops"), "TFLOP/s", "model FLOPs of one layer's step / its median time")
          .with_label("layer TFLOP/s"),
      MetricSpec::higher(name("mfu"), "%", "layer TFLOP/s as a percent of the dense peak of the precision")
          .with_label("layer MFU %"),
      MetricSpec::lower(name("forward_time"), "s", "the layer's forward pass"),
      MetricSpec::lower(name("backward_time"), "s", "the layer's backward pass"),
      MetricSpec::neutral(name("peak_memory"), "B", "peak device memory of the layer's step").with_label("peak mem"),
      MetricSpec::neutral(name("activation_memory"), "B", "activations the backward pass keeps"),
      MetricSpec::neutral(name("weight_memory"), "B", "the layer's weights"),
      MetricSpec::neutral(name("gradient_memory"), "B", "the layer's weight gradients"),
  };
}

}  // namespace dgx::llm::kernels
