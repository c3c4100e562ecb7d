#include "dgx/core/verdict/projection_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "dgx/core/support/exit_codes.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// The metrics a run is judged on against its projection, in order of preference: what a platform engineer reads
// first (per-GPU throughput), then the time the tool itself timed.
constexpr std::array<const char*, 9> kJudged = {"tokens_per_s_per_gpu",
                                                "step_time",
                                                "tokens_per_s",
                                                "output_tokens_per_s_per_gpu",
                                                "output_tokens_per_s",
                                                "tpot",
                                                "ttft",
                                                "e2e_latency",
                                                "busbw"};

// A part of the projected step below this share is not where a slow run loses its time.
constexpr double kWorthMeasuring = 0.02;

std::string percent(double fraction, int decimals = 1) { return text::fixed(100 * fraction, decimals) + "%"; }

std::optional<double> metric_value(const ResultRow& row, const char* name, const std::string& unit) {
  const Metric* m = row.find_metric(name);
  if (m == nullptr || !std::isfinite(m->value)) {
    return std::nullopt;
  }
  return convert(m->value, m->unit, unit);
}

std::string config_text(const ResultRow& row, const char* key, const char* fallback) {
  return row.config_text(key, fallback);
}

int config_int(const ResultRow& row, const char* key, int fallback) {
  const json::Value* v = row.config.find(key);
  return v != nullptr && v->is_number() ? static_cast<int>(v->as_number()) : fallback;
}

// The first precision of a row's config ("fp8" or ["fp8"]).
std::string precision_of(const ResultRow& row) {
  const json::Value* v = row.config.find("precision");
  if (v == nullptr) {
    return "bf16";
  }
  if (v->is_array()) {
    return v->as_array().empty() || !v->as_array()[0].is_string() ? "bf16" : v->as_array()[0].as_string();
  }
  return v->is_string() ? v->as_string() : "bf16";
}

struct Part {
  std::string key;   // the breakdown metric's suffix: compute, tp, dp, ...
  std::string what;  // what it is, for the text
  double seconds = 0;
};

const char* part_name(const std::string& key) {
  static const std::array<std::pair<const char*, const char*>, 11> names = {{
      {"compute", "GEMMs, attention and elementwise kernels"},
      {"tp", "tensor-parallel communication"},
      {"cp", "context-parallel communication"},
      {"ep", "expert all-to-all"},
      {"pp", "pipeline send/recv"},
      {"bubble", "pipeline bubble"},
      {"dp", "data-parallel gradient reduce (exposed)"},
      {"optimizer", "optimizer step"},
      {"stragglers", "stragglers and jitter at this scale"},
      {"offload", "activation offload"},
      {"overhead", "per-iteration overhead (launches, sampling)"},
  }};
  for (const auto& [k, name] : names) {
    if (key == k) {
      return name;
    }
  }
  return "other";
}

// The projection's parts of one step (training: breakdown.*) or one decode iteration (serving), largest first.
std::vector<Part> parts_of(const ResultRow& projected, std::string* prefix) {
  std::vector<Part> parts;
  for (const char* candidate : {"breakdown.", "decode_iteration."}) {
    const std::string p = candidate;
    for (const Metric& m : projected.metrics) {
      if (text::starts_with(m.name, p) && m.name != p + "time" && std::isfinite(m.value) && m.unit == "s") {
        const std::string key = m.name.substr(p.size());
        parts.push_back({key, part_name(key), m.value});
      }
    }
    if (!parts.empty()) {
      *prefix = p;
      break;
    }
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.seconds > b.seconds; });
  return parts;
}

}  // namespace

std::string_view to_string(ProjectionOutcome outcome) {
  switch (outcome) {
  case ProjectionOutcome::slower: return "slower";
  case ProjectionOutcome::as_projected: return "as projected";
  case ProjectionOutcome::faster: return "faster";
  }
  return "as projected";
}

std::string ProjectionJudgement::text() const {
  const std::string band_text = "band \u00b1" + percent(band);
  const double off = std::abs(ratio - 1);
  switch (outcome) {
  case ProjectionOutcome::slower:
    return percent(off) + " below the projection (" + band_text + "): slower than this configuration should run";
  case ProjectionOutcome::faster:
    return percent(off) + " above the projection (" + band_text +
           "): faster than the model expects of this configuration (the model is pessimistic here)";
  case ProjectionOutcome::as_projected: break;
  }
  return (ratio >= 1 ? percent(off) + " above" : percent(off) + " below") + " the projection, inside its " + band_text +
         ": as fast as this configuration should run";
}

