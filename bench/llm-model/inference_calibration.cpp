// bench_inference_calibration: how right the serving model is.
//  1. Offline throughput: every row of configs/baselines/inference.toml, published against projected.
//  2. Under load: the measured TTFT and TPOT of configs/baselines/serving-measured.csv (calibration-4), the physical
//     model alone and with each engine's calibration under leave-one-stack-out cross-validation (every stack, model ×
//     system × engine, predicted by a calibration fitted without it), by engine, system and mode.
// Options: --breakdown (each offline row's steady state), --measured FILE (another measured CSV), --stacks (the
// error of every stack), --write-profiles DIR (the fitted calibrations into DIR/<engine>.toml, replacing their
// [calibration] tables), --write-readme FILE (the cross-validation table between its markers), --rows CSV (every
// projected row with its features and cross-validated predictions).
#include "dgx/llm/catalog.hpp"
#include "dgx/llm/serve_calibration.hpp"
#include "dgx/llm/serve_disaggregated.hpp"
#include "dgx/llm/serve_measured.hpp"
#include "dgx/llm/serve_model.hpp"
#include "dgx/llm/serve_validation.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace dgx::llm;

void print_breakdown(const ServeCalibrationRow& row) {
  auto model = find_model(row.model);
  auto system = find_system(row.system);
  if (!model || !system) {
    return;
  }
  const ServeModel serve(*model, *system);
  const auto p = serve.project(row.config);
  if (!p) {
    return;
  }
  const StepCost& d = p->decode_step;
  const StepCost& c = p->chunk_step;
  std::printf("      %d in flight (KV %.0fk tokens), %.1f decoding, %.0f prompt tokens/iteration; TPOT %.1f ms, "
              "TTFT %.0f ms; decode iteration %.1f ms = compute %.1f + tp %.1f + pp %.1f + overhead %.1f; "
              "chunk iteration %.1f ms; MBU %.0f%%, prefill MFU %.0f%%\n",
              p->in_flight, p->capacity.kv_tokens / 1e3, p->decode_batch, p->prefill_tokens_per_iter,
              1e3 * p->tpot.median, 1e3 * p->ttft.median, 1e3 * d.seconds, 1e3 * d.compute, 1e3 * d.tp_comm,
              1e3 * d.pp_comm, 1e3 * d.overhead, 1e3 * c.seconds, 100 * p->mbu, 100 * p->mfu);
}

bool offline_table(bool breakdown) {
  const auto rows = load_serve_calibration();
  if (!rows) {
    std::fprintf(stderr, "bench_inference_calibration: %s\n", rows.error().message.c_str());
    return false;
  }
  const auto outcomes = run_serve_calibration(*rows);
  std::printf("1. Offline throughput: projected (dgx-llm-serve, roofline) vs published output tokens/s of the replica "
              "(configs/baselines/inference.toml)\n\n");
  std::printf("%-46s %12s %12s %8s\n", "row", "published", "projected", "error");
  for (const ServeCalibrationOutcome& o : outcomes) {
    if (!o.failure.empty()) {
      std::printf("%-46s %12.6g %12s  FAILED: %s\n", o.row.label.c_str(), o.row.published, "-", o.failure.c_str());
      continue;
    }
    std::printf("%-46s %12.0f %12.0f %+7.1f%%\n", o.row.label.c_str(), o.row.published, o.projected, 100 * o.error);
    if (breakdown) {
      print_breakdown(o.row);
    }
  }
  std::printf("\n%-8s %5s %7s %15s %14s\n", "section", "rows", "failed", "mean |error|", "max |error|");
  bool failed = false;
  for (const ErrorStats& s : serve_error_stats(outcomes)) {
    std::printf("%-8s %5d %7d %14.2f%% %13.2f%%\n", s.section.c_str(), s.rows, s.failed, 100 * s.mean_abs,
                100 * s.max_abs);
    failed = failed || s.failed > 0;
  }
  return !failed;
}

using Projected = MeasuredProjection;

std::string mode_name(bool disaggregated) { return disaggregated ? "disaggregated" : "aggregated"; }

struct Errors {
  int rows = 0;
  double model_ttft = 0, model_tpot = 0, ttft = 0, tpot = 0;
  void add(const CrossValidated& v) {
    ++rows;
    model_ttft += std::abs(v.sample.model.ttft / v.sample.ttft - 1);
    model_tpot += std::abs(v.sample.model.tpot / v.sample.tpot - 1);
    ttft += std::abs(v.ttft_error());
    tpot += std::abs(v.tpot_error());
  }
  [[nodiscard]] std::string cells() const {
    char line[160];
    std::snprintf(line, sizeof line, "| %4d | %5.0f%% | %5.0f%% | %5.0f%% | %5.0f%% |", rows, 100 * model_ttft / rows,
                  100 * ttft / rows, 100 * model_tpot / rows, 100 * tpot / rows);
    return line;
  }
};

