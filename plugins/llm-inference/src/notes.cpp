// The texts around llm-inference's tables: what was assumed and why (before), the configuration, latency,
// throughput, memory and utilisation of a projection, the sweep of explore mode, how the metrics are defined and
// that the numbers are projections, and how to measure instead (after). Honesty of numbers (DESIGN.md): no projected
// number without its label.
#include <algorithm>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/flops.hpp"
#include "dgx/llm/serve_calibration.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_kv.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/serve_precision.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_inference {

namespace {

namespace text = dgx::sdk::text;
namespace workload = llm::workload;

/// "24 Mamba-2 (no MLP), 4 attention (no MLP), 24 MLP-only": the kinds of layer serving runs.
std::string layer_kinds(const llm::ModelConfig& m) {
  std::string out;
  for (const llm::LayerGroup& g : llm::serve_layer_groups(m)) {
    const llm::ModelConfig v = llm::serve_view(m, g);
    std::string kind = v.mixer == llm::Mixer::none ? "MLP-only" : std::string(llm::to_string(v.mixer));
    if (v.mixer == llm::Mixer::attention && v.sliding_window_layers >= 1 && v.sliding_window > 0) {
      kind += " over a " + std::to_string(v.sliding_window) + "-token window";
    }
    if (v.mixer == llm::Mixer::attention && v.attention_chunk > 0) {
      kind += " in " + std::to_string(v.attention_chunk) + "-token chunks";
    }
    kind += v.mlp_free ? " (no MLP)" : v.moe() && v.mixer != llm::Mixer::none ? " + MoE" : "";
    out += (out.empty() ? "" : ", ") + std::to_string(g.count) + " " + kind;
  }
  return out;
}

/// What a request keeps at TP 1 in BF16 (serve_kv.hpp): per token, in capped layers, per sequence.
std::string footprint_text(const llm::ModelConfig& m) {
  const llm::KvFootprint kv = llm::kv_footprint(
      m, llm::ServeShape{.layout = {}, .precision = llm::Precision::bf16, .kv_precision = llm::Precision::bf16});
  std::string out = "KV cache " + text::si_count(kv.per_token / 2) +
                    " elements per token in the layers that keep every "
                    "token";
  for (const llm::KvFootprint::Capped& c : kv.capped) {
    out += ", " + text::si_count(c.bytes_per_token / 2) + " in layers that keep at most " + text::si_count(c.tokens) +
           " tokens";
  }
  if (kv.per_sequence > 0) {
    out += ", and a fixed recurrent state of " + text::fixed(kv.per_sequence / (1024.0 * 1024.0), 1) +
           " MiB per request (FP32 SSM / delta-rule states and convolution states, BF16 KV at TP 1)";
  }
  return out;
}

/// The parts of a request's footprint beyond its KV per token, per GPU: the windowed or chunked layers' KV (at most
/// their span of tokens) and the recurrent states; empty for a footprint in proportion to the tokens.
std::string footprint_parts(const llm::KvFootprint& kv) {
  std::string out;
  for (const llm::KvFootprint::Capped& c : kv.capped) {
    out += ", + " + text::fixed(c.bytes_per_token / 1024, 0) + " KiB per token for at most " +
           text::si_count(c.tokens) + " tokens of a request";
  }
  if (kv.per_sequence > 0) {
    out += ", + " + text::fixed(kv.per_sequence / (1024.0 * 1024.0), 1) + " MiB of recurrent state per request";
  }
  return out.empty() ? out : out + "; the tokens count requests of ISL + OSL";
}

std::string model_line(const workload::ServeAssumptions& a) {
  const llm::ModelConfig& m = a.model;
  const llm::ParameterCount params = llm::count_parameters(m);
  std::string line = "Model: " + m.display + " (" + m.name + "): " + std::to_string(m.layers) + " layers, hidden " +
                     std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads / " +
                     std::to_string(m.kv_groups) + " KV heads, " + text::si_count(params.total) + " parameters";
  if (m.moe()) {
    line += " (" + text::si_count(params.active) + " active: " + std::to_string(m.top_k) + " of " +
            std::to_string(m.experts) + " experts)";
  }
  const std::string tail = ". Linear layers in the precision of each row; embedding and LM head BF16 (as quantized "
                           "checkpoints keep them).";
  if (llm::uniform_kv(m)) {
    const double kv = 2.0 * m.layers * m.kv_groups * static_cast<double>(m.head_dim());
    return line + ", context " + std::to_string(m.context) + " tokens; KV cache " + text::si_count(kv) +
           " elements per token" + tail;
  }
  return line + "; layers: " + layer_kinds(m) + "; context " + std::to_string(m.context) + " tokens; " +
         footprint_text(m) + tail;
}

std::string system_line(const InferenceSettings& s, const workload::ServeAssumptions& a) {
  const llm::SystemProfile& sys = a.system;
  const std::string peaks = workload::peaks_text(sys);
  return "System: " + sys.name + ", " + sys.display + "; " +
         (s.system_configured ? "the configuration names it" : "the workload's default") +
         ". A projection for that system, not for this machine's GPUs: " + peaks + " per GPU, " +
         text::gib(sys.hbm_bytes()) + " HBM at " + text::fixed(sys.hbm_tb_s, 2) + " TB/s, NVLink " +
         text::fixed(sys.nvlink_gb_s, 0) + " GB/s in a domain of " + std::to_string(sys.nvlink_domain) +
         " GPUs; a fleet of " + std::to_string(s.gpus) + " GPUs (" + key::fleet_gpus +
         "). Other systems: --set system=NAME (" + text::join(workload::other_systems(sys.name)) + ").";
}

/// "bf16 (KV bf16), fp8 (KV fp8)", and what each precision was assumed to run as.
std::string precisions_with_kv(const InferenceSettings& s, const workload::ServeAssumptions& a) {
  std::string out, assumed;
  for (const llm::Precision p : s.precisions) {
    out += (out.empty() ? "" : ", ") + std::string(llm::to_string(p)) + " (KV " +
           std::string(llm::to_string(s.kv_precision_for(p))) + ")";
    if (const std::string line = llm::precision_assumption(a.model, a.system, p); !line.empty()) {
      assumed += " " + line + ".";
    }
  }
  if (s.checkpoint_precision) {
    out += ": the checkpoint's own format (" + std::string(key::precision) + " unset)";
  }
  return out + (assumed.empty() ? "" : "." + assumed.substr(0, assumed.size() - 1));
}

/// " (the checkpoint's own format; MXFP4 experts run as W4A16 on h100-sxm: ...)": what the projection's precision
/// was taken as.
std::string precision_detail(const InferenceSettings& s, const workload::ServeAssumptions& a, llm::Precision p) {
  std::string parts =
      s.checkpoint_precision ? "the checkpoint's own format, " + std::string(key::precision) + " unset" : std::string();
  if (const std::string assumed = llm::precision_assumption(a.model, a.system, p); !assumed.empty()) {
    parts += (parts.empty() ? "" : "; ") + assumed;
  }
  return parts.empty() ? "" : " (" + parts + ")";
}

}  // namespace