// The projection's expected error as a fraction: its accuracy_band metric, or the "±x%" of its band field (serving
// rows state it as a field only).
std::optional<double> band_of(const ResultRow& projected) {
  if (const Metric* band = projected.find_metric("accuracy_band")) {
    const auto fraction = convert(band->value, band->unit, "1");
    return fraction && std::isfinite(*fraction) && *fraction >= 0 ? fraction : std::nullopt;
  }
  const Field* field = projected.find_field("band");
  if (field == nullptr) {
    return std::nullopt;
  }
  const std::size_t digits = field->value.find_first_of("0123456789");
  if (digits == std::string::npos) {
    return std::nullopt;
  }
  const double percent_value = std::strtod(field->value.c_str() + digits, nullptr);
  return std::isfinite(percent_value) && percent_value >= 0 ? std::optional(percent_value / 100) : std::nullopt;
}

std::optional<ProjectionJudgement> judge_against_projection(const ResultRow& measured, const ResultRow& projected) {
  const auto band = band_of(projected);
  if (!band) {
    return std::nullopt;
  }
  const double band_fraction = *band;
  for (const char* name : kJudged) {
    const Metric* m = measured.find_metric(name);
    if (m == nullptr || !std::isfinite(m->value) || m->value <= 0) {
      continue;
    }
    const auto p = metric_value(projected, name, m->unit);
    const Better better = better_direction(m->name, m->unit);
    const auto ratio = p ? goodness_ratio(better, m->value, *p) : std::nullopt;
    if (!ratio) {
      continue;
    }
    ProjectionJudgement j{m->name, m->unit, m->value, *p, band_fraction, *ratio, better};
    j.outcome = *ratio < 1 - band_fraction   ? ProjectionOutcome::slower
                : *ratio > 1 + band_fraction ? ProjectionOutcome::faster
                                             : ProjectionOutcome::as_projected;
    return j;
  }
  return std::nullopt;
}

std::vector<std::string> where_time_goes(const ResultRow& measured, const ResultRow& projected) {
  std::string prefix;
  const std::vector<Part> parts = parts_of(projected, &prefix);
  if (parts.empty()) {
    return {};
  }
  double total = 0;
  for (const Part& p : parts) {
    total += p.seconds;
  }
  const bool serving = prefix == "decode_iteration.";
  const char* timed = serving ? "tpot" : "step_time";
  std::vector<std::string> lines;
  std::string projected_line = std::string(serving ? "the projected decode iteration" : "the projected step") + " (" +
                               format_quantity(total, "s") + "): ";
  std::vector<std::string> shares;
  for (const Part& p : parts) {
    if (p.seconds > 0) {
      shares.push_back(p.what + " " + format_quantity(p.seconds, "s") + " (" + percent(p.seconds / total, 0) + ")");
    }
  }
  lines.push_back(projected_line + text::join(shares, ", "));
  std::vector<std::string> shown;
  for (const char* name : {"step_time", "tpot", "ttft", "model_tflops_per_gpu", "mfu", "tokens_per_s_per_gpu",
                           "output_tokens_per_s_per_gpu"}) {
    const Metric* m = measured.find_metric(name);
    if (m == nullptr || !std::isfinite(m->value)) {
      continue;
    }
    std::string item = std::string(name) + " " + format_quantity(m->value, m->unit);
    if (const auto p = metric_value(projected, name, m->unit)) {
      item += " (projected " + format_quantity(*p, m->unit) + ")";
    }
    shown.push_back(item);
  }
  if (!shown.empty()) {
    lines.push_back("the run printed: " + text::join(shown, ", "));
  }
  const Metric* measured_time = measured.find_metric(timed);
  const auto projected_time =
      measured_time != nullptr ? metric_value(projected, timed, measured_time->unit) : std::nullopt;
  if (measured_time != nullptr && projected_time && *projected_time > 0) {
    const double gap = convert(measured_time->value - *projected_time, measured_time->unit, "s").value_or(0);
    if (gap > 0) {
      lines.push_back("the run takes " + format_quantity(gap, "s") + " (" + percent(gap / total) + ") more per " +
                      (serving ? "output token" : "step") + " than projected: as much as the projected " +
                      parts.front().what + " would grow by " + percent(gap / std::max(parts.front().seconds, 1e-12)) +
                      ", or several parts together");
    }
  }
  return lines;
}

