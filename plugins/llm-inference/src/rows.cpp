// Result rows of serving configurations, shared by project, explore and measure mode so that all carry the same
// config keys, metric names and provenance fields (docs/results-schema.md). What the terminal table shows is chosen
// with the hidden flags: JSON and CSV always carry everything.
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/serve_calibration.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_precision.hpp"
#include "dgx/llm/workload/calibration_summary.hpp"
#include "params.hpp"
#include "plugin.hpp"

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::Row;
namespace text = dgx::sdk::text;
namespace workload = llm::workload;

constexpr std::uint32_t kHiddenConfig = DGX_CONFIG_HIDDEN;
constexpr std::uint32_t kHiddenMetric = DGX_METRIC_HIDDEN;
constexpr std::uint32_t kHiddenField = DGX_FIELD_HIDDEN;

void add_config(Row& row, const workload::ServeAssumptions& a, const InferenceSettings& s, const llm::ServeConfig& c) {
  // The keys users set, so a row can be fed back with --set.
  row.config(key::model, a.model.name, kHiddenConfig)
      .config(key::system, a.system.name, kHiddenConfig)
      .config(key::fleet_gpus, s.gpus, kHiddenConfig)
      .config(key::precision, std::string(llm::to_string(c.precision)), kHiddenConfig)  // the precision field shows it
      .config(key::kv_precision, std::string(llm::to_string(c.kv_precision)), kHiddenConfig)
      .config(key::tp, c.layout.tp, kHiddenConfig)
      .config(key::pp, c.layout.pp, kHiddenConfig)
      .config(key::ep, c.layout.ep, kHiddenConfig)
      .config(key::isl, c.isl, kHiddenConfig)
      .config(key::osl, c.osl, kHiddenConfig)
      .config(key::isl_stdev, c.isl_stdev, kHiddenConfig)
      .config(key::osl_stdev, c.osl_stdev, kHiddenConfig)
      .config(key::concurrency, c.concurrency, kHiddenConfig)
      .config(key::max_batch_tokens, c.batch_tokens(), kHiddenConfig)
      .config(key::max_batch_size, c.batch_size(), kHiddenConfig)
      .config(key::kv_cache_fraction, c.kv_fraction(), kHiddenConfig)
      .config(key::attention_dp, c.layout.attention_dp, kHiddenConfig)
      .config(key::request_rate, c.request_rate, kHiddenConfig)
      .config(key::arrival, std::string(llm::to_string(c.arrival)), kHiddenConfig)
      .config(key::speculative, std::string(llm::to_string(c.speculative.kind)), kHiddenConfig)
      .config(key::engine, std::string(llm::to_string(c.engine)), kHiddenConfig);
  if (c.speculative.active()) {
    row.config(key::draft_tokens, c.speculative.draft_tokens, kHiddenConfig)
        .config(key::acceptance, c.speculative.accepted, kHiddenConfig);
  }
  if (c.lengths) {
    row.config(key::lengths, c.lengths->source, kHiddenConfig);
  }
}

/// The per-metric expected error (serve_calibration.hpp), as the row's fields.
void add_expected_error(Row& row, const workload::ServeAssumptions& a, const llm::ServeProjection& p) {
  const llm::ServeExpectedError e = llm::expected_error(p, a.model);
  const auto pct = [](double x) { return "±" + text::fixed(100 * x, 0) + "%"; };
  row.field("expected_error",
            "throughput " + pct(e.throughput) + ", TPOT " + pct(e.tpot) + ", TTFT " + pct(e.ttft) + ", E2E " +
                pct(e.e2e) + ": " + text::join(e.reasons, "; "),
            kHiddenField);
}