std::string Serving::assumptions_note() const {
  return model_line(assumptions_) + "\n" + system_line(settings_, assumptions_) + "\n" +
         workload::price_line(assumptions_.price_reason, assumptions_.providers) +
         "\nServing model: " + llm::serve_constants::kModelVersion +
         ": per-op rooflines of the system profile (the training model's efficiencies; decode GEMMs split K and "
         "stream their weights) plus the engine's per-iteration overhead, composed into in-flight batching (prompt "
         "chunks and one token per decoding request per iteration, TensorRT-LLM's scheduling and defaults); "
         "accuracy on published runs: " +
         assumptions_.calibration + ".";
}

std::string Serving::definitions_note() {
  return "TTFT = time of the first output token - send time; E2E = time of the last token - send time; TPOT = "
         "(E2E - TTFT) / (output tokens - 1), as trtllm-bench (TPOT) and AIPerf (ITL) define it (vLLM's 'ITL' is "
         "the gap between streamed chunks, a different number); tokens/s/user = 1 / TPOT. Output tokens/s = output "
         "tokens / duration of the replica (first send to last response), per GPU / (TP x PP); requests/s likewise. "
         "MBU = (weight bytes + KV bytes read per decode iteration) / TPOT / HBM peak, per GPU; MFU = model FLOPs "
         "(2 per active parameter per token + attention) of one prompt's prefill / its time on the idle replica / "
         "GPUs / dense peak of the precision. $/Mtok = replica GPUs x USD/GPU-h / 3600 / output tokens/s x 1e6. "
         "Offline = as many requests in flight as fit (each reserves its prompt + output in the KV cache); its TTFT "
         "is the time inside the engine, without the queue an all-at-once benchmark adds.";
}

