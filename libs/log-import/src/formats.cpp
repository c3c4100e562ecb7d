// Each format's probe and reader, as the SDK declares them: the probe scores a text by what only that tool prints
// (the more specific format higher: loadgen's detail log is MLLOG too, an MLPerf log is also a NeMo log, a
// Megatron-LM log may carry a torchtitan-like line, SGLang's report is vLLM's with lines of its own); the reader
// parses, fills the gaps from --set and emits the rows, or the reading when the host only inspects.
#include "dgx/log_import/formats.hpp"

#include <iterator>
#include <span>
#include <string>
#include <utility>

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>
#endif

#include "parsed_run.hpp"

namespace dgx::logs {

namespace {

struct Format {
  const char* name;
  const char* summary;
  int score;  // what the probe answers for a text the format recognises
  bool (*looks_like)(std::string_view);
  Parser parse;
};

json::Value to_json(const toml::node& node) {
  if (const auto* s = node.as_string()) {
    return json::Value(s->get());
  }
  if (const auto* i = node.as_integer()) {
    return json::Value(static_cast<std::int64_t>(i->get()));
  }
  if (const auto* f = node.as_floating_point()) {
    return json::Value(f->get());
  }
  if (const auto* b = node.as_boolean()) {
    return json::Value(b->get());
  }
  if (const auto* a = node.as_array()) {
    json::Array out;
    for (const toml::node& e : *a) {
      out.push_back(to_json(e));
    }
    return json::Value(std::move(out));
  }
  return json::Value(nullptr);
}

// The user's --set as the host typed them (TOML value literals).
std::vector<SetEntry> typed_sets(const sdk::ImportRequest& request) {
  std::vector<SetEntry> sets;
  for (const auto& [key, literal] : request.sets) {
    toml::table table;
#if TOML_EXCEPTIONS
    try {
      table = toml::parse("v = " + literal);
    } catch (const toml::parse_error&) {
      table = {};
    }
#else
    if (toml::parse_result parsed = toml::parse("v = " + literal)) {
      table = std::move(parsed).table();
    }
#endif
    const toml::node* value = table.get("v");
    if (value == nullptr) {
      throw sdk::InvalidArgument("--set " + key + ": the host passed '" + literal + "', not a TOML value");
    }
    sets.push_back({key, to_json(*value)});
  }
  return sets;
}

[[noreturn]] void refuse(const Failure& failure) { throw sdk::InvalidArgument(failure.message); }

template <typename T> T take(Expected<T> result) {
  if (!result) {
    refuse(result.error());
  }
  return std::move(result.value());
}

void check(const std::optional<Failure>& problem) {
  if (problem) {
    refuse(*problem);
  }
}

sdk::Row to_sdk_row(const ImportedRow& r) {
  sdk::Row row(sdk::ResultMode::measured);
  row.workload(r.workload).table(r.table);
  for (const auto& [key, value] : r.config) {
    row.config_literal(key, json::to_toml_literal(value));
  }
  for (const Metric& m : r.metrics) {
    row.metric(m.name, m.value, m.unit);
  }
  for (const Field& f : r.fields) {
    row.field(f.key, f.value, f.hidden ? DGX_FIELD_HIDDEN : 0);
  }
  row.samples(r.sample_times);
  return row;
}

// What one format's reader does with the request.
void read_with(const Format& format, sdk::Host& host, const sdk::ImportRequest& request, sdk::ImportSink& sink) {
  const std::vector<SetEntry> sets = typed_sets(request);
  LineSource lines(request);
  ParsedRun run = take(format.parse(lines, request.origin));
  if (request.world_size) {  // the world size the launcher's prefixes show, for a log that does not print it
    const std::string key = run.kind == RunKind::collective ? "world_size" : "gpus";
    if (!run.config.contains(key)) {
      run.set(key, static_cast<std::int64_t>(*request.world_size), request.world_size_line);
    }
  }
  check(check_plausible(run, request.origin));
  if (request.inspect) {
    sink.reading(take(inspect_run(std::move(run), sets, request.origin)));
    return;
  }
  std::vector<SetEntry> config_sets;
  check(apply_import_options(run, sets, config_sets, request.origin));
  check(select_run(run, request.origin, false));
  if (!run.time && request.file_time) {
    run.time = *request.file_time;
    run.time_from = "the file's modification time";
  }
  check(merge_sets(run, config_sets, request.origin));
  check(check_fabric(run, request.origin));
  for (const ImportedRow& row : take(make_rows(run, request.origin))) {
    host.emit(to_sdk_row(row));
  }
}

std::vector<sdk::FormatSpec> specs(std::span<const Format> formats) {
  std::vector<sdk::FormatSpec> out;
  for (const Format& f : formats) {
    out.push_back({.name = f.name,
                   .summary = f.summary,
                   .probe = [f](std::string_view text) { return f.looks_like(text) ? f.score : 0; },
                   .read = [f](sdk::Host& host, const sdk::ImportRequest& request,
                               sdk::ImportSink& sink) { read_with(f, host, request, sink); }});
  }
  return out;
}

constexpr Format kTraining[] = {
    {"mlperf", "MLPerf Training's MLLOG (:::MLLOG lines): throughput per step or time to train", 95, looks_like_mllog,
     parse_mllog},
    {"megatron-lm", "Megatron-LM's training log (and forks: Primus, ...): iteration lines and the argument dump", 60,
     looks_like_megatron, parse_megatron_log},
    {"torchtitan", "torchtitan's training log: step lines with tps, tflops and mfu", 55, looks_like_torchtitan,
     parse_torchtitan_log},
    {"nemo", "NeMo / Megatron-Bridge training log (NeMo 2 and NeMo 1's progress bars): train_step_timing", 50,
     looks_like_nemo, parse_nemo_log},
};

constexpr Format kServing[] = {
    {"mlperf-inference", "MLPerf Inference's loadgen logs: mlperf_log_summary.txt and mlperf_log_detail.txt", 100,
     looks_like_mlperf_inference, parse_mlperf_inference},
    {"aiperf", "AIPerf's console table and profile_export_aiperf.json / .csv", 85, looks_like_aiperf, parse_aiperf},
    {"genai-perf", "GenAI-Perf's console table and profile_export_genai_perf.json", 80, looks_like_genai_perf,
     parse_genai_perf},
    {"sglang-bench", "SGLang's bench_serving report", 75, looks_like_sglang_bench, parse_sglang_bench},
    {"vllm-bench", "vllm bench serve (benchmark_serving.py): its report and --save-result JSON", 70,
     looks_like_vllm_bench, parse_vllm_bench},
    {"trtllm-bench", "trtllm-bench throughput / latency reports", 65, looks_like_trtllm_bench, parse_trtllm_bench},
};

constexpr Format kCollective[] = {
    {"nccl-tests", "nccl-tests' (and rccl-tests') stdout: the size/count/type/time/algbw/busbw table", 90,
     looks_like_nccl_tests, parse_nccl_tests},
};

const std::vector<Format>& all_formats() {
  static const std::vector<Format> all = [] {
    std::vector<Format> v(std::begin(kTraining), std::end(kTraining));
    v.insert(v.end(), std::begin(kServing), std::end(kServing));
    v.insert(v.end(), std::begin(kCollective), std::end(kCollective));
    return v;
  }();
  return all;
}

}  // namespace

std::vector<sdk::FormatSpec> training_formats() { return specs(kTraining); }

std::vector<sdk::FormatSpec> serving_formats() { return specs(kServing); }

std::vector<sdk::FormatSpec> collective_formats() { return specs(kCollective); }

namespace {

const Format* best_of(std::string_view text) {
  const Format* best = nullptr;
  for (const Format& f : all_formats()) {
    if (f.looks_like(text) && (best == nullptr || f.score > best->score)) {
      best = &f;
    }
  }
  return best;
}

}  // namespace

bool (*data_line_of(std::string_view text))(std::string_view) {
  const Format* best = best_of(text);
  return best == nullptr ? nullptr : best->looks_like;
}

Expected<ParsedRun> parse_any(std::string_view text, const std::string& origin) {
  const Format* best = best_of(text);
  if (best == nullptr) {
    return bad_input(origin, 0, "not a log of any of dgxhost's formats");
  }
  LineSource lines(text);
  return best->parse(lines, origin);
}

}  // namespace dgx::logs
