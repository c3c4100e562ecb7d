#include "dgx/core/app/mpijob_follow.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include "dgx/core/app/external_program.hpp"
#include "dgx/core/app/mpijob_manifest.hpp"
#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/results/output_path.hpp"
#include "dgx/core/run/context.hpp"
#include "dgx/core/support/json_cursor.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

Failure failed(std::string message) { return {ExitCode::run_failed, "dgxhost launch: " + std::move(message)}; }

// kubectl's arguments for this job's namespace: none means kubectl's current one, as for `apply`.
std::vector<std::string> kubectl(const LaunchOptions& o, std::vector<std::string> args) {
  args.insert(args.begin(), "kubectl");
  if (!o.k8s.name_space.empty()) {
    args.insert(args.end(), {"--namespace", o.k8s.name_space});
  }
  return args;
}

std::string namespace_flag(const LaunchOptions& o) { return o.k8s.name_space.empty() ? "" : " -n " + o.k8s.name_space; }

}  // namespace

Expected<MpiJobState> mpijob_state(std::string_view kubectl_json) {
  try {
    const json::Value doc = json::parse(kubectl_json);
    const json::Cursor job(doc);
    if (job.string_or("kind") != "MPIJob") {
      job["kind"].fail("\"MPIJob\"");
    }
    MpiJobState state;
    const auto status = job.find("status");
    const auto conditions = status ? status->find("conditions") : std::nullopt;
    for (const json::Cursor& c : conditions ? conditions->elements() : std::vector<json::Cursor>{}) {
      if (c["status"].string() != "True") {
        continue;
      }
      state.phase = c["type"].string();
      state.reason = c.string_or("reason");
      state.message = c.string_or("message");
      if (state.phase == "Succeeded" || state.phase == "Failed") {
        state.finished = true;
        state.succeeded = state.phase == "Succeeded";
        break;  // the end, whatever follows
      }
    }
    return state;
  } catch (const std::exception& e) {
    return failed("kubectl get mpijob: not an MPIJob's JSON: " + printable(e.what()));
  }
}

Expected<LoggedResults> results_from_log(std::string_view log, const std::string& job_name) {
  const std::size_t begin = log.rfind(std::string("\n") + std::string(kResultsBegin));
  const bool at_start = log.substr(0, kResultsBegin.size()) == kResultsBegin;
  if (begin == std::string_view::npos && !at_start) {
    return failed("the launcher's log has no results (no line \"" + std::string(kResultsBegin) +
                  "...\"): the job ended before mpirun did");
  }
  const std::size_t name_at = (begin == std::string_view::npos ? 0 : begin + 1) + kResultsBegin.size();
  const std::size_t line_end = std::min(log.find('\n', name_at), log.size());
  LoggedResults results;
  results.file_name = text::trim(log.substr(name_at, line_end - name_at));
  const std::string_view tail = log.substr(line_end);
  const std::size_t end = tail.find(std::string("\n") + std::string(kResultsEnd));
  if (end == std::string_view::npos) {
    return failed("the launcher's log breaks off inside the results of " + printable(results.file_name));
  }
  const std::string& name = results.file_name;
  const bool plain = name.find('/') == std::string::npos && name.rfind(job_name + "-", 0) == 0 &&
                     name.size() > job_name.size() + 6 && name.ends_with(".json");
  if (!plain || printable(name) != name) {
    return failed("the launcher's log names its results " + printable(name) + ", not " + job_name + "-<time>.json");
  }
  results.json = text::trim(tail.substr(0, end));
  if (results.json.empty() || results.json.front() != '{') {
    return failed("the launcher's log has no results in it: rank 0 did not write " + name +
                  " (the run failed before; the log says why)");
  }
  results.json += "\n";
  return results;
}

Expected<std::string> apply_mpijob(const LaunchOptions& o) {
  auto ran = run_program({"kubectl", "apply", "-f", o.script});
  if (!ran) {
    return failed("cannot run kubectl (is it installed and on PATH?); the manifest is " + o.script +
                  ": apply it with kubectl apply -f " + text::shell_quote(o.script));
  }
  if (ran->exit_code != 0) {
    return failed("kubectl apply -f " + o.script +
                  " failed (see its message above; one about kind MPIJob means the MPI Operator is not installed)");
  }
  const std::string said = text::trim(ran->out);
  if (!said.ends_with(" created")) {
    return failed("an MPIJob named " + o.job_name + " exists already and kubectl left it as it was (\"" +
                  printable(said) + "\"): delete it (kubectl delete mpijob " + o.job_name + namespace_flag(o) +
                  ") or choose another --job-name");
  }
  return said;
}