std::string Serving::expected_error_note(const llm::ServeProjection* p) const {
  if (p != nullptr) {
    const llm::ServeExpectedError e = llm::expected_error(*p, assumptions_.model);
    const auto pct = [](double x) { return "±" + text::fixed(100 * x, 0) + "%"; };
    return "Expected error of this projection: output throughput " + pct(e.throughput) + ", TPOT / ITL " + pct(e.tpot) +
           ", TTFT " + pct(e.ttft) + ", E2E " + pct(e.e2e) + " (" + text::join(e.reasons, "; ") + ").";
  }
  return "Expected error per metric: offline output throughput of dense models ±8% (the calibration set's largest "
         "error), under latency SLOs ±12%; TPOT ±15%; TTFT ±25%; open-loop TTFT ±30%, ±50% near saturation (the "
         "hardest metric: queueing magnifies every error of the service time); MoE, MLA and attention DP +15%; "
         "disaggregated rows ±25% (a rate-matched steady state). Each row's expected_error field gives its own.";
}

std::string Serving::projection_note() const {
  return workload::projection_disclaimer(
      llm::serve_constants::kModelVersion, assumptions_.system.name,
      "On a GPU machine the same command measures instead: one layer's prefill and decode at the replica's per-rank "
      "shapes "
      "with a KV cache, whose op times replace the model's (rows labelled measured-calibrated; --mode measure "
      "insists on it); dgxhost --plugin llm-inference:llm-decode runs a whole model's decode loop.");
}

std::string Serving::slo_text(const llm::ServeProjection& p) const {
  const llm::ServeSlo& slo = settings_.slo;
  std::vector<std::string> parts;
  std::vector<std::string> missed;
  const auto check = [&](const char* name, double objective, double p99) {
    if (objective <= 0) {
      return;
    }
    const bool ok = p99 <= objective;
    parts.push_back(std::string(name) + " p99 " + text::duration(p99) + (ok ? " <= " : " > ") +
                    text::duration(objective));
    if (!ok) {
      missed.emplace_back(name);
    }
  };
  check("TTFT", slo.ttft, p.ttft.p99);
  check("TPOT", slo.tpot, p.tpot.p99);
  if (parts.empty()) {
    return "no SLO given";
  }
  return (missed.empty() ? "meets the SLOs (" : "misses " + text::join(missed) + " (") + text::join(parts) + "; " +
         key::slo_ttft + ", " + key::slo_tpot + ")";
}

std::string Serving::configuration_label() const {
  const llm::ServeConfig& c = settings_.config;
  const workload::ServeAssumptions& a = assumptions_;
  return a.model.name + " on " + a.system.name + " at " + llm::layout_label(c.layout, a.model.moe()) + " in " +
         std::string(llm::to_string(c.precision));
}

