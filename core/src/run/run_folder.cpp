#include "dgx/core/run/run_folder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "dgx/core/plugin/crash_report.hpp"
#include "dgx/core/report/reporters.hpp"
#include "dgx/core/support/files.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// A progress line's elapsed and remaining time: seconds below 2 minutes, minutes below 2 hours, then hours.
std::string seconds(double s) {
  if (s < 120) {
    return text::fixed(s, 1) + " s";
  }
  if (s < 7200) {
    return text::fixed(s / 60, 1) + " min";
  }
  return text::fixed(s / 3600, 1) + " h";
}

void announce(const RunFolder& folder, const Logger& logger, bool resumed) {
  const std::string dir = folder.dir().string();
  set_crash_note("finished cases are in " + dir + "/" + kJournalFile + "; dgxhost --resume " + dir +
                 " completes the run");
  logger.info((resumed ? "resuming the run in " : "run folder: ") + dir);
}

}  // namespace

json::Object journal_header(const CliOptions& options, const Target& target, const ResolvedConfig& config,
                            const HostComm& comm) {
  json::Object header;
  header.set("schema", kJournalSchema);
  json::Array argv;
  for (const std::string& a : options.argv) {
    argv.emplace_back(a);
  }
  header.set("argv", std::move(argv));
  header.set("workload", target.plugin->name + ":" + target.workload->name);
  header.set("mode", "measure");
  json::Object ranks;
  ranks.set("world_size", comm.ranks().world_size);
  ranks.set("transport", comm.name());
  header.set("ranks", std::move(ranks));
  header.set("config", config.to_json());
  return header;
}

Expected<std::vector<std::string>> resumed_argv(const std::string& dir, const std::vector<std::string>& replaced) {
  auto header = Journal::read_header(dir);
  if (!header) {
    return header.error();
  }
  const json::Value* argv = header->find("argv");
  if (argv == nullptr || !argv->is_array() || argv->as_array().empty()) {
    return Failure{ExitCode::usage, "--resume " + dir + ": the journal's header holds no command line"};
  }
  std::vector<std::string> out;
  const json::Array& stored = argv->as_array();
  for (std::size_t i = 0; i < stored.size(); ++i) {
    if (!stored[i].is_string()) {
      return Failure{ExitCode::usage, "--resume " + dir + ": the journal's command line is not a list of strings"};
    }
    const std::string& a = stored[i].as_string();
    const std::string name = a.substr(0, a.find('='));
    const bool switch_only = name == "--quiet" || name == "-q";
    const bool drop = i > 0 && (name == "--run-dir" || name == "--resume" ||
                                std::find(replaced.begin(), replaced.end(), name) != replaced.end());
    if (drop && a == name && !switch_only) {
      ++i;  // "--format json": its value too
    }
    if (!drop) {
      out.push_back(a);
    }
  }
  out.emplace_back("--resume");
  out.push_back(dir);
  return out;
}

RunFolder::RunFolder(Journal journal, const Logger& logger) : journal_(std::move(journal)), logger_(logger) {
  const std::filesystem::path file = dir() / kRunLogFile;
  log_.reset(std::fopen(file.c_str(), "ae"));  // O_APPEND | O_CLOEXEC: a resumed run continues its log
  if (!log_) {
    logger_.warn("cannot open the run log " + file.string() + ": " + os_reason(errno) + "; the run goes on");
    return;
  }
  const json::Value* argv = journal_.header().find("argv");
  const std::string line = "# dgxhost " + std::string(journal_.finished().empty() ? "run" : "resumed run") +
                           ", command line " + (argv != nullptr ? json::write(*argv, 0) : "[]") + "\n";
  std::fputs(line.c_str(), log_.get());
  logger_.tee(log_.get());
}

RunFolder::~RunFolder() {
  if (log_) {
    logger_.tee(nullptr);
  }
}

Expected<std::unique_ptr<RunFolder>> RunFolder::open(const CliOptions& options, const Target& target,
                                                     const ResolvedConfig& config, const HostComm& comm,
                                                     const Logger& logger) {
  const json::Object header = journal_header(options, target, config, comm);
  if (!options.resume.empty()) {
    auto journal = Journal::resume(options.resume);
    if (!journal) {
      return journal.error();
    }
    if (const std::string difference = resume_mismatch(journal->header(), header); !difference.empty()) {
      const bool ranks = text::starts_with(difference, "ranks:");
      return Failure{ExitCode::usage, "--resume " + options.resume +
                                          ": this run differs from the journal's: " + difference +
                                          (ranks ? " (resume a run with as many ranks, under the same launcher, as it "
                                                   "was started with)"
                                                 : " (a resumed run must resolve to the same configuration)")};
    }
    auto folder = std::make_unique<RunFolder>(std::move(journal.value()), logger);
    announce(*folder, logger, true);
    return folder;
  }
  const bool named = !options.run_dir.empty();
  const std::filesystem::path dir = named ? std::filesystem::path(options.run_dir)
                                          : default_run_dir(target.plugin->name + "-" + target.workload->name);
  if (dir.empty()) {
    return std::unique_ptr<RunFolder>();
  }
  auto journal = Journal::create(dir, header);
  if (!journal) {
    if (named) {
      return journal.error();
    }
    logger.warn(journal.error().message + "; running without a journal (--run-dir DIR chooses another folder)");
    return std::unique_ptr<RunFolder>();
  }
  auto folder = std::make_unique<RunFolder>(std::move(journal.value()), logger);
  announce(*folder, logger, false);
  return folder;
}

const ResultRow* RunFolder::finished(std::uint32_t index) const {
  const auto it = journal_.finished().find(index);
  return it != journal_.finished().end() ? &it->second : nullptr;
}

void RunFolder::record(std::uint32_t index, std::uint32_t count, const ResultRow& row) {
  if (auto problem = journal_.append(index, row); problem && !append_failed_) {
    append_failed_ = true;  // the run goes on: its results still reach stdout and -o
    logger_.warn("cannot append to the journal " + journal_.file().string() + ": " + *problem +
                 "; the run goes on, but a crash from now on loses its cases");
  }
  progress_.finished(index, count, journal_.finished().size(), row);
}

void ProgressLine::finished(std::uint32_t index, std::uint32_t count, std::size_t done, const ResultRow& row) {
  ++done_here_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const Metric* size = row.find_metric("size");
  const Field* stop = row.find_field("stop");  // "max_time 5 s reached": the runner's cap on a case
  time_left_.add(elapsed - last_, size != nullptr && size->unit == "B" ? size->value : 0.0,
                 stop != nullptr && stop->value.rfind("max_time", 0) == 0);
  last_ = elapsed;
  const std::size_t left = count > done ? count - done : 0;
  std::string line = "case " + std::to_string(index + 1) + "/" + std::to_string(count) + " done";
  if (!row.label.empty()) {
    line += " (" + row.label + ")";
  }
  line += "; " + std::to_string(done) + "/" + std::to_string(count) + " finished, " + seconds(elapsed) + " elapsed";
  if (left > 0) {
    line += ", about " + seconds(time_left_.steady_estimate(elapsed, left)) + " left";
  }
  if (::isatty(STDERR_FILENO) != 0) {
    logger_.info_to_file(line);  // a terminal has the progress bar
  } else {
    logger_.info(line);
  }
}

std::optional<std::string> RunFolder::write_results(const Report& report) const {
  if (auto failure = write_report(report, Format::json, (dir() / kRunResultsFile).string())) {
    return failure->message;
  }
  return std::nullopt;
}

}  // namespace dgx
