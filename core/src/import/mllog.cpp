// MLPerf Training's MLLOG lines (mlcommons/logging, mllog): one JSON event per line after ":::MLLOG ",
//   :::MLLOG {"namespace": "", "time_ms": 1721026805975, "event_type": "POINT_IN_TIME", "key": "global_batch_size",
//             "value": 1152, "metadata": {"file": "...", "lineno": 12}}
// The configuration comes from submission_benchmark (the model), global_batch_size and max_sequence_length; the
// speed from the submitters' tracked_stats events (NVIDIA's: {"throughput": samples/s} per block, or a
// train_step_time). run_start / run_stop bound the run; a second run_start is a second run.
#include "log_text.hpp"
#include "parsed_run.hpp"

namespace dgx::detail {

namespace {

constexpr std::string_view kPrefix = ":::MLLOG ";

struct Event {
  std::string key;
  json::Value value;
  json::Value metadata;
};

Expected<Event> read_event(const Line& line, bool last, const std::string& origin) {
  const std::string_view body = line.text.substr(line.text.find(kPrefix) + kPrefix.size());
  json::Value doc;
  try {
    doc = json::parse(body);
  } catch (const std::runtime_error& e) {
    return bad_input(origin, line.number,
                     std::string(last ? "truncated: the last MLLOG event is cut off ("
                                      : "an MLLOG event that is not "
                                        "JSON (") +
                         e.what() + ")");
  }
  const json::Value* key = doc.is_object() ? doc.as_object().find("key") : nullptr;
  if (key == nullptr || !key->is_string()) {
    return bad_input(origin, line.number, "an MLLOG event without its key");
  }
  const json::Value* value = doc.as_object().find("value");
  const json::Value* metadata = doc.as_object().find("metadata");
  return Event{key->as_string(), value != nullptr ? *value : json::Value(),
               metadata != nullptr ? *metadata : json::Value()};
}

// MLPerf's fine-tuning benchmark (its name ends in "_lora"): its row is llm-finetune's.
void read_benchmark(const Event& e, ParsedRun& run, int line) {
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

void read_tracked_stats(const Event& e, ParsedRun& run) {
  if (auto step_time = number_at(e.value, "train_step_time")) {
    run.series_kind = SeriesKind::step_time_s;
    run.series.push_back(*step_time);
  } else if (auto throughput = number_at(e.value, "throughput")) {
    run.series.push_back(*throughput);
  }
}

std::optional<Failure> read(const Event& e, ParsedRun& run, int line, const std::string& origin) {
  if (e.key == "run_start" && run.line_of.count("run_start") != 0) {
    return bad_input(origin, line,
                     "two runs in one file: a second run_start (the first at line " +
                         std::to_string(run.line_of["run_start"]) + "); import one run per file");
  }
  if (e.key == "run_start") {
    run.line_of["run_start"] = line;
  } else if (e.key == "run_stop") {
    const json::Value* status = e.metadata.is_object() ? e.metadata.as_object().find("status") : nullptr;
    if (status != nullptr && status->is_string() && status->as_string() != "success") {
      run.notes.push_back("run_stop status " + status->as_string() + " (the run did not reach its target)");
    }
    run.line_of["run_stop"] = line;
  } else if (e.key == "submission_benchmark") {
    read_benchmark(e, run, line);
  } else if (e.key == "global_batch_size" && e.value.is_number()) {
    return run.agree("train.gbs", static_cast<std::int64_t>(e.value.as_number()), line, origin);
  } else if ((e.key == "max_sequence_length" || e.key == "sequence_length" || e.key == "seq_length") &&
             e.value.is_number()) {
    return run.agree("train.seq_len", static_cast<std::int64_t>(e.value.as_number()), line, origin);
  } else if (e.key == "tracked_stats") {
    read_tracked_stats(e, run);
  }
  return std::nullopt;
}

}  // namespace

bool looks_like_mllog(std::string_view text) { return text.find(kPrefix) != std::string_view::npos; }

Expected<ParsedRun> parse_mllog(std::string_view text, const std::string& origin) {
  ParsedRun run;
  run.tool = "mlperf";
  run.kind = RunKind::training;
  run.workload = "llm-pretrain";
  run.series_kind = SeriesKind::samples_per_s;
  run.timing = "MLPerf tracked_stats: the submitter's throughput per logged block";
  const bool ends_cleanly = text.back() == '\n';
  const std::vector<Line> lines = split_lines(text);
  for (const Line& line : lines) {
    if (line.text.find(kPrefix) == std::string_view::npos) {
      continue;
    }
    auto event = read_event(line, !ends_cleanly && line.number == lines.back().number, origin);
    if (!event) {
      return event.error();
    }
    if (auto problem = read(*event, run, line.number, origin)) {
      return *problem;
    }
    run.first_line = run.first_line == 0 ? line.number : run.first_line;
    run.last_line = line.number;
  }
  if (run.line_of.count("run_stop") == 0) {
    run.notes.emplace_back("no run_stop: the log ends before the run did");
  }
  run.line_of.erase("run_start");
  run.line_of.erase("run_stop");
  return run;
}

}  // namespace dgx::detail
