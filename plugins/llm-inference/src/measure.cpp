#include "measure.hpp"

#include <cmath>

#include <dgx/sdk/error.hpp>
#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_step.hpp"
#include "dgx/llm/workload/serve_measured_ops.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_inference {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;
using dgx::sdk::NotePlacement;

constexpr int kProfileRepeats = 5;  // each op is the median of this many profiled iterations

/// The loads of the measured iterations, as the serving model states them.
llm::StepLoad decode_load(const llm::kernels::ServeLayerSpec& s) {
  const double d = static_cast<double>(s.decode_batch);
  return {.decode_seqs = d, .decode_kv_tokens = d * static_cast<double>(s.context), .logit_rows = d};
}

llm::StepLoad chunk_load(const llm::kernels::ServeLayerSpec& s) {
  llm::StepLoad load = decode_load(s);
  const double p = static_cast<double>(s.prefill_tokens);
  load.prefill_tokens = p;
  load.prefill_pairs = p * 0.5 * (p + 1);
  load.logit_rows += 1;
  return load;
}

}  // namespace

void require_serve_probe(const dgx::sdk::Host& host) {
  if (const std::string reason = serve_probe_unavailable(); !reason.empty()) {
    throw dgx::sdk::NoDevice(reason);
  }
  const Serving serving(host);
  if (serving.assumptions().model.moe()) {
    throw dgx::sdk::Unsupported("the measured serving layer is dense (Llama); " + serving.assumptions().model.name +
                                " is projected only");
  }
  (void)workload::serve_layer_spec(serving.assumptions().model, llm::serve_shape(serving.settings().config), 1, 1,
                                   0);  // bf16 / fp8 only
}

ServeMeasure::ServeMeasure(const dgx::sdk::Host& host, const Serving& serving)
    : host_(host), serving_(std::make_unique<Serving>(serving)) {}

ServeMeasure::~ServeMeasure() = default;

void ServeMeasure::setup() {
  modelled_ = serving_->project_configuration();
  const llm::ServeConfig& c = serving_->settings().config;
  const workload::ServeAssumptions& configured = serving_->assumptions();
  spec_ = workload::serve_layer_spec(configured.model, llm::serve_shape(c), std::llround(modelled_.decode_batch),
                                     c.isl + c.osl / 2, std::llround(modelled_.chunk_tokens));
  probe_ = make_serve_probe(spec_);
  device_ = probe_->device();
  // The measured times are this GPU's: project a replica of this GPU, whatever system the configuration named.
  const auto system = llm::find_system_for_device(device_);
  if (system && system->name != configured.system.name) {
    host_.info("measuring on " + device_ + ": projecting " + system->name + " (the configuration named " +
               configured.system.name + ")");
    serving_->use_system(system->name);
  } else if (!system) {
    host_.warn(device_ + " has no system profile: communication and unmeasured ops come from the " +
               configured.system.name + " profile");
  }
  const workload::ServeAssumptions& a = serving_->assumptions();
  host_.note(NotePlacement::before, "Measured",
             "One " + a.model.display + " layer on " + device_ + " at the per-rank shapes of " +
                 llm::layout_label(c.layout, a.model.moe()) + " (" + llm::kernels::describe(spec_) +
                 "): the decode iteration of the configuration's steady state (its decoding batch at the mean context, "
                 "a paged KV cache) and the same with a prompt chunk, CUDA events, medians of " +
                 std::to_string(kProfileRepeats) +
                 " profiled iterations. Its op times replace the serving model's in the projected row "
                 "(\"measured-calibrated\"); communication and the first / last stage come from the model.");
}

dgx::sdk::Case ServeMeasure::begin_case(std::size_t /*index*/) {
  dgx::sdk::Case c;
  c.label = serving_->assumptions().model.name + " decode iteration, batch " + std::to_string(spec_.decode_batch);
  c.set("precision", std::string(llm::kernels::to_string(spec_.precision)));
  c.set("serve.kv_precision", std::string(llm::kernels::to_string(spec_.kv)));
  c.set("decode_batch", spec_.decode_batch);
  c.set("context", spec_.context);
  c.set("device", device_);
  return c;
}