std::vector<std::string> settling_measurements(const ResultRow& measured, const ResultRow& projected) {
  std::string prefix;
  const std::vector<Part> parts = parts_of(projected, &prefix);
  const std::string precision = precision_of(measured);
  const std::string model = config_text(measured, "model", "MODEL");
  const int tp = config_int(measured, "parallel.tp", 1);
  const int gpus = config_int(measured, "gpus", 8);
  const int nodes = std::max(1, (gpus + 7) / 8);
  const bool serving = prefix == "decode_iteration.";
  std::vector<std::string> out;
  auto add = [&](const std::string& line) {
    if (std::find(out.begin(), out.end(), line) == out.end()) {
      out.push_back(line);
    }
  };
  double total = 0;
  for (const Part& p : parts) {
    total += p.seconds;
  }
  for (const Part& p : parts) {
    if (p.seconds < kWorthMeasuring * total) {
      continue;
    }
    if (p.key == "compute") {
      if (serving) {
        add("dgxhost --plugin hbm_copy (decode reads the weights and the KV cache: HBM bandwidth against its ceiling)");
      }
      add("dgxhost --plugin gemm --set 'gemm.precisions=[\"" + precision +
          "\"]' (the GEMMs at the run's precision against the system's ceiling)");
      add("dgxhost --plugin llm-layer --set model=" + model + " --set 'precision=[\"" + precision +
          "\"]' (one layer of the model, op by op)");
    } else if (p.key == "tp" && tp > 1) {
      add("srun -N 1 -n " + std::to_string(tp) + " dgxhost --plugin all_reduce -b " +
          (serving ? "8K -e 1M" : "16M -e 1G") + " (the TP" + std::to_string(tp) + " all-reduce inside a node)");
    } else if (p.key == "dp" || p.key == "optimizer") {
      add("srun -N " + std::to_string(nodes) + " -n " + std::to_string(gpus) +
          " dgxhost --plugin reduce_scatter -b 64M -e 1G (the gradient reduce-scatter across nodes; all_gather for the "
          "parameters)");
    } else if (p.key == "ep") {
      add("srun -N " + std::to_string(nodes) + " -n " + std::to_string(gpus) +
          " dgxhost --plugin alltoall -b 1M -e 256M (the expert dispatch and combine)");
    } else if (p.key == "pp") {
      add("srun -N 2 -n 2 dgxhost --plugin sendrecv -b 1M -e 256M (the pipeline's activations between nodes)");
    } else if (p.key == "stragglers") {
      add("dgxhost --plugin platform-check on each node (a slow GPU or node sets the pace of every step)");
    }
  }
  add("dgxhost --plugin platform-check (GEMM, HBM, NCCL and one layer against their references)");
  return out;
}

namespace {

// "<model>, 64 x h100-sxm, fp8, TP4 PP4 CP2 VP5 MBS1 (imported: nemo 25.09)".
std::string judged_name(const ResultRow& row, const ResultRow* projected) {
  std::string name = row.config_text("model", row.workload);
  if (const Field* f = projected != nullptr ? projected->find_field("configuration") : nullptr) {
    name += ", " + f->value;
  } else if (!row.label.empty()) {
    name += " " + row.label;
  }
  if (const Field* source = row.find_field("source")) {
    name += " (" + source->value + ")";
  }
  return name;
}

// The projected row as shown beside the measured one: its table, and the measured row's config keys with the
// values the projection resolved (the rest stays in its `configuration` field).
ResultRow shown_projection(const ResultRow& measured, const ResultRow& projected) {
  ResultRow out = projected;
  out.table = measured.table;
  out.label = "projection";
  out.config = json::Object();
  for (const auto& [key, value] : measured.config) {
    const json::Value* resolved = projected.config.find(key);
    out.config.set(key, resolved != nullptr ? *resolved : value);
  }
  out.hidden_config = measured.hidden_config;
  out.sample_times.clear();
  return out;
}

// What the projection assumed that the run did not say (fill_assumed).
std::string assumed_text(const ResultRow& row) {
  const Field* f = row.find_field("assumed");
  return f == nullptr
             ? std::string()
             : "; not in the run's output, the projection assumed " + f->value + " (--set KEY=VALUE to change)";
}

}  // namespace