void add_fields(Row& row, const workload::ServeAssumptions& a, const llm::ServeProjection& p) {
  const llm::Precision gemm = llm::gemm_precision(p.config.precision, a.system);
  const auto peak = a.system.dense_peak_flops(gemm) / 1e12;
  // A column even when every row shown has one precision: the table must say which it is (with the front alone
  // BF16 rows are often all dominated, and an unnamed precision read as BF16).
  const std::string layout = p.disaggregation ? std::to_string(p.disaggregation->prefill_workers) + "P " +
                                                    llm::layout_label(p.disaggregation->prefill_layout, a.model.moe()) +
                                                    " + " + std::to_string(p.disaggregation->decode_workers) + "D " +
                                                    llm::layout_label(p.config.layout, a.model.moe())
                                              : llm::layout_label(p.config.layout, a.model.moe());
  row.field("layout", layout)
      .field("serving", p.disaggregation ? "disaggregated" : "aggregated", kHiddenField)
      .field("precision", std::string(llm::to_string(p.config.precision)))
      .field("load", load_label(p))
      .field("model", llm::serve_constants::kModelVersion, kHiddenField)
      .field("system", a.system.name, kHiddenField)
      .field("calibration", a.calibration, kHiddenField);
  const llm::AccuracyBand band = workload::serving_band(a.system, p.config.precision);
  row.field("band", "±" + text::fixed(100 * band.width, 1) + "%")
      .field("accuracy",
             "output throughput ±" + text::fixed(100 * band.width, 1) +
                 "% (9 in 10 published serving runs like it "
                 "fall within; from " +
                 std::to_string(static_cast<int>(band.effective_rows)) + " on " + a.system.name + " " +
                 std::string(llm::to_string(p.config.precision)) + ")" +
                 (band.outside ? "; outside calibration: " + text::join(band.reasons, "; ") : std::string()) +
                 "; latencies under load (TTFT, TPOT at a concurrency) are less certain than offline throughput",
             kHiddenField)
      .field("price", a.price_reason, kHiddenField)
      .field("mbu_peak", mbu_peak_label(a.system), kHiddenField)
      .field("mfu_peak",
             text::fixed(peak, 0) + " TFLOP/s dense " + std::string(llm::to_string(gemm)) + " (" + a.system.name + ")",
             kHiddenField)
      .field("tpot_definition",
             "(E2E - TTFT) / (output tokens - 1): trtllm-bench's TPOT, AIPerf's ITL (not vLLM's chunk-gap ITL)",
             kHiddenField)
      .field("latency", latency_method(p), kHiddenField)
      .field("source", p.provenance, kHiddenField);
  if (const std::string assumed = llm::precision_assumption(a.model, a.system, p.config.precision); !assumed.empty()) {
    row.field("precision_assumption", assumed, kHiddenField);
  }
}

void add_latency(Row& row, RowView view, const llm::ServeProjection& p) {
  const std::uint32_t e2e_flag = view == RowView::explore ? kHiddenMetric : 0;
  // Each latency is the median (p50) of the requests, labelled so in the table; its mean, p90 and p99 stand beside it
  // (equal for the steady state of fixed lengths), and the row says which statistic is which.
  row.metric("ttft", p.ttft.median, "s", 0, "TTFT p50")
      .metric("tpot", p.tpot.median, "s", 0, "TPOT p50")
      .metric("e2e_latency", p.e2e.median, "s", e2e_flag, "E2E p50")
      .metric("itl", p.itl.median, "s", kHiddenMetric);
  const bool spread = p.simulated || p.disaggregation;
  const std::uint32_t p99_flag = spread && view != RowView::explore ? 0 : kHiddenMetric;
  const std::tuple<const char*, const char*, const llm::LatencyStats*> stats[] = {
      {"ttft", "TTFT", &p.ttft}, {"tpot", "TPOT", &p.tpot}, {"itl", "ITL", &p.itl}, {"e2e_latency", "E2E", &p.e2e}};
  for (const auto& [name, label, s] : stats) {
    const bool shown = std::string_view(name) == "ttft" || std::string_view(name) == "tpot";
    row.metric(std::string(name) + ".mean", s->mean, "s", kHiddenMetric)
        .metric(std::string(name) + ".p90", s->p90, "s", kHiddenMetric)
        .metric(std::string(name) + ".p99", s->p99, "s", shown ? p99_flag : kHiddenMetric, std::string(label) + " p99");
  }
  row.field("latency_statistics",
            std::string("ttft, tpot, itl, e2e_latency: the median (p50) over the requests; .mean, .p90, .p99 beside "
                        "them") +
                (spread ? "" : " (a steady state of fixed lengths: every statistic the same)"),
            kHiddenField);
  if (p.open_loop) {
    row.metric("request_rate", p.config.request_rate, "1", view == RowView::explore ? 0 : kHiddenMetric, "req/s")
        .metric("saturation_rate", p.saturation_rate, "1", kHiddenMetric)
        .field("saturated", p.saturated ? "yes: the queue grows, TTFT with the run's length" : "no", kHiddenField);
  }
}

void add_disaggregation(Row& row, const llm::ServeProjection& p) {
  if (!p.disaggregation) {
    return;
  }
  const llm::ServeDisaggregation& d = *p.disaggregation;
  row.metric("prefill_workers", d.prefill_workers, "count", kHiddenMetric)
      .metric("decode_workers", d.decode_workers, "count", kHiddenMetric)
      .metric("gpus", p.gpus(), "count", kHiddenMetric)
      .metric("kv_transfer", d.kv_transfer, "s", kHiddenMetric)
      .metric("kv_bytes_per_request", d.kv_bytes_per_request, "B", kHiddenMetric)
      .metric("prefill_utilisation", 100 * d.prefill_utilisation, "%", kHiddenMetric)
      .field("kv_path", d.kv_over_network ? "scale-out network" : "NVLink", kHiddenField);
}

