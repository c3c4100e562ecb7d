// `dgxhost history [--plugin W] [--where KEY=VALUE ...] [--metric M] [--since DATE] [--detect [METHOD]]`: reads
// the series from the store (store/store.hpp), judges them (store/history.hpp) and writes the report with the
// usual reporters, as dgxhost compare does.
#include "history_command.hpp"

#include <ctime>
#include <iostream>

#include <boost/program_options.hpp>

#include "dgx/core/store/history.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/text.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace po = boost::program_options;

namespace dgx {

namespace {

struct HistoryCli {
  std::string store, name, metric, since, until, detect, across;
  std::vector<std::string> where;
  std::size_t last = 0;
  double alpha = 0.05, threshold = 0.05;
  int permutations = 199;
  std::size_t recent = 0, window = 10, min_segment = 3;
  bool points = false, help = false;
  SubcommandOutput out;
  std::vector<std::string> config_dirs;
};

po::options_description history_options(HistoryCli& c) {
  po::options_description d("dgxhost history: the store's series over time, and with --detect their regressions");
  d.add_options()("help,h", po::bool_switch(&c.help), "show this help and exit")(
      "store", po::value<std::string>(&c.store)->value_name("FILE|URL"),
      "a SQLite file or a postgresql:// URL; default $DGX_STORE, else dgx-store.sqlite in the run-folder root")(
      "plugin,p", po::value<std::string>(&c.name)->value_name("NAME"), "only this plugin, workload or preset")(
      "metric", po::value<std::string>(&c.metric)->value_name("M"), "only this metric (time.median, busbw, ...)")(
      "where", po::value<std::vector<std::string>>(&c.where)->composing()->value_name("KEY=VALUE"),
      "only series whose field KEY is VALUE (repeatable; --where help lists the fields)")(
      "since", po::value<std::string>(&c.since)->value_name("DATE"),
      "only runs since DATE: 2026-11-01, 2026-11-01T12:00:00Z, or back from now: 30d, 12h, 2w")(
      "until", po::value<std::string>(&c.until)->value_name("DATE"), "only runs until DATE")(
      "last", po::value<std::size_t>(&c.last)->value_name("N"), "only the newest N points of each series")(
      "across", po::value<std::string>(&c.across)->value_name("host"),
      "one series across hosts (a multi-node job on changing nodes): a change of hosts shows as a changed field")(
      "points", po::bool_switch(&c.points), "a row per point too (always in json, csv and html)")(
      "detect", po::value<std::string>(&c.detect)->implicit_value("edivisive")->value_name("METHOD"),
      "find regressions: edivisive (change points, the default) or window (the newest --recent points against "
      "the --window before them, Mann-Whitney); exit code 5 when a series regressed in its newest points")(
      "alpha", po::value<double>(&c.alpha)->value_name("A"),
      "significance level (default 0.05)")("threshold", po::value<double>(&c.threshold)->value_name("T"),
                                           "a change counts beyond this fraction (default 0.05, as dgxhost compare)")(
      "recent", po::value<std::size_t>(&c.recent)->value_name("N"),
      "edivisive: a change point among the newest N points is new (default 5); window: the newest N points are "
      "tested (default 3)")("window", po::value<std::size_t>(&c.window)->value_name("W"),
                            "window: the points before the newest tested against them (default 10)")(
      "permutations", po::value<int>(&c.permutations)->value_name("P"),
      "edivisive: permutations per significance test (default 199)")(
      "min-segment", po::value<std::size_t>(&c.min_segment)->value_name("K"),
      "edivisive: points on each side of a change point, at least (default 3)");
  add_output_options(d, c.out, "the history");
  add_config_dir_option(d, c.config_dirs);
  return d;
}

std::string fields_help() {
  std::string text = "Fields of --where:\n";
  for (const auto& [field, meaning] : store_fields()) {
    text += "  " + field + std::string(field.size() < 16 ? 16 - field.size() : 1, ' ') + meaning + "\n";
  }
  return text;
}

std::optional<Failure> check_numbers(const HistoryCli& c) {
  if (!(c.threshold >= 0 && c.threshold < 1)) {
    return Failure{ExitCode::usage,
                   "--threshold " + text::format_number(c.threshold, 4) + ": expected a fraction in [0, 1)"};
  }
  if (c.permutations > 100000) {
    return Failure{ExitCode::usage, "--permutations " + std::to_string(c.permutations) + ": at most 100000"};
  }
  if (!c.across.empty() && c.across != "host") {
    return Failure{ExitCode::usage, "--across " + c.across + ": only 'host' (one series across hosts)"};
  }
  return std::nullopt;
}

Expected<HistoryOptions> detect_options(const HistoryCli& c) {
  HistoryOptions o;
  DetectOptions& d = o.detect;
  if (c.detect == "edivisive") {
    d.method = DetectMethod::edivisive;
  } else if (c.detect == "window") {
    d.method = DetectMethod::window;
  } else if (!c.detect.empty()) {
    return Failure{ExitCode::usage, "--detect " + c.detect + ": expected edivisive or window"};
  }
  d.change_points.alpha = c.alpha;
  d.change_points.permutations = c.permutations;
  d.change_points.min_segment = c.min_segment;
  d.window.alpha = c.alpha;
  d.window.threshold = c.threshold;
  d.window.window = c.window;
  if (c.recent > 0) {
    d.recent = c.recent;
    d.window.recent = c.recent;
  }
  // The detectors' own checks: options with which no change could ever count are refused, naming why.
  if (d.method == DetectMethod::edivisive) {
    if (auto ok = checked(d.change_points); !ok) {
      return ok.error();
    }
  }
  if (d.method == DetectMethod::window) {
    if (auto ok = checked(d.window); !ok) {
      return ok.error();
    }
  }
  o.point_rows = c.points;
  for (const Format f : {c.out.shown, c.out.written}) {
    o.point_rows = o.point_rows || f == Format::json || f == Format::csv || f == Format::html;
  }
  return o;
}

Expected<SeriesQuery> query_of(const HistoryCli& c) {
  SeriesQuery q;
  q.name = c.name;
  q.max_points = c.last;
  q.across_hosts = c.across == "host";
  if (!c.metric.empty()) {
    q.where.emplace_back("metric", c.metric);
  }
  for (const std::string& w : c.where) {
    const std::size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Failure{ExitCode::usage, "--where " + w + ": expected KEY=VALUE (--where help lists the fields)"};
    }
    q.where.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  for (const auto& [text, bound] : {std::pair{&c.since, &q.since}, std::pair{&c.until, &q.until}}) {
    if (!text->empty()) {
      auto t = parse_since(*text, now);
      if (!t) {
        return Failure{ExitCode::usage, (bound == &q.since ? "" : std::string("--until: ")) + t.error().message};
      }
      *bound = t.value();
    }
  }
  return q;
}

// Under --detect, a store whose every series is too short judges nothing: that is said, and is not a pass.
std::optional<Failure> nothing_judged(const Report& report, const HistoryReportBuilder& built,
                                      const HistoryOptions& o) {
  if (o.detect.method == DetectMethod::none || built.series() == 0) {
    return std::nullopt;
  }
  for (const ResultRow& r : report.rows) {
    const Field* verdict = r.find_field("verdict");
    if (verdict != nullptr && verdict->value != "not enough history") {
      return std::nullopt;
    }
  }
  const std::size_t need =
      (o.detect.method == DetectMethod::window ? min_history(o.detect.window) : min_history(o.detect.change_points))
          .value_or(0);
  return Failure{ExitCode::usage, "not enough history: " + std::to_string(built.series()) +
                                      " series, the longest has " + std::to_string(built.longest()) +
                                      " point(s); --detect " +
                                      (o.detect.method == DetectMethod::window ? "window" : "edivisive") +
                                      " needs at least " + std::to_string(need) + " (nothing was judged)"};
}

}  // namespace

int run_history(int argc, const char* const* argv) {
  HistoryCli c;
  const po::options_description d = history_options(c);
  if (auto problem = parse_subcommand(argc, argv, d, c.out, "history", 0, nullptr)) {
    return print_failure("history", *problem);
  }
  if (c.help) {
    std::cout << d << "\n"
              << fields_help()
              << "\nExit codes: 0 listed (and, with --detect, no new regression), 5 a series regressed in its newest "
                 "points, 2 bad input, a store that cannot be read, or (with --detect) no series long enough to "
                 "judge.\n";
    return 0;
  }
  if (std::find(c.where.begin(), c.where.end(), "help") != c.where.end()) {
    std::cout << fields_help();
    return 0;
  }
  if (auto problem = check_numbers(c)) {
    return print_failure("history", *problem);
  }
  if (auto paths = use_config_dirs(c.config_dirs); !paths) {
    return print_failure("history", paths.error());
  }
  auto options = detect_options(c);
  auto query = query_of(c);
  if (!options || !query) {
    return print_failure("history", !options ? options.error() : query.error());
  }
  const std::string location = c.store.empty() ? default_store_location() : c.store;
  if (location.empty()) {
    return print_failure(
        "history", {ExitCode::usage, "no store: DGX_RUNS_DIR=off and DGX_STORE is not set; name one with --store"});
  }
  auto store = open_store(location, StoreAccess::read);
  if (!store) {
    return print_failure("history", store.error());
  }
  // One series at a time: memory holds the report's rows and one series' points, whatever the store's size.
  HistoryReportBuilder built(options.value());
  if (auto problem = store.value()->each_series(query.value(), [&](Series&& s) -> std::optional<Failure> {
        built.add(s);
        return std::nullopt;
      })) {
    return print_failure("history", *problem);
  }
  Report report = built.finish();
  if (auto problem = nothing_judged(report, built, options.value())) {
    report.exit_code = to_int(problem->code);
    report.error = problem->message;
    report.notes.push_back({false, "Not judged", problem->message});
  }
  report.context = subcommand_context("history", argc, argv);
  json::Object h;
  h.set("store", store.value()->describe());
  h.set("series", static_cast<long long>(built.series()));
  report.context.set("history", std::move(h));
  return emit_subcommand_report(report, c.out);
}

}  // namespace dgx