/// The TOML of one calibration, as the profiles carry it.
std::string calibration_toml(const std::string& mode, const EngineCalibration& c) {
  char text[800];
  std::snprintf(text, sizeof text,
                "[calibration.%s]\n"
                "tpot_scale = %.4f\n"
                "tpot_per_kernel_us = %.4f\n"
                "tpot_offset_ms = %.4f\n"
                "ttft_scale = %.4f\n"
                "ttft_wave = %.4f\n"
                "ttft_iterations = %.4f\n"
                "ttft_offset_ms = %.3f\n"
                "rows = %d\nstacks = %d\ncv_ttft = %.4f\ncv_tpot = %.4f\nband_ttft = %.4f\nband_tpot = %.4f\n",
                mode.c_str(), c.tpot_scale, c.tpot_per_kernel * 1e6, c.tpot_offset * 1e3, c.ttft_scale, c.ttft_wave,
                c.ttft_iterations, c.ttft_offset * 1e3, c.rows, c.stacks, c.cv_ttft, c.cv_tpot, c.band_ttft,
                c.band_tpot);
  return text;
}

bool replace_calibration(const std::string& path, const std::string& tables) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_inference_calibration: cannot read %s\n", path.c_str());
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  const std::string marker = "\n# Fitted by bench_inference_calibration";
  if (const auto at = body.find(marker); at != std::string::npos) {
    body.resize(at);
  }
  std::ofstream(path) << body << marker
                      << " (leave-one-stack-out cross-validation on configs/baselines/serving-measured.csv).\n"
                      << tables;
  return true;
}

bool replace_between_markers(const std::string& path, const std::string& table) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  const std::string begin = "<!-- serving-cv:begin -->\n";
  const std::string end = "<!-- serving-cv:end -->";
  const auto b = body.find(begin);
  const auto e = body.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) {
    std::fprintf(stderr, "bench_inference_calibration: %s has no serving-cv markers\n", path.c_str());
    return false;
  }
  body.replace(b + begin.size(), e - b - begin.size(), table);
  std::ofstream(path) << body;
  return true;
}

struct Options {
  bool breakdown = false, stacks = false;
  std::string measured = DGX_SERVING_MEASURED, profiles, readme, rows;
};

/// Every projected row with its features, measured values and cross-validated predictions, as CSV (for analysis).
void write_rows(const std::string& path, const std::vector<Projected>& projected,
                const std::map<std::string, std::vector<CrossValidated>>& validated) {
  std::ofstream out(path);
  out << "id,engine,mode,stack,isl,osl,concurrency,layout,model_ttft_ms,model_tpot_ms,wave_ms,ttft_ms,tpot_ms,"
         "cv_ttft_ms,cv_tpot_ms,kernels\n";
  std::map<std::pair<std::string, double>, const CrossValidated*> by_row;
  for (const auto& [group, rows] : validated) {
    for (const CrossValidated& v : rows) {
      by_row[{v.sample.stack, v.sample.ttft * 1e6 + v.sample.tpot}] = &v;
    }
  }
  for (const Projected& p : projected) {
    if (!p.failure.empty()) {
      continue;
    }
    const auto found = by_row.find({p.sample.stack, p.sample.ttft * 1e6 + p.sample.tpot});
    const CrossValidated* v = found == by_row.end() ? nullptr : found->second;
    out << p.row.id << ',' << p.row.engine << ',' << mode_name(p.row.disaggregated) << ',' << p.sample.stack << ','
        << p.row.config.isl << ',' << p.row.config.osl << ',' << p.row.config.concurrency << ','
        << layout_label(p.row.config.layout, true) << ',' << 1e3 * p.sample.model.ttft << ','
        << 1e3 * p.sample.model.tpot << ',' << 1e3 * p.sample.model.wave << ',' << p.row.ttft_ms << ',' << p.row.tpot_ms
        << ',' << (v ? 1e3 * v->ttft : 0) << ',' << (v ? 1e3 * v->tpot : 0) << ',' << p.sample.model.kernels << '\n';
  }
}