std::string Serving::configuration_note(const llm::ServeProjection& p) const {
  const llm::ServeConfig& c = p.config;
  const workload::ServeAssumptions& a = assumptions_;
  const int per_replica = c.layout.gpus();
  std::string deployment = std::to_string(settings_.gpus / per_replica) + " replica(s) of " +
                           llm::layout_label(c.layout, a.model.moe()) + " (" + std::to_string(per_replica) + " x " +
                           a.system.name + " each)";
  if (p.disaggregation) {
    const llm::ServeDisaggregation& d = *p.disaggregation;
    deployment = "disaggregated workers: " + std::to_string(d.prefill_workers) + " prefill of " +
                 llm::layout_label(d.prefill_layout, a.model.moe()) + " and " + std::to_string(d.decode_workers) +
                 " decode of " + llm::layout_label(c.layout, a.model.moe()) + " (" + std::to_string(p.gpus()) + " x " +
                 a.system.name + (settings_.prefill_workers == 0 ? ", rate matched" : "") + ")";
  }
  std::string out = a.model.name + " served by " + deployment + ": " + std::string(llm::to_string(c.precision)) +
                    " weights" + precision_detail(settings_, a, c.precision) + ", " +
                    std::string(llm::to_string(c.kv_precision)) + " KV cache" +
                    (settings_.kv_precision ? "" : " (" + std::string(key::kv_precision) + " = auto)") +
                    "; requests of ISL " + std::to_string(c.isl) + " / OSL " + std::to_string(c.osl) + " tokens";
  if (c.lengths) {
    out += " (the means of " + c.lengths->source + ", " + std::to_string(c.lengths->rows.size()) + " rows)";
  } else if (c.has_spread()) {
    out += " (standard deviations " + text::fixed(c.isl_stdev, 0) + " / " + text::fixed(c.osl_stdev, 0) + ")";
  }
  if (c.speculative.active()) {
    out += "; speculative decoding " + std::string(llm::to_string(c.speculative.kind)) + ", " +
           std::to_string(c.speculative.draft_tokens) + " drafted, " + text::fixed(c.speculative.accepted, 2) +
           " accepted per step (given: acceptance and quality are not modelled)";
  }
  out += "; ";
  if (p.open_loop) {
    out += c.arrival == llm::Arrival::burst ? "a burst: every request sent at t = 0"
                                            : text::fixed(c.request_rate, 2) + " requests/s arriving " +
                                                  std::string(llm::to_string(c.arrival)) + " per replica (open loop)";
  } else {
    out += p.offline ? "offline: " + std::to_string(p.in_flight) + " requests in flight, the most that fit"
                     : "concurrency " + std::to_string(c.concurrency) + " per replica";
  }
  return out + " (KV cache " + text::si_count(p.capacity.kv_tokens) + " tokens / " + std::to_string(c.isl + c.osl) +
         " per request, max batch size " + std::to_string(c.batch_size()) + "); token budget " +
         std::to_string(c.batch_tokens()) + " per iteration.";
}

