// A parsed run with its configuration complete, as dgx.results/1 rows of mode measured, in the conventions of
// import.hpp: the keys of the workload that would have run it, the metric names and units its rows use.
#include <cmath>

#include <filesystem>

#include <dgx/sdk/utc_time.hpp>

#include "parsed_run.hpp"
#include "steady_state.hpp"

namespace dgx::logs {

namespace {

double number(const ParsedRun& run, const char* key) { return run.config.at(key).as_number(); }

std::string source_of(const ParsedRun& run) {
  return "imported: " + run.tool + (run.version.empty() ? "" : " " + run.version);
}

ImportedRow base_row(const ParsedRun& run, const std::string& origin) {
  ImportedRow row;
  row.workload = run.workload;
  row.table = "imported " + run.tool;
  row.config = run.config;
  row.add_field(field("source", source_of(run), true));  // the mode column says it too
  if (const json::Value* system = run.config.find("system"); system != nullptr && system->is_string()) {
    row.add_field(field("system", system->as_string(), true));  // what published references match on (info.system)
  }
  row.add_field(field("tool", run.tool, true));
  if (!run.version.empty()) {
    row.add_field(field("tool_version", run.version, true));
  }
  row.add_field(field("file", origin + ":" + std::to_string(run.first_line) + "-" + std::to_string(run.last_line)));
  if (run.time) {
    row.add_field(field("time", sdk::iso_utc(*run.time), true));
    row.add_field(field("time_from", run.time_from, true));
  }
  row.add_field(field("timing", run.timing, true));
  std::string notes;
  for (const std::string& n : run.notes) {
    notes += (notes.empty() ? "" : "; ") + n;
  }
  if (!notes.empty()) {
    row.add_field(field("note", notes));
  }
  return row;
}

json::Object without(const json::Object& config, std::string_view key) {
  json::Object out;
  for (const auto& member : config) {
    if (member.first != key) {
      out.set(member.first, member.second);
    }
  }
  return out;
}

// The series as seconds per step; how, for the `derived` field.
std::vector<double> step_times(const ParsedRun& run, std::string& how) {
  std::vector<double> times;
  const double gbs = number(run, "train.gbs");
  const double tokens_per_step = gbs * number(run, "train.seq_len");
  for (double v : run.series) {
    switch (run.series_kind) {
    case SeriesKind::step_time_s: times.push_back(v); break;
    case SeriesKind::samples_per_s:
      how = "step_time = train.gbs / throughput (samples/s); ";
      times.push_back(gbs / v);
      break;
    case SeriesKind::tokens_per_s_per_gpu:
      how = "step_time = train.seq_len x train.gbs / (gpus x tps); ";
      times.push_back(tokens_per_step / (number(run, "gpus") * v));
      break;
    }
  }
  return times;
}

// The median of a per-step side series (TFLOP/s, MFU) over the same steady steps as the step times.
std::optional<double> steady_median(const std::vector<double>& series, std::size_t dropped) {
  if (series.size() <= dropped) {
    return std::nullopt;
  }
  return median(std::vector<double>(series.begin() + static_cast<std::ptrdiff_t>(dropped), series.end()));
}

Expected<std::vector<ImportedRow>> training_rows(const ParsedRun& run, const std::string& origin) {
  if (run.series.empty() && !run.metrics.empty()) {  // MLPerf's time to train, without a logged step time
    ImportedRow row = base_row(run, origin);
    for (const Metric& m : run.metrics) {
      row.add_metric(m);
    }
    return std::vector<ImportedRow>{std::move(row)};
  }
  std::string how;
  const std::vector<double> times = step_times(run, how);
  auto steady = steady_state(times, origin, run.warmup_rule());
  if (!steady) {
    return steady.error();
  }
  ImportedRow row = base_row(run, origin);
  const double step = steady->median;
  const double tokens = number(run, "train.seq_len") * number(run, "train.gbs") / step;
  row.add_metric(metric("step_time", step, "s"));
  row.add_metric(metric("tokens_per_s", tokens, "tokens/s"));
  row.add_metric(metric("tokens_per_s_per_gpu", tokens / number(run, "gpus"), "tokens/s"));
  if (auto tflops = steady_median(run.tflops, steady->dropped)) {
    row.add_metric(metric("model_tflops_per_gpu", *tflops, "TFLOP/s"));
  }
  if (auto mfu = steady_median(run.mfu, steady->dropped)) {
    row.add_metric(metric("mfu", *mfu, "%"));
  }
  row.add_metric(metric("steps", static_cast<double>(times.size()), "count"));
  for (const Metric& m : run.metrics) {
    row.add_metric(m);
  }
  row.sample_times = steady->steady;
  row.add_field(field("steady_state", steady->describe()));
  row.add_field(field("derived",
                      how + "tokens_per_s = train.seq_len x train.gbs / step_time; tokens_per_s_per_gpu = "
                            "tokens_per_s / gpus",
                      true));
  return std::vector<ImportedRow>{std::move(row)};
}

std::vector<ImportedRow> collective_rows(const ParsedRun& run, const std::string& origin) {
  std::vector<ImportedRow> rows;
  for (const CollectiveLine& l : run.lines) {
    ImportedRow row = base_row(run, origin);
    row.workload = run.config.at("comm.collective").as_string();  // the comm plugin's workload, not a key of it
    row.config = without(run.config, "comm.collective");
    row.config.set("transport", "nccl");
    row.config.set("comm.dtype", l.type);
    row.config.set("comm.op", l.redop);
    row.config.set("comm.placement", l.placement);
    row.add_metric(metric("size", l.size_bytes, "B"));
    row.add_metric(metric("count", l.count, "count"));
    row.add_metric(metric("time", l.time_us * 1e-6, "s"));
    row.add_metric(metric("algbw", l.algbw, "GB/s"));
    row.add_metric(metric("busbw", l.busbw, "GB/s"));
    if (l.wrong) {
      row.add_metric(metric("wrong", *l.wrong, "count"));
    }
    row.add_field(field("table_layout", "nccl-tests", true));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<ImportedRow> serving_rows(const ParsedRun& run, const std::string& origin) {
  ImportedRow row = base_row(run, origin);
  for (const Metric& m : run.metrics) {
    row.add_metric(m);
  }
  const Metric* total = row.find_metric("output_tokens_per_s");
  if (total != nullptr && row.find_metric("output_tokens_per_s_per_gpu") == nullptr) {
    row.add_metric(metric("output_tokens_per_s_per_gpu", total->value / number(run, "serve.fleet_gpus"), "tokens/s"));
    row.add_field(field("derived", "output_tokens_per_s_per_gpu = output_tokens_per_s / serve.fleet_gpus", true));
  }
  return {std::move(row)};
}

}  // namespace

Expected<std::vector<ImportedRow>> make_rows(const ParsedRun& run, const std::string& origin) {
  switch (run.kind) {
  case RunKind::training: return training_rows(run, origin);
  case RunKind::collective: return collective_rows(run, origin);
  case RunKind::serving: return serving_rows(run, origin);
  }
  return std::vector<ImportedRow>{};
}

}  // namespace dgx::logs