bool measured_tables(const Options& o) {
  std::ifstream in(o.measured);
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = parse_serving_measured(text.str(), o.measured);
  if (!rows) {
    std::fprintf(stderr, "bench_inference_calibration: %s\n", rows.error().message.c_str());
    return false;
  }
  // The engines' scheduler defaults enter the projections: a profile that does not read (a format changed before
  // its calibration was rewritten) would silently fall back to the model's own and fit the wrong thing.
  for (const ServeEngine engine : {ServeEngine::trtllm, ServeEngine::vllm, ServeEngine::sglang}) {
    if (auto profile = find_engine(engine); !profile) {
      std::fprintf(stderr, "bench_inference_calibration: %s\n", profile.error().message.c_str());
      return false;
    }
  }
  const std::vector<Projected> projected = project_measured(*rows);
  // The calibration is fitted per engine on its aggregated rows, leaving one stack out; the disaggregated rows, none
  // of which it saw, are predicted by the fit on every aggregated row, apart by whether their worker counts are
  // stated (without them each is projected as one prefill and one decode worker).
  std::set<std::string> engines;  // with aggregated rows, which calibrate_engine fits
  std::map<std::string, std::vector<CalibrationSample>> disaggregated;  // by "engine mode" group name
  std::map<std::string, std::map<std::string, int>> skipped;
  for (const Projected& p : projected) {
    const std::string mode = !p.row.disaggregated       ? "aggregated"
                             : p.row.decode_workers > 0 ? "disaggregated, workers stated"
                                                        : "disaggregated, workers not stated";
    if (!p.failure.empty()) {
      ++skipped[p.row.engine + " " + mode_name(p.row.disaggregated)][p.failure];
    } else if (p.row.disaggregated) {
      disaggregated[p.row.engine + " " + mode].push_back(p.sample);
    } else {
      engines.insert(p.row.engine);
    }
  }
  std::map<std::string, Errors> by_group, by_system, by_stack;
  std::map<std::string, std::string> tables;  // engine -> TOML
  std::map<std::string, EngineCalibration> fits;
  std::map<std::string, std::vector<CrossValidated>> all_validated;
  const auto tally = [&](const std::string& engine, const std::string& mode, const CrossValidated& v) {
    by_group[engine + " " + mode].add(v);
    const std::string system = v.sample.stack.substr(v.sample.stack.find(' ') + 1);
    by_system[engine + " | " + system.substr(0, system.find(' ')) + " | " + mode].add(v);
    by_stack[v.sample.stack + " | " + mode].add(v);
  };
  for (const std::string& engine : engines) {
    std::vector<CrossValidated>& validated = all_validated[engine];
    fits[engine] = calibrate_engine(projected, parse_serve_engine(engine).value_or(ServeEngine::trtllm), &validated);
    tables[engine] += "\n" + calibration_toml("aggregated", fits[engine]);
    for (const CrossValidated& v : validated) {
      tally(engine, "aggregated", v);
    }
  }
  for (const auto& [group, samples] : disaggregated) {
    const std::string engine = group.substr(0, group.find(' '));
    const EngineCalibration& fit = fits[engine];
    std::vector<CrossValidated>& predicted = all_validated[group];
    for (const CalibrationSample& s : samples) {
      predicted.push_back({.sample = s, .ttft = calibrated_ttft(fit, s.model), .tpot = calibrated_tpot(fit, s.model)});
      tally(engine, group.substr(group.find(' ') + 1), predicted.back());
    }
  }
  std::string table =
      "| engine | mode | rows | TTFT model | TTFT CV | TPOT model | TPOT CV |\n|---|---|---|---|---|---|---|\n";
  for (const auto& [group, e] : by_group) {
    const std::string engine = group.substr(0, group.find(' '));
    table += "| " + engine + " | " + group.substr(group.find(' ') + 1) + " " + e.cells() + "\n";
  }
  table += "\n| engine | system | mode | rows | TTFT model | TTFT CV | TPOT model | TPOT CV |\n"
           "|---|---|---|---|---|---|---|---|\n";
  for (const auto& [key, e] : by_system) {
    table += "| " + key + " " + e.cells() + "\n";
  }
  std::printf(
      "\n2. Under load: measured TTFT and TPOT (%s, %zu rows), mean |error| of the physical model (model) and of "
      "the engine's calibration (CV: aggregated rows leaving one stack out; disaggregated rows, which the fit never "
      "sees, by the fit on all aggregated rows)\n\n%s",
      o.measured == DGX_SERVING_MEASURED ? "configs/baselines/serving-measured.csv" : o.measured.c_str(), rows->size(),
      table.c_str());
  std::printf("\nRows the model cannot project (not in the CV):\n");
  for (const auto& [group, reasons] : skipped) {
    for (const auto& [reason, count] : reasons) {
      std::printf("  %-22s %4d  %s\n", group.c_str(), count, reason.c_str());
    }
  }
  if (o.stacks) {
    std::printf(
        "\n| stack | mode | rows | TTFT model | TTFT CV | TPOT model | TPOT CV |\n|---|---|---|---|---|---|---|\n");
    for (const auto& [key, e] : by_stack) {
      std::printf("| %s %s\n", key.c_str(), e.cells().c_str());
    }
  }
  std::printf("\nCalibrations fitted on every row:\n");
  for (const auto& [engine, toml] : tables) {
    std::printf("# %s%s", engine.c_str(), toml.c_str());
    if (!o.profiles.empty() && !replace_calibration(o.profiles + "/" + engine + ".toml", toml)) {
      return false;
    }
  }
  if (!o.rows.empty()) {
    write_rows(o.rows, projected, all_validated);
  }
  return o.readme.empty() || replace_between_markers(o.readme, table);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--breakdown") {
      o.breakdown = true;
    } else if (a == "--stacks") {
      o.stacks = true;
    } else if (a == "--measured" && has_value) {
      o.measured = argv[++i];
    } else if (a == "--write-profiles" && has_value) {
      o.profiles = argv[++i];
    } else if (a == "--write-readme" && has_value) {
      o.readme = argv[++i];
    } else if (a == "--rows" && has_value) {
      o.rows = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_inference_calibration [--breakdown] [--stacks] [--measured FILE] "
                           "[--write-profiles DIR] [--write-readme FILE] [--rows CSV]\n");
      return 2;
    }
  }
  const bool offline = offline_table(o.breakdown);
  const bool measured = measured_tables(o);
  return offline && measured ? 0 : 1;
}