void add_throughput(Row& row, RowView view, const InferenceSettings& s, const llm::ServeProjection& p) {
  const bool explore = view == RowView::explore;
  const int replicas = std::max(1, s.gpus / p.gpus());
  row.metric("output_tokens_per_s", p.output_tokens_per_s, "tokens/s", explore ? kHiddenMetric : 0, "tok/s")
      .metric("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu, "tokens/s", 0, "tok/s/GPU")
      .metric("output_tokens_per_s_per_user", p.output_tokens_per_s_per_user, "tokens/s", 0, "tok/s/user")
      .metric("requests_per_s", p.requests_per_s, "1", kHiddenMetric)
      .metric("mbu", 100 * p.mbu, "%", 0, "MBU %")
      .metric("mfu", 100 * p.mfu, "%", explore ? kHiddenMetric : 0, "MFU %")
      .metric("kv_cache_tokens", p.capacity.kv_tokens, "count", kHiddenMetric)
      .metric("max_concurrency", p.capacity.max_concurrency, "count", kHiddenMetric)
      .metric("in_flight", p.in_flight, "count", kHiddenMetric)
      .metric("queue_wait", p.queue_wait, "s", kHiddenMetric)
      .metric("replicas", replicas, "count", kHiddenMetric)
      .metric("output_tokens_per_s_fleet", replicas * p.output_tokens_per_s, "tokens/s", kHiddenMetric);
  if (p.usd_per_million_output_tokens) {
    row.metric("usd_per_million_output_tokens", *p.usd_per_million_output_tokens, "USD", 0, "$/Mtok");
  }
}

void add_breakdowns(Row& row, const llm::ServeProjection& p) {
  const llm::StepCost& d = p.decode_step;
  const llm::ServeMemory& m = p.capacity.memory;
  const std::pair<const char*, double> seconds[] = {
      {"decode_iteration.time", d.seconds},      {"decode_iteration.compute", d.compute},
      {"decode_iteration.tp", d.tp_comm},        {"decode_iteration.pp", d.pp_comm},
      {"decode_iteration.overhead", d.overhead}, {"chunk_iteration.time", p.chunk_step.seconds}};
  for (const auto& [name, value] : seconds) {
    row.metric(name, value, "s", kHiddenMetric);
  }
  row.metric("decode_batch", p.decode_batch, "count", kHiddenMetric)
      .metric("prefill_tokens_per_iteration", p.prefill_tokens_per_iter, "count", kHiddenMetric);
  const std::pair<const char*, double> bytes[] = {
      {"memory.weights", m.weights},   {"memory.activations", m.activations},
      {"memory.reserve", m.reserve},   {"memory.kv_cache", m.kv_cache},
      {"memory.capacity", m.capacity}, {"memory.kv_bytes_per_token", m.kv_bytes_per_token}};
  for (const auto& [name, value] : bytes) {
    row.metric(name, value, "B", kHiddenMetric);
  }
}

}  // namespace

std::string latency_method(const llm::ServeProjection& p) {
  if (p.disaggregation) {
    return "disaggregated: steady state of the mean lengths, prefill queueing " +
           std::string(p.open_loop ? "M/D/1 with an exponential tail (p99)" : "of a closed loop");
  }
  if (p.open_loop) {
    return "simulated open loop: " + std::to_string(p.simulated_requests) + " requests arriving " +
           std::string(llm::to_string(p.config.arrival)) +
           ", all counted; mean, median, p90, p99 by linear interpolation";
  }
  return p.simulated ? "simulated: " + std::to_string(p.simulated_requests) +
                           " requests after a warm-up burst; medians and p99 by linear interpolation"
                     : "steady state of fixed lengths (median = p99)";
}

std::string load_label(const llm::ServeProjection& p) {
  if (p.disaggregation) {
    return std::to_string(p.in_flight) + " per decode worker";
  }
  if (p.open_loop) {
    if (p.config.arrival == llm::Arrival::burst) {
      return "burst of " + std::to_string(p.simulated_requests);
    }
    return text::fixed(p.config.request_rate, 2) + " req/s" + (p.saturated ? " (saturated)" : "");
  }
  if (p.offline) {
    return "offline (" + std::to_string(p.in_flight) + " in flight)";
  }
  if (p.config.concurrency > p.in_flight) {
    return std::to_string(p.config.concurrency) + " (" + std::to_string(p.in_flight) + " fit, the rest queue)";
  }
  return std::to_string(p.config.concurrency);
}

std::string mbu_peak_label(const llm::SystemProfile& system) {
  return text::fixed(system.hbm_tb_s, 2) + " TB/s HBM (" + system.name + ")";
}

Row Serving::serve_row(const std::string& table, RowView view, const llm::ServeProjection& projection,
                       dgx::sdk::ResultMode mode) const {
  Row row(mode);
  row.table(table);
  add_config(row, assumptions_, settings_, projection.config);
  add_fields(row, assumptions_, projection);
  add_latency(row, view, projection);
  add_throughput(row, view, settings_, projection);
  add_breakdowns(row, projection);
  add_disaggregation(row, projection);
  add_expected_error(row, assumptions_, projection);
  return row;
}

}  // namespace dgx::plugins::llm_inference