std::string Serving::latency_note(const llm::ServeProjection& p) const {
  const llm::StepCost& d = p.decode_step;
  std::string out = "TTFT " + text::duration(p.ttft.median) + ", TPOT " + text::duration(p.tpot.median) + ", E2E " +
                    text::duration(p.e2e.median);
  if (p.simulated) {
    out += " (medians; p99 " + text::duration(p.ttft.p99) + ", " + text::duration(p.tpot.p99) + ", " +
           text::duration(p.e2e.p99) + " over " + std::to_string(p.simulated_requests) + " simulated requests)";
  }
  out += ". " + text::fixed(p.decode_batch, 1) + " requests decode per iteration; one without a prompt chunk takes " +
         text::duration(d.seconds) + " (compute " + text::duration(d.compute) + ", TP all-reduces " +
         text::duration(d.tp_comm);
  if (d.pp_comm > 0) {
    out += ", PP hand-offs " + text::duration(d.pp_comm);
  }
  out += ", engine overhead " + text::duration(d.overhead) + "), one with a prompt chunk " +
         text::duration(p.chunk_step.seconds) + "; " + text::fixed(p.prefill_tokens_per_iter, 0) +
         " prompt tokens per iteration on average.";
  if (p.simulated) {
    out += " TTFT mean / p90 / p99 " + text::duration(p.ttft.mean) + " / " + text::duration(p.ttft.p90) + " / " +
           text::duration(p.ttft.p99) + "; ITL (gaps between streamed chunks, pooled) median " +
           text::duration(p.itl.median) + ", p99 " + text::duration(p.itl.p99) + ".";
  }
  if (p.open_loop) {
    out += p.saturated
               ? " Saturated: the offered load exceeds the " + text::fixed(p.saturation_rate, 2) +
                     " requests/s this replica serves at most, so the queue and TTFT grow with the run's "
                     "length (" +
                     std::to_string(p.simulated_requests) + " requests here, " + std::string(key::requests) +
                     "); the throughput is the saturation rate's."
               : " Below saturation: the replica serves up to " + text::fixed(p.saturation_rate, 2) + " requests/s.";
  }
  if (p.disaggregation) {
    const llm::ServeDisaggregation& dis = *p.disaggregation;
    out += " Prefill: " + text::duration(dis.prefill_iteration) + " per prompt at " +
           std::to_string(dis.prompts_per_iteration) + " per iteration, workers " +
           text::fixed(100 * dis.prefill_utilisation, 0) + "% busy; the KV cache of " +
           text::fixed(dis.kv_bytes_per_request / 1e6, 0) + " MB per request moves in " +
           text::duration(dis.kv_transfer) + (dis.kv_over_network ? " over the scale-out network" : " over NVLink") +
           " (in TTFT).";
  }
  if (p.queue_wait > 0) {
    out += " Requests beyond the " + std::to_string(p.in_flight) + " that fit wait " + text::duration(p.queue_wait) +
           " for a slot (in TTFT and E2E).";
  }
  return out;
}

std::string Serving::throughput_note(const llm::ServeProjection& p) const {
  const int replicas = std::max(1, settings_.gpus / p.gpus());
  std::string out = text::grouped(static_cast<long long>(p.output_tokens_per_s)) +
                    " output tokens/s per replica = " + text::fixed(p.output_tokens_per_s_per_gpu, 0) + " per GPU, " +
                    text::fixed(p.output_tokens_per_s_per_user, 1) + " per user; " + text::fixed(p.requests_per_s, 2) +
                    " requests/s; the fleet of " + std::to_string(replicas) +
                    " replica(s): " + text::grouped(static_cast<long long>(replicas * p.output_tokens_per_s)) +
                    " output tokens/s";
  if (p.usd_per_million_output_tokens) {
    out += "; $" + text::fixed(*p.usd_per_million_output_tokens, 3) + " per million output tokens";
  }
  return out + ".";
}

std::string Serving::memory_note(const llm::ServeProjection& p) const {
  const llm::ServeMemory& m = p.capacity.memory;
  return text::gib(m.capacity) + " per GPU: weights " + text::gib_number(m.weights) + ", activations " +
         text::gib_number(m.activations) + ", reserve " + text::gib_number(m.reserve) + ", KV cache " +
         text::gib_number(m.kv_cache) + " GiB = " + text::si_count(p.capacity.kv_tokens) + " tokens (" +
         text::fixed(m.kv_bytes_per_token / 1024, 0) + " KiB per token per GPU" + footprint_parts(m.kv) + "); " +
         std::to_string(p.capacity.max_concurrency) + " requests of ISL + OSL fit at once.";
}