namespace {

// Polls `kubectl get mpijob` until the job ends; its last state, or why following it stopped.
Expected<MpiJobState> follow(const LaunchOptions& o) {
  using clock = std::chrono::steady_clock;
  constexpr long kLongest = 1'000'000'000;  // 31 years: later than any job, still no overflow of the clock
  const auto deadline = clock::now() + std::chrono::seconds(std::min(o.k8s.wait_timeout_s, kLongest));
  std::string phase;
  for (int failures = 0;;) {
    auto ran = run_program(kubectl(o, {"get", "mpijob", o.job_name, "-o", "json"}));
    if (!ran) {
      return failed("cannot run kubectl any more: " + ran.error().message);
    }
    failures = ran->exit_code == 0 ? 0 : failures + 1;
    if (failures >= 3) {
      return failed("kubectl get mpijob " + o.job_name + " failed 3 times in a row (see its messages above)");
    }
    if (ran->exit_code == 0) {
      auto state = mpijob_state(ran->out);
      if (!state) {
        return state.error();
      }
      if (!state->phase.empty() && state->phase != phase) {
        phase = state->phase;
        std::cerr << "dgxhost launch: mpijob " << o.job_name << ": " << phase << "\n";
      }
      if (state->finished) {
        return state;
      }
    }
    if (o.k8s.wait_timeout_s > 0 && clock::now() >= deadline) {
      const std::string where =
          phase.empty() ? "has no status yet (is the MPI Operator running?)" : "is still " + phase;
      return failed("mpijob " + o.job_name + " " + where + " after --wait-timeout " +
                    text::duration(static_cast<double>(o.k8s.wait_timeout_s)) +
                    "; it stays (stop it with kubectl delete mpijob " + o.job_name + namespace_flag(o) + ")");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.k8s.poll_interval_s));
  }
}

// "20261129T222956Z", as the launcher's `date -u +%Y%m%dT%H%M%SZ` writes it.
std::string compact_utc() {
  std::string stamp = utc_timestamp();
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  return stamp;
}

bool write_or_say(const std::string& path, std::string_view content) {
  if (auto problem = write_file_atomically(path, content)) {
    std::cerr << "dgxhost: error: dgxhost launch: cannot write " << path << ": " << *problem << "\n";
    return false;
  }
  return true;
}

// Writes the results and the log into --output-dir; the run's exit code.
int collect(const LaunchOptions& o, const MpiJobState& state, const std::string& log) {
  auto results = results_from_log(log, o.job_name);
  const std::string stem =
      o.output_dir + "/" +
      (results ? results->file_name.substr(0, results->file_name.size() - 5) : o.job_name + "-" + compact_utc());
  if (write_or_say(stem + ".log", log)) {
    std::cout << "launcher's log: " << stem << ".log\n";
  }
  if (!results) {
    std::cerr << "dgxhost: error: " << results.error().message << "\n";
    return to_int(ExitCode::run_failed);
  }
  auto report = parse_results(results->json, "the results in the launcher's log (" + stem + ".log)");
  if (!report) {
    std::cerr << "dgxhost: error: dgxhost launch: " << report.error().message << "\n";
    return to_int(ExitCode::run_failed);
  }
  if (!write_or_say(stem + ".json", results->json)) {
    return to_int(ExitCode::run_failed);
  }
  std::cout << "results: " << stem << ".json\n";
  const int code = report->exit_code;
  return !state.succeeded && code == 0 ? to_int(ExitCode::run_failed) : code;
}

}  // namespace

int wait_for_mpijob(const LaunchOptions& o) {
  std::cerr << "dgxhost launch: waiting for mpijob " << o.job_name
            << " to end (Ctrl-C stops the waiting, not the job)\n";
  auto state = follow(o);
  if (!state) {
    std::cerr << "dgxhost: error: " << state.error().message << "\n";
    return to_int(state.error().code);
  }
  if (!state->succeeded) {
    std::cerr << "dgxhost: error: dgxhost launch: mpijob " << o.job_name << " failed"
              << (state->reason.empty() ? "" : ": " + printable(state->reason))
              << (state->message.empty() ? "" : ": " + printable(state->message)) << "\n";
  }
  auto log = run_program(kubectl(o, {"logs", "job/" + o.job_name + "-launcher"}));
  if (!log || log->exit_code != 0) {
    std::cerr << "dgxhost: error: dgxhost launch: cannot read the launcher's log (kubectl logs job/" << o.job_name
              << "-launcher" << namespace_flag(o) << ")\n";
    return to_int(ExitCode::run_failed);
  }
  return collect(o, state.value(), log->out);
}

}  // namespace dgx
