// MLPerf Training's MLLOG lines (mlcommons/logging, mllog): one JSON event per line after ":::MLLOG ",
//   :::MLLOG {"namespace": "", "time_ms": 1721026805975, "event_type": "POINT_IN_TIME", "key": "global_batch_size",
//             "value": 1152, "metadata": {"file": "...", "lineno": 12}}
// often behind a launcher's prefix ("0: " from srun -l) and between other output. The benchmark's result is its
// time to train, run_start to run_stop; the configuration comes from submission_benchmark (the model),
// global_batch_size and max_sequence_length, and from the launcher lines NVIDIA-derived submissions print
// (:::SYSJSON, the system description: nodes, GPUs per node, GPU; :::DLPAL, the config name "..._8x8x1xtp4pp1cp2").
// The speed comes from the submitters' tracked_stats: a step time per step ("train_step_time", NeMo's
// "train_step_timing in s"), else per block of steps a throughput [samples/s] (with its mean step time from v5.0).
// A second run_start is a second run.
#include <algorithm>
#include <regex>

#include "dgx/log_import/log_text.hpp"
#include "mllog_event.hpp"
#include "parsed_run.hpp"

namespace dgx::logs {

Expected<MllogEvent> read_mllog_event(const Line& line, bool last, const std::string& origin) {
  const std::string_view body = line.text.substr(line.text.find(kMllogPrefix) + kMllogPrefix.size());
  json::Value doc;
  try {
    doc = json::parse(body);
  } catch (const std::runtime_error& e) {
    return bad_input(
        origin, line.number,
        std::string(last ? "truncated: the last MLLOG event is cut off (" : "an MLLOG event that is not JSON (") +
            e.what() + ")");
  }
  const json::Value* key = doc.is_object() ? doc.as_object().find("key") : nullptr;
  if (key == nullptr || !key->is_string()) {
    return bad_input(origin, line.number, "an MLLOG event without its key");
  }
  const json::Value* value = doc.as_object().find("value");
  const json::Value* metadata = doc.as_object().find("metadata");
  return MllogEvent{key->as_string(), value != nullptr ? *value : json::Value(),
                    metadata != nullptr ? *metadata : json::Value(), number_at(doc, "time_ms")};
}

namespace {

// One tracked_stats series with the step of each value (metadata "step": samples or tokens seen so far), a step
// printed twice (by two ranks) kept once.
struct TrackedSeries {
  std::vector<double> values;
  std::vector<std::optional<long>> steps;