std::string Serving::utilisation_note(const llm::ServeProjection& p) const {
  const llm::StepCost& d = p.decode_step;
  return "MBU " + text::fixed(100 * p.mbu, 0) + "%: " + text::fixed(d.weight_bytes / 1e9, 1) + " GB of weights + " +
         text::fixed(d.kv_bytes / 1e9, 1) + " GB of KV cache read per decode iteration per GPU, over TPOT, against " +
         mbu_peak_label(assumptions_.system) + ". MFU " + text::fixed(100 * p.mfu, 0) + "%: one prompt of " +
         std::to_string(p.config.isl) + " tokens prefilled on the idle replica, against the dense " +
         std::string(llm::to_string(llm::gemm_precision(p.config.precision, assumptions_.system))) + " peak.";
}

std::string Serving::rows_note(const llm::ServeExploreResult& r, const std::vector<std::size_t>& shown) const {
  std::vector<std::string> unseen;  // precisions explored without a row in the table
  for (const llm::Precision p : settings_.precisions) {
    const bool seen = std::any_of(shown.begin(), shown.end(),
                                  [&](std::size_t i) { return r.points[i].projection.config.precision == p; });
    const bool explored = std::any_of(r.points.begin(), r.points.end(),
                                      [&](const llm::ServePoint& x) { return x.projection.config.precision == p; });
    if (explored && !seen) {
      unseen.emplace_back(llm::to_string(p));
    }
  }
  const std::size_t hidden = r.points.size() - shown.size();
  const auto on_front = std::count_if(shown.begin(), shown.end(), [&](std::size_t i) { return r.points[i].pareto; });
  std::string out = "The table shows the " + std::to_string(on_front) + " configurations on the front" +
                    (static_cast<std::size_t>(on_front) < shown.size() ? " and the recommendation" : "") + "; the " +
                    text::grouped(static_cast<long long>(hidden)) + " dominated ones are left out";
  if (!unseen.empty()) {
    out += ", every " + text::join(unseen, " and every ") + " configuration among them (none is on the front)";
  }
  return out + ". --set " + key::explore_rows + "=all shows every configuration explored.";
}

std::string Serving::sweep_note() const {
  const InferenceSettings& s = settings_;
  const workload::ServeAssumptions& a = assumptions_;
  const llm::ServeConfig& c = s.config;
  std::string concurrency =
      "powers of two up to the most that fit, and offline (" + std::string(key::explore_concurrency) + " lists others)";
  if (!s.explore_concurrency.empty()) {
    concurrency.clear();
    for (const int v : s.explore_concurrency) {
      concurrency += (concurrency.empty() ? "" : ", ") + std::to_string(v);
    }
    concurrency += " (" + std::string(key::explore_concurrency) + ") and offline";
  }
  std::string out = "Layouts: TP 1-" + std::to_string(std::min(a.system.nvlink_domain, a.model.heads)) +
                    " (powers of two) x PP 1, 2, 4, 8" + (a.model.moe() ? " x EP dividing TP and the experts" : "") +
                    ", at most the fleet's " + std::to_string(s.gpus) + " GPUs per replica (" + key::fleet_gpus +
                    "); parallel.* only set --mode project's configuration.\nPrecisions: " + precisions_with_kv(s, a) +
                    ".\nConcurrency per replica: " + concurrency + ".\nRequests: ISL " + std::to_string(c.isl) +
                    " / OSL " + std::to_string(c.osl) + " tokens";
  if (c.has_spread()) {
    out += " (the sweep projects the steady state of these means; --mode project simulates the spread)";
  }
  out += "; token budget " + std::to_string(c.batch_tokens()) + ", max batch size " + std::to_string(c.batch_size()) +
         ", KV fraction " + text::fixed(c.kv_fraction(), 2) + ".\nSLOs (p99): TTFT <= " + text::duration(s.slo.ttft) +
         ", TPOT <= " + text::duration(s.slo.tpot) + " (" + key::slo_ttft + ", " + key::slo_tpot +
         "; 0: none); an offline point is a batch job, held to none.";
  return out;
}

}  // namespace dgx::plugins::llm_inference