std::vector<std::string> fill_assumed(ResultRow& row, const ResultRow& projected) {
  static const std::array<const char*, 14> keys = {
      "framework",     "precision", "parallel.tp", "parallel.pp",   "parallel.cp",     "parallel.vp", "parallel.ep",
      "parallel.fsdp", "train.mbs", "train.gbs",   "train.seq_len", "train.recompute", "serve.isl",   "serve.osl"};
  std::vector<std::string> filled, described;
  for (const char* key : keys) {
    const json::Value* resolved = projected.config.find(key);
    if (row.config.find(key) != nullptr || resolved == nullptr) {
      continue;
    }
    row.config.set(key, *resolved);
    row.hidden_config.emplace_back(key);
    filled.emplace_back(key);
    described.push_back(std::string(key) + " = " + projected.config_text(key));
  }
  if (!described.empty()) {
    row.add_field({"assumed", text::join(described, ", "), true});
  }
  return filled;
}

ProjectionCounts apply_projections(Report& report, const std::vector<Projection>& projections) {
  ProjectionCounts counts;
  std::vector<ResultRow> rows;
  std::vector<std::string> lines;
  std::size_t next = 0;
  for (ResultRow& row : report.rows) {
    if (row.mode != ResultMode::measured || next >= projections.size()) {
      rows.push_back(std::move(row));
      continue;
    }
    const Projection& p = projections[next++];
    if (!p.row) {
      ++counts.none;
      row.add_field({"verdict.projection", "no projection", false});
      row.add_field({"projection", "none: " + p.none, true});
      lines.push_back(judged_name(row, nullptr) + ": no projection (" + p.none + ")");
      rows.push_back(std::move(row));
      continue;
    }
    const auto j = judge_against_projection(row, *p.row);
    rows.push_back(shown_projection(row, *p.row));
    if (!j) {
      ++counts.none;
      row.add_field({"verdict.projection", "no projection", false});
      row.add_field({"projection", "none: the run and its projection share no judged metric", true});
      lines.push_back(judged_name(row, &*p.row) + ": the run and its projection share no judged metric");
      rows.push_back(std::move(row));
      continue;
    }
    row.add_metric({"ratio_to_projection", j->ratio, "1", false, "vs proj"});
    row.add_metric({"projection_band", 100 * j->band, "%", true, "band"});
    row.add_field({"verdict.projection", std::string(to_string(j->outcome)), false});
    row.add_field({"projection", j->metric + ": " + j->text() + " (" + p.command + ")", true});
    std::string line = judged_name(row, &*p.row) + ": " + j->metric + " " + format_quantity(j->measured, j->unit) +
                       " against " + format_quantity(j->projected, j->unit) + " projected, " + j->text() +
                       assumed_text(row);
    if (j->outcome == ProjectionOutcome::slower) {
      ++counts.slower;
      for (const std::string& where : where_time_goes(row, *p.row)) {
        line += "\n  " + where;
      }
      line += "\n  to settle it:";
      for (const std::string& command : settling_measurements(row, *p.row)) {
        line += "\n    " + command;
      }
    } else {
      ++(j->outcome == ProjectionOutcome::faster ? counts.faster : counts.as_projected);
    }
    lines.push_back(line);
    rows.push_back(std::move(row));
  }
  report.rows = std::move(rows);
  std::string summary = std::to_string(counts.as_projected) + " as projected, " + std::to_string(counts.slower) +
                        " slower, " + std::to_string(counts.faster) + " faster, " + std::to_string(counts.none) +
                        " without a projection: each run against the calibrated projection of exactly its "
                        "configuration; slower means below the projection by more than its accuracy band.";
  // Rows that share a line (a sweep's sizes without a model) are one line with their count.
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t same = i + 1;
    while (same < lines.size() && lines[same] == lines[i]) {
      ++same;
    }
    summary += "\n" + (same - i > 1 ? std::to_string(same - i) + " rows: " : std::string()) + lines[i];
    i = same;
  }
  report.notes.push_back({false, "Against the projection", summary});
  if (counts.slower > 0 && report.exit_code == 0) {
    report.exit_code = to_int(ExitCode::check_failed);
    report.error = std::to_string(counts.slower) + " run(s) slower than the projection of their configuration";
  }
  return counts;
}

}  // namespace dgx
