#include "project_mode.hpp"

#include <dgx/sdk/error.hpp>

#include "notes.hpp"
#include "params.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::NotePlacement;
using dgx::sdk::text::fixed;
using dgx::sdk::text::gib;
using dgx::sdk::text::grouped;
using dgx::sdk::text::si_count;

std::string what(const InferenceSettings& s, const Assumptions& a) {
  const llm::ServeConfig& c = s.config;
  return a.model.name + " on " + a.system.name + " at " + llm::layout_label(c.layout, a.model.moe()) + " in " +
         std::string(llm::to_string(c.precision));
}

std::string configuration_note(const InferenceSettings& s, const Assumptions& a, const llm::ServeProjection& p) {
  const llm::ServeConfig& c = p.config;
  const int per_replica = c.layout.gpus();
  std::string out = a.model.name + " served by " + std::to_string(s.gpus / per_replica) + " replica(s) of " +
                    llm::layout_label(c.layout, a.model.moe()) + " (" + std::to_string(per_replica) + " x " +
                    a.system.name + " each): " + std::string(llm::to_string(c.precision)) + " weights, " +
                    std::string(llm::to_string(c.kv_precision)) + " KV cache" +
                    (s.kv_precision ? "" : " (" + std::string(key::kv_precision) + " = auto)") + "; requests of ISL " +
                    std::to_string(c.isl) + " / OSL " + std::to_string(c.osl) + " tokens";
  if (c.has_spread()) {
    out += " (standard deviations " + fixed(c.isl_stdev, 0) + " / " + fixed(c.osl_stdev, 0) + ")";
  }
  out += "; ";
  out += p.offline ? "offline: " + std::to_string(p.in_flight) + " requests in flight, the most that fit"
                   : "concurrency " + std::to_string(c.concurrency) + " per replica";
  return out + " (KV cache " + si_count(p.capacity.kv_tokens) + " tokens / " + std::to_string(c.isl + c.osl) +
         " per request, max batch size " + std::to_string(c.batch_size()) + "); token budget " +
         std::to_string(c.batch_tokens()) + " per iteration.";
}

std::string latency_note(const llm::ServeProjection& p) {
  const llm::StepCost& d = p.decode_step;
  std::string out = "TTFT " + dgx::sdk::text::duration(p.ttft.median) + ", TPOT " +
                    dgx::sdk::text::duration(p.tpot.median) + ", E2E " + dgx::sdk::text::duration(p.e2e.median);
  if (p.simulated) {
    out += " (medians; p99 " + dgx::sdk::text::duration(p.ttft.p99) + ", " + dgx::sdk::text::duration(p.tpot.p99) +
           ", " + dgx::sdk::text::duration(p.e2e.p99) + " over " + std::to_string(p.simulated_requests) +
           " simulated requests)";
  }
  out += ". " + fixed(p.decode_batch, 1) + " requests decode per iteration; one without a prompt chunk takes " +
         dgx::sdk::text::duration(d.seconds) + " (compute " + dgx::sdk::text::duration(d.compute) +
         ", TP all-reduces " + dgx::sdk::text::duration(d.tp_comm);
  if (d.pp_comm > 0) {
    out += ", PP hand-offs " + dgx::sdk::text::duration(d.pp_comm);
  }
  out += ", engine overhead " + dgx::sdk::text::duration(d.overhead) + "), one with a prompt chunk " +
         dgx::sdk::text::duration(p.chunk_step.seconds) + "; " + fixed(p.prefill_tokens_per_iter, 0) +
         " prompt tokens per iteration on average.";
  if (p.queue_wait > 0) {
    out += " Requests beyond the " + std::to_string(p.in_flight) + " that fit wait " +
           dgx::sdk::text::duration(p.queue_wait) + " for a slot (in TTFT and E2E).";
  }
  return out;
}