void ServeMeasure::run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) {
  result.seconds = probe_->time_decode(static_cast<int>(request.iterations), request.flush_cache);
  result.timing = dgx::sdk::Timing::device_events;
  result.cache = request.flush_cache ? dgx::sdk::CacheState::cold : dgx::sdk::CacheState::hot;
}

void ServeMeasure::end_case(std::size_t /*index*/, const dgx::sdk::Stats& stats) {
  const llm::kernels::ServeLayerTiming timing = probe_->profile(kProfileRepeats);
  const workload::ServeAssumptions& a = serving_->assumptions();
  const llm::SystemProfile& system = a.system;
  const double bytes = llm::kernels::layer_weight_bytes(spec_) + llm::kernels::decode_kv_bytes(spec_);
  host_.add_metric("layer.decode_time", stats.median, "s", 0, "decode iter");
  host_.add_metric("layer.chunk_time", timing.chunk_seconds, "s", 0, "chunk iter");
  host_.add_metric("layer.mbu", 100 * bytes / stats.median / system.hbm_bytes_per_s(), "%", 0, "layer MBU %");
  host_.add_metric("layer.decode_batch", static_cast<double>(spec_.decode_batch), "count", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.context", static_cast<double>(spec_.context), "count", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.chunk_tokens", static_cast<double>(spec_.prefill_tokens), "count", DGX_METRIC_HIDDEN);
  host_.add_metric("layer.peak_memory", static_cast<double>(timing.peak_bytes), "B", DGX_METRIC_HIDDEN);
  host_.add_field("mbu_peak", mbu_peak_label(system), DGX_FIELD_HIDDEN);

  // The measurement replaces the model's estimate of every op it timed; the replica is projected from that.
  const llm::RooflineProvider roofline(system, llm::RooflineProvider::GemmFill::split_k);
  workload::MeasuredRatios measured(roofline);
  const llm::ServeShape shape = llm::serve_shape(serving_->settings().config);
  const workload::ServeMatchReport decode = workload::apply_serve_measurements(
      timing.decode, llm::serve_layer_ops(a.model, system, shape, decode_load(spec_)), measured);
  workload::ServeMatchReport chunk;
  if (spec_.prefill_tokens > 0) {
    chunk = workload::apply_serve_measurements(
        timing.chunk, llm::serve_layer_ops(a.model, system, shape, chunk_load(spec_)), measured);
  }
  const llm::ServeProjection p = serving_->project_configuration(&measured);
  dgx::sdk::Row row = serving_->serve_row("measured-calibrated projection", RowView::project, p);
  row.field("device", device_, DGX_FIELD_HIDDEN)
      .field("source",
             "measured-calibrated projection: " + std::to_string(decode.matched + chunk.matched) + " of " +
                 std::to_string(decode.model_ops + chunk.model_ops) +
                 " layer ops of the decode and chunk iterations "
                 "measured on " +
                 device_ +
                 " (CUDA events); the rest, the first / last stage and all communication "
                 "from " +
                 std::string(llm::serve_constants::kModelVersion) + " on " + system.name,
             DGX_FIELD_HIDDEN);
  host_.emit(row);
  serving_->add_projection_notes(host_, p);
  host_.note(NotePlacement::after, "Model vs measurement",
             "The roofline projected TPOT " + text::duration(modelled_.tpot.median) + " and " +
                 text::fixed(modelled_.output_tokens_per_s, 0) + " output tokens/s; with the measured ops: TPOT " +
                 text::duration(p.tpot.median) + ", " + text::fixed(p.output_tokens_per_s, 0) + " tokens/s.");
  if (!decode.unmatched.empty() || !chunk.unmatched.empty()) {
    host_.debug(std::to_string(decode.unmatched.size() + chunk.unmatched.size()) +
                " model ops kept their roofline estimate");
  }
}

}  // namespace dgx::plugins::llm_inference