  void add(double value, std::optional<long> step) {
    if (step && std::find(steps.begin(), steps.end(), step) != steps.end()) {
      return;
    }
    values.push_back(value);
    steps.push_back(step);
  }
};

struct TrainingLog {
  ParsedRun run;
  TrackedSeries step_times;        // per step: train_step_time / "train_step_timing in s"
  TrackedSeries block_step_times;  // per block: the mean step time beside its throughput
  TrackedSeries throughput;        // per block: samples/s
  std::optional<double> start_ms;
  std::optional<double> stop_ms;
};

// MLPerf's fine-tuning benchmark (its name ends in "_lora"): its row is llm-finetune's.
void read_benchmark(const MllogEvent& e, ParsedRun& run, int line) {
  if (!e.value.is_string()) {
    return;
  }
  run.printed_model = e.value.as_string();
  run.printed_model_line = line;
  if (run.printed_model.find("lora") != std::string::npos) {
    run.workload = "llm-finetune";
    run.set("finetune.method", "lora", line);
  }
}

std::optional<long> step_of(const MllogEvent& e) {
  const auto step = number_at(e.metadata, "step");
  return step ? std::optional<long>(static_cast<long>(*step)) : std::nullopt;
}

// Validation's own timings ("validation_step_time", "validation_throughput") are other keys and not read.
void read_tracked_stats(const MllogEvent& e, TrainingLog& r) {
  auto step_time = number_at(e.value, "train_step_time");
  if (!step_time) {
    step_time = number_at(e.value, "train_step_timing in s");
  }
  const auto throughput = number_at(e.value, "throughput");
  if (throughput) {
    r.throughput.add(*throughput, step_of(e));
    if (step_time) {
      r.block_step_times.add(*step_time, step_of(e));
    }
  } else if (step_time) {
    r.step_times.add(*step_time, step_of(e));
  }
}

std::optional<Failure> read_run_start(const MllogEvent& e, TrainingLog& r, int line, const std::string& origin) {
  if (r.run.line_of.count("run_start") != 0) {
    return bad_input(origin, line,
                     "two runs in one file: a second run_start (the first at line " +
                         std::to_string(r.run.line_of["run_start"]) + "); import one run per file");
  }
  r.run.line_of["run_start"] = line;
  r.start_ms = e.time_ms;
  if (e.time_ms && *e.time_ms > 0) {  // when the run ran, for the store's history
    r.run.time = static_cast<std::int64_t>(*e.time_ms / 1000);
    r.run.time_from = "run_start at line " + std::to_string(line);
  }
  return std::nullopt;
}

void read_run_stop(const MllogEvent& e, TrainingLog& r, int line) {
  const json::Value* status = e.metadata.is_object() ? e.metadata.as_object().find("status") : nullptr;
  if (status != nullptr && status->is_string() && status->as_string() != "success") {
    r.run.notes.push_back("run_stop status " + status->as_string() + " (the run did not reach its target)");
  }
  r.run.line_of["run_stop"] = line;
  r.stop_ms = e.time_ms;
}

std::optional<Failure> read_training_event(const MllogEvent& e, TrainingLog& r, int line, const std::string& origin) {
  if (e.key == "run_start") {
    return read_run_start(e, r, line, origin);
  }
  if (e.key == "run_stop") {
    read_run_stop(e, r, line);
  } else if (e.key == "submission_benchmark") {
    read_benchmark(e, r.run, line);
  } else if (e.key == "global_batch_size" && e.value.is_number() && as_count(e.value.as_number())) {
    return r.run.agree("train.gbs", *as_count(e.value.as_number()), line, origin);
  } else if ((e.key == "max_sequence_length" || e.key == "sequence_length" || e.key == "seq_length") &&
             e.value.is_number() && as_count(e.value.as_number())) {
    return r.run.agree("train.seq_len", *as_count(e.value.as_number()), line, origin);
  } else if (e.key == "tracked_stats") {
    read_tracked_stats(e, r);
  }
  return std::nullopt;
}

std::optional<double> sysjson_number(const json::Value& doc, const char* key) {
  const json::Value* v = doc.as_object().find(key);
  return v != nullptr && v->is_string() ? parse_number(v->as_string()) : number_at(doc, key);
}

// ":::SYSJSON {...}": the submission's system description, which mlperf-logging's checker reads. A shell trace of
// the command that printed it (`+ echo ':::SYSJSON ...'`) is not JSON and is passed over.
std::optional<Failure> read_sysjson(const Line& line, ParsedRun& run, const std::string& origin) {
  const std::string_view marker = ":::SYSJSON ";
  const std::size_t at = line.text.find(marker);
  const std::string_view body = trim(line.text.substr(at + marker.size()));
  if (!body.starts_with("{")) {
    return std::nullopt;
  }
  json::Value doc;
  try {
    doc = json::parse(body);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  if (!doc.is_object()) {
    return std::nullopt;
  }
  const auto nodes = sysjson_number(doc, "number_of_nodes");
  const auto per_node = sysjson_number(doc, "accelerators_per_node");
  if (const json::Value* gpu = doc.as_object().find("accelerator_model_name");
      gpu != nullptr && gpu->is_string() && !gpu->as_string().empty()) {
    run.printed_device = gpu->as_string();
  }
  const auto gpus = nodes && per_node && *nodes > 0 && *per_node > 0 ? as_count(*nodes * *per_node) : std::nullopt;
  if (gpus) {
    return run.agree("gpus", *gpus, line.number, origin);
  }
  return std::nullopt;
}

// ":::DLPAL <container> <job> <nodes> <nodelist> ... <config>": the launcher of NVIDIA's reference implementations
// names the config it ran, e.g. DGXH100_8x8x1xtp4pp1cp2 (nodes x GPUs per node x micro-batch, then TP, PP, CP).
std::optional<Failure> read_dlpal(const Line& line, ParsedRun& run, const std::string& origin) {
  static const std::regex layout(R"(tp(\d+)pp(\d+)(?:cp(\d+))?'?\s*$)");
  std::cmatch m;
  const std::string_view text = line.text;
  if (!std::regex_search(text.data(), text.data() + text.size(), m, layout)) {
    return std::nullopt;
  }
  const char* keys[] = {"parallel.tp", "parallel.pp", "parallel.cp"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (m[i + 1].matched) {
      if (auto problem = run.agree(keys[i], std::stoll(m[i + 1].str()), line.number, origin)) {
        return problem;
      }
    }
  }
  return std::nullopt;
}

std::optional<Failure> read_launcher_line(const Line& line, ParsedRun& run, const std::string& origin) {
  if (line.text.find(":::SYSJSON ") != std::string_view::npos) {
    return read_sysjson(line, run, origin);
  }
  if (line.text.find(":::DLPAL ") != std::string_view::npos) {
    return read_dlpal(line, run, origin);
  }
  return std::nullopt;
}

void use_tracked_series(const TrackedSeries& s, SeriesKind kind, std::string timing, ParsedRun& run) {
  run.series = s.values;
  run.series_kind = kind;
  run.timing = std::move(timing);
  if (std::all_of(s.steps.begin(), s.steps.end(), [](const auto& step) { return step.has_value(); })) {
    for (const auto& step : s.steps) {
      run.steps.push_back(*step);
    }
  }
}

// The finest series the submitter logged: per step, else per block; and the time to train.
void finish_training_log(TrainingLog& r) {
  ParsedRun& run = r.run;
  if (!r.step_times.values.empty()) {
    use_tracked_series(r.step_times, SeriesKind::step_time_s, "MLPerf tracked_stats: the submitter's time per step",
                       run);
  } else if (!r.block_step_times.values.empty()) {
    use_tracked_series(r.block_step_times, SeriesKind::step_time_s,
                       "MLPerf tracked_stats: the submitter's mean step time per block of steps", run);
  } else if (!r.throughput.values.empty()) {
    use_tracked_series(r.throughput, SeriesKind::samples_per_s,
                       "MLPerf tracked_stats: the submitter's throughput per block of steps", run);
  } else {
    run.timing = "MLPerf: the time to train only (no tracked_stats step time or throughput)";
  }
  if (r.start_ms && r.stop_ms) {
    run.metrics.push_back(metric("time_to_train", (*r.stop_ms - *r.start_ms) / 60000.0, "min"));
    run.timing += "; time_to_train from run_start to run_stop";
  } else if (r.stop_ms) {
    run.notes.emplace_back("no run_start: the log begins after the run did, no time to train");
  } else {
    run.notes.emplace_back("no run_stop: the log ends before the run did, no time to train");
  }
  run.line_of.erase("run_start");
  run.line_of.erase("run_stop");
}

}  // namespace

bool looks_like_mllog(std::string_view text) {
  return text.find(kMllogPrefix) != std::string_view::npos && text.find(kLoadgenNamespace) == std::string_view::npos;
}

Expected<ParsedRun> parse_mllog(LineSource& lines, const std::string& origin) {
  TrainingLog r;
  r.run.tool = "mlperf";
  r.run.kind = RunKind::training;
  r.run.warm_at_start = true;  // MLPerf's timed region starts after the benchmark's own warm-up
  r.run.workload = "llm-pretrain";
  const auto stopped = for_each_line(lines, [&](const Line& line) -> std::optional<Failure> {
    if (!has_mllog_event(line.text)) {
      return read_launcher_line(line, r.run, origin);
    }
    auto event = read_mllog_event(line, !line.line_break, origin);  // a last line cut off
    if (!event) {
      return event.error();
    }
    if (auto problem = read_training_event(*event, r, line.number, origin)) {
      return problem;
    }
    r.run.first_line = r.run.first_line == 0 ? line.number : r.run.first_line;
    r.run.last_line = line.number;
    return std::nullopt;
  });
  if (stopped) {
    return *stopped;
  }
  finish_training_log(r);
  return std::move(r.run);
}

}  // namespace dgx::logs