std::string throughput_note(const InferenceSettings& s, const llm::ServeProjection& p) {
  const int replicas = s.gpus / p.config.layout.gpus();
  std::string out = grouped(static_cast<long long>(p.output_tokens_per_s)) +
                    " output tokens/s per replica = " + fixed(p.output_tokens_per_s_per_gpu, 0) + " per GPU, " +
                    fixed(p.output_tokens_per_s_per_user, 1) + " per user; " + fixed(p.requests_per_s, 2) +
                    " requests/s; the fleet of " + std::to_string(replicas) +
                    " replica(s): " + grouped(static_cast<long long>(replicas * p.output_tokens_per_s)) +
                    " output tokens/s";
  if (p.usd_per_million_output_tokens) {
    out += "; $" + fixed(*p.usd_per_million_output_tokens, 3) + " per million output tokens";
  }
  return out + ".";
}

std::string memory_note(const llm::ServeProjection& p) {
  const llm::ServeMemory& m = p.capacity.memory;
  return gib(m.capacity) + " per GPU: weights " + dgx::sdk::text::gib_number(m.weights) + ", activations " +
         dgx::sdk::text::gib_number(m.activations) + ", reserve " + dgx::sdk::text::gib_number(m.reserve) +
         ", KV cache " + dgx::sdk::text::gib_number(m.kv_cache) + " GiB = " + si_count(p.capacity.kv_tokens) +
         " tokens (" + fixed(m.kv_bytes_per_token / 1024, 0) + " KiB per token per GPU); " +
         std::to_string(p.capacity.max_concurrency) + " requests of ISL + OSL fit at once.";
}

std::string utilisation_note(const Assumptions& a, const llm::ServeProjection& p) {
  const llm::StepCost& d = p.decode_step;
  return "MBU " + fixed(100 * p.mbu, 0) + "%: " + fixed(d.weight_bytes / 1e9, 1) + " GB of weights + " +
         fixed(d.kv_bytes / 1e9, 1) + " GB of KV cache read per decode iteration per GPU, over TPOT, against " +
         mbu_peak_label(a.system) + ". MFU " + fixed(100 * p.mfu, 0) + "%: one prompt of " +
         std::to_string(p.config.isl) + " tokens prefilled on the idle replica, against the dense " +
         std::string(llm::to_string(p.config.precision)) + " peak.";
}

}  // namespace

llm::ServeProjection project_configuration(const InferenceSettings& settings, const Assumptions& assumptions,
                                           const llm::OpTimeProvider* provider) {
  const int per_replica = settings.config.layout.gpus();
  if (settings.gpus % per_replica != 0) {
    throw dgx::sdk::InvalidArgument(std::string(key::gpus) + " " + std::to_string(settings.gpus) +
                                    " is not a whole number of replicas of " + std::to_string(per_replica) +
                                    " GPUs (TP x PP)");
  }
  const llm::ServeModel model(assumptions.model, assumptions.system, provider);
  auto projection = model.project(settings.config, assumptions.price);
  if (!projection) {
    throw dgx::sdk::InvalidArgument(what(settings, assumptions) + ": " + projection.error().message);
  }
  return std::move(projection).value();
}

void add_projection_notes(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions,
                          const llm::ServeProjection& p) {
  host.note(NotePlacement::after, "Latency", latency_note(p));
  host.note(NotePlacement::after, "Throughput and cost", throughput_note(settings, p));
  host.note(NotePlacement::after, "Memory per GPU", memory_note(p));
  host.note(NotePlacement::after, "Utilisation", utilisation_note(assumptions, p));
  host.note(NotePlacement::after, "SLOs", "This configuration " + slo_text(settings.slo, p) + ".");
  host.note(NotePlacement::after, "Definitions", definitions_note());
}

void run_project(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions) {
  const llm::ServeProjection p = project_configuration(settings, assumptions);
  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions));
  host.note(NotePlacement::before, "Configuration", configuration_note(settings, assumptions, p));
  host.emit(serve_row("project", RowView::project, assumptions, settings, p));
  add_projection_notes(host, settings, assumptions, p);
  host.note(NotePlacement::after, "Projection", projection_note(assumptions));
}

}  // namespace dgx::plugins::llm_inference
