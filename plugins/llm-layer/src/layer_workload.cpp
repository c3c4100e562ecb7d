#include "layer_workload.hpp"

#include "dgx/llm/cuda/attention.hpp"

#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/sdk_bridge.hpp"
#include "dgx/llm/cuda/stage_ops.hpp"
#include "dgx/llm/kernels/metrics.hpp"

namespace dgx::plugins::llm_layer {

using namespace dgx::llm::cuda;
using namespace dgx::llm::kernels;

namespace {

std::string shape_of(const OpTiming& op) {
  const std::string key = op.key();
  const std::size_t space = key.find(' ');
  return space == std::string::npos ? "" : key.substr(space + 1);
}

}  // namespace

LayerWorkload::LayerWorkload(sdk::Host& host) : host_(host), config_(read_layer_config(host)) {}

LayerWorkload::~LayerWorkload() = default;

llm::Expected<llm::DevicePeak> LayerWorkload::peak(Precision precision) const {
  const double configured = precision == Precision::fp8 ? config_.peak_fp8 : config_.peak_bf16;
  return device_peak(configured, device_, precision);
}

std::string LayerWorkload::peak_key(Precision precision) { return "peak." + std::string(to_string(precision)); }

sdk::Case LayerWorkload::begin_case(std::size_t index) {
  const LayerSpec spec = config_.case_spec(index);
  with_sdk_errors([&] {
    layer_.reset();  // the previous case's memory goes back first
    device_ = current_device().name;
    LayerOptions options;
    options.seed = config_.seed;
    options.gemm_candidates = config_.gemm_candidates;
    layer_ = std::make_unique<TransformerLayer>(spec, options);
  });
  sdk::Case c;
  c.label = config_.model + " layer " + std::string(to_string(spec.precision));
  c.set("precision", std::string(to_string(spec.precision)));
  return c;
}

void LayerWorkload::run(const sdk::SampleRequest& request, sdk::SampleResult& result) {
  with_sdk_errors([&] {
    result.seconds = layer_->time_steps(static_cast<int>(request.iterations), request.flush_cache);
    result.timing = sdk::Timing::device_events;
    result.cache = request.flush_cache ? sdk::CacheState::cold : sdk::CacheState::hot;
  });
}

void LayerWorkload::end_case(std::size_t index, const sdk::Stats& stats) {
  const LayerSpec spec = config_.case_spec(index);
  const LayerTiming timing = with_sdk_errors([&] { return layer_->profile(config_.profile_repeats); });
  add_layer_metrics(host_, "", timing, stats.median, peak(spec.precision), peak_key(spec.precision));
  host_.add_field("device", device_);
  host_.add_field("layer", describe(spec));
  host_.add_field("flops_convention", "model FLOPs: 3 × forward, full (non-causal) attention term, per rank");
  emit_ops(timing.ops, spec.precision);
  if (config_.stage_ops) {
    // The first and last stages' extra ops, after the layer's memory is freed.
    layer_.reset();
    const std::vector<OpTiming> stage = with_sdk_errors([&] {
      StageOps ops(spec, LayerOptions{.seed = config_.seed, .gemm_candidates = config_.gemm_candidates});
      return ops.profile(config_.profile_repeats);
    });
    emit_ops(stage, spec.precision);
  }
}

void LayerWorkload::emit_ops(const std::vector<OpTiming>& ops, Precision precision) {
  const std::string precision_name(to_string(precision));
  const auto bf16_peak = peak(Precision::bf16), fp8_peak = peak(Precision::fp8);  // once, not per op
  for (const OpTiming& op : ops) {
    sdk::Row row(sdk::ResultMode::measured);
    row.table("llm-layer ops")
        .config("precision", precision_name)
        .config("op", op.name + "." + std::string(to_string(op.pass)) + (op.recompute ? " (recompute)" : ""))
        .config("shape", shape_of(op))
        .metric("time", op.seconds, "s");
    if (op.kind == OpKind::memory) {
      row.metric("bandwidth", op.bandwidth() / 1e9, "GB/s");
    } else {
      row.metric("tflops", op.tflops(), "TFLOP/s");
      // Attention runs in BF16 in both recipes; GEMMs at their input precision.
      const auto& at = op.precision == "fp8" ? fp8_peak : bf16_peak;
      if (at) {
        row.metric("peak_pct", percent_of_peak(op.tflops(), *at), "%");
      }
    }
    row.metric("flops", op.flops, "FLOP", DGX_METRIC_HIDDEN)
        .metric("bytes", op.bytes, "B", DGX_METRIC_HIDDEN)
        .field("key", op.key(), DGX_FIELD_HIDDEN)
        .field("kind", std::string(to_string(op.kind)))
        .field("timing",
               "device events around the op, median of " + std::to_string(config_.profile_repeats) + " steps");
    host_.emit(row);
  }
}

void LayerWorkload::finalize() {
  layer_.reset();
  host_.note(sdk::NotePlacement::after, "llm-layer",
             "One layer's forward + backward on one GPU at the per-rank shapes (" + software_versions() + ", cuDNN " +
                 cudnn_version() +
                 "). GEMMs: cuBLASLt, BF16 or FP8 (E4M3 forward, E5M2 gradients, per-tensor scaling) with FP32 "
                 "main gradients; attention: cuDNN flash attention (BF16); norms, activations, rotary, residuals "
                 "and FP8 casts: dgxhost kernels. TP/CP/EP communication is not run (the projection adds it). "
                 "The step time comes from the host runner; the op rows from events around each op.");
}

}  // namespace dgx::plugins::llm_layer
