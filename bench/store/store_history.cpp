// How fast, and in how much memory, `dgxhost history` answers from a big store: generates (once; kept for reruns) a
// SQLite store of a year of nightly platform checks on many nodes (the first night of every node through the
// store's own write path, Store::add as dgxhost --store records; the other nights copied from it by SQL, each
// value moved a little), then times the queries history makes: one series (one node, one row, one metric), the
// same with --detect's change-point search, one row's series across every node, and every series one at a time as
// an unfiltered `dgxhost history` reads them, in a child process whose peak resident memory (getrusage) it prints.
// Prints a table of medians over repeated queries, the store's size and its row counts.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "database.hpp"
#include "dgx/core/store/history.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"

using namespace dgx;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int nodes = 1000, days = 365, rows = 27, repeats = 15, every_repeats = 3;
  std::string store = "bench-store.sqlite";
  bool held = false;  // --held: every series also read all at once, for the contrast (needs memory for every point)
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--held") {
      a.held = true;
      continue;
    }
    if (i + 1 >= argc) {
      break;
    }
    const std::string v = argv[++i];
    if (k == "--nodes") {
      a.nodes = std::stoi(v);
    } else if (k == "--days") {
      a.days = std::stoi(v);
    } else if (k == "--rows") {
      a.rows = std::stoi(v);
    } else if (k == "--repeats") {
      a.repeats = std::stoi(v);
    } else if (k == "--every-repeats") {
      a.every_repeats = std::stoi(v);
    } else if (k == "--store") {
      a.store = v;
    }
  }
  return a;
}

std::string node_name(int n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "gpu-node-%04d", n);
  return buffer;
}

// One night's platform check of one node: `rows` steps (GEMM, HBM, collectives at sizes, ...), each with its
// headline metric and its time, values drifting a little from night to night.
Report night_of(int node, int day, int rows) {
  Report r;
  r.context.set("time", iso_utc(1764554400 + static_cast<std::int64_t>(day) * 86400));
  json::Object plugin;
  plugin.set("name", "platform-check");
  plugin.set("version", "1.0.0");
  r.context.set("plugin", plugin);
  r.context.set("workload", "platform-check");
  r.context.set("mode", "measure");
  json::Object host;
  host.set("hostname", node_name(node));
  r.context.set("host", host);
  json::Object software;
  software.set("cuda_driver", day < 200 ? "560.35" : "570.86");
  software.set("nccl", day < 250 ? "2.21.5" : "2.23.4");
  r.context.set("software", software);
  for (int i = 0; i < rows; ++i) {
    ResultRow row;
    row.workload = "step-" + std::to_string(i);
    row.plugin = "platform-check";
    row.label = "step " + std::to_string(i);
    row.config.set("step", i);
    const double wobble = 1 + 0.01 * ((day * 7919 + node * 104729 + i * 31) % 200 - 100) / 100.0;
    row.add_metric({"value", (100.0 + i) * wobble, "GB/s", false, {}});
    row.add_metric({"time.median", 1e-3 * (1 + i) / wobble, "s", false, {}});
    row.add_field({"timing", "device events", true});
    r.rows.push_back(row);
  }
  return r;
}

// Every night after the first, copied from the first by SQL: its runs a day later each (the driver and NCCL changing
// as Store::add's nights did), and a point of each of the night's series, its value moved a little.
std::optional<Failure> copy_nights(const std::string& store, int days) {
  auto db = detail::open_sqlite(store, true);
  if (!db) {
    return db.error();
  }
  const std::string nights = "WITH RECURSIVE n(day) AS (SELECT 1 UNION ALL SELECT day + 1 FROM n WHERE day < " +
                             std::to_string(days - 1) + ") ";
  // Long statements are adjacent literals, one element each: not a missing comma.
  // NOLINTBEGIN(bugprone-suspicious-missing-comma)
  const std::string statements[] = {
      "BEGIN",
      nights + "INSERT INTO runs (run_time, recorded_at, document_hash, source, plugin, plugin_version, workload, "
               "preset, run_mode, system, gpu_model, gpus, hosts, driver, cuda, nccl, framework, dgxhost_version, "
               "dgxhost_revision, config_hash, config, exit_code) SELECT run_time + day * 86400, recorded_at, "
               "document_hash || '-' || day, 'night ' || id, plugin, plugin_version, workload, preset, run_mode, "
               "system, gpu_model, gpus, hosts, CASE WHEN day < 200 THEN '560.35' ELSE '570.86' END, cuda, "
               "CASE WHEN day < 250 THEN '2.21.5' ELSE '2.23.4' END, framework, dgxhost_version, dgxhost_revision, "
               "config_hash, config, exit_code FROM runs CROSS JOIN n",
      "CREATE TEMP TABLE first_night AS SELECT series_id, run_id, value, facts_id FROM points",
      "CREATE INDEX temp.first_night_by_run ON first_night (run_id)",
      "INSERT INTO points (series_id, run_time, run_id, value, facts_id) SELECT f.series_id, r.run_time, r.id, "
      "f.value * (1 + 0.01 * ((r.id * 7919 + f.series_id * 31) % 200 - 100) / 100.0), f.facts_id FROM runs r "
      "JOIN first_night f ON f.run_id = CAST(substr(r.source, 7) AS INTEGER) WHERE r.source LIKE 'night %' "
      "ORDER BY f.series_id, r.run_time",
      "COMMIT",
      "PRAGMA wal_checkpoint(TRUNCATE)"};  // the store's size is its file's
  // NOLINTEND(bugprone-suspicious-missing-comma)
  for (const std::string& sql : statements) {
    if (auto done = db.value()->query(sql, {}); !done) {
      return done.error();
    }
  }
  return std::nullopt;
}

// Every series, one at a time, as an unfiltered dgxhost history reads and judges them, in a child process of its
// own: its peak resident memory is the question's alone. `held` reads them all at once first (Store::history).
struct EveryRun {
  double seconds = 0;
  long peak_kib = 0;
  std::size_t series = 0, points = 0;
};

EveryRun every_series(const std::string& store, bool held) {
  int counts[2];
  if (pipe(counts) != 0) {
    return {};
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    close(counts[0]);
    auto opened = open_store(store, StoreAccess::read);
    HistoryReportBuilder built(HistoryOptions{});
    std::size_t points = 0;
    if (held) {
      auto all = opened.value()->history(SeriesQuery{});
      for (const Series& s : all.value()) {
        built.add(s);
        points += s.points.size();
      }
    } else {
      (void)opened.value()->each_series(SeriesQuery{}, [&](Series&& s) -> std::optional<Failure> {
        built.add(s);
        points += s.points.size();
        return std::nullopt;
      });
    }
    const std::size_t sent[2] = {built.finish().rows.size(), points};
    (void)!write(counts[1], sent, sizeof sent);
    _exit(0);
  }
  close(counts[1]);
  EveryRun run;
  std::size_t got[2] = {0, 0};
  (void)!read(counts[0], got, sizeof got);
  close(counts[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.peak_kib = usage.ru_maxrss;
  run.series = got[0];
  run.points = got[1];
  return run;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const bool fresh = !std::filesystem::exists(a.store);
  auto opened = open_store(a.store);
  if (!opened) {
    std::cerr << opened.error().message << "\n";
    return 2;
  }
  Store& store = *opened.value();
  if (fresh) {
    const auto t0 = Clock::now();
    for (int node = 0; node < a.nodes; ++node) {
      if (auto added = store.add(night_of(node, 0, a.rows), "night"); !added) {
        std::cerr << added.error().message << "\n";
        return 1;
      }
    }
    if (auto problem = a.days > 1 ? copy_nights(a.store, a.days) : std::nullopt) {
      std::cerr << problem->message << "\n";
      return 1;
    }
    std::cerr << "generated in " << static_cast<int>(seconds_since(t0)) << " s\n";
  }
  const auto summary = store.summary();
  std::cout << store.describe() << ": " << summary->runs << " runs, " << a.rows << " rows each ("
            << text::grouped(static_cast<long long>(summary->runs) * a.rows) << " rows), " << summary->series
            << " series, " << text::grouped(static_cast<long long>(summary->points)) << " points, "
            << text::format_number(static_cast<double>(std::filesystem::file_size(a.store)) / 1e9, 3) << " GB\n\n";

  SeriesQuery one;
  one.where = {{"metric", "value"}, {"host", node_name(a.nodes / 2)}, {"label", "step 7"}};
  SeriesQuery across;
  across.where = {{"metric", "value"}, {"label", "step 7"}};
  HistoryOptions detect;
  detect.detect.method = DetectMethod::edivisive;
  struct Case {
    const char* name;
    const SeriesQuery* query;
    bool detect;
    std::size_t points = 0;
    std::vector<double> times;
  };
  std::vector<Case> cases{{"one series (one node, step, metric)", &one, false, 0, {}},
                          {"one series + --detect (e-divisive, 199 permutations)", &one, true, 0, {}},
                          {"one step across all nodes", &across, false, 0, {}}};
  for (int r = 0; r < a.repeats; ++r) {
    for (Case& c : cases) {  // interleaved: the cases see the same machine
      const auto t0 = Clock::now();
      auto series = store.history(*c.query);
      if (!series) {
        std::cerr << series.error().message << "\n";
        return 1;
      }
      if (c.detect) {
        (void)history_report(series.value(), detect);
      }
      c.times.push_back(seconds_since(t0));
      c.points = 0;
      for (const Series& s : series.value()) {
        c.points += s.points.size();
      }
    }
  }
  std::printf("%-56s %10s %12s %12s\n", "query", "points", "median [s]", "max [s]");
  for (const Case& c : cases) {
    std::printf("%-56s %10zu %12.4f %12.4f\n", c.name, c.points, median(c.times),
                *std::max_element(c.times.begin(), c.times.end()));
  }
  // Every series: the memory is the point; a few runs, each a process of its own.
  std::vector<double> every_times;
  std::vector<long> every_peaks;
  EveryRun every;
  for (int r = 0; r < a.every_repeats; ++r) {
    every = every_series(a.store, false);
    every_times.push_back(every.seconds);
    every_peaks.push_back(every.peak_kib);
  }
  std::printf("%-56s %10zu %12.4f %12.4f   peak RSS %ld MiB (median; max %ld)\n",
              "every series, one at a time (unfiltered history)", every.points, median(every_times),
              *std::max_element(every_times.begin(), every_times.end()),
              static_cast<long>(median(std::vector<double>(every_peaks.begin(), every_peaks.end()))) / 1024,
              *std::max_element(every_peaks.begin(), every_peaks.end()) / 1024);
  if (a.held) {
    const EveryRun held = every_series(a.store, true);
    std::printf("%-56s %10zu %12.4f %12s   peak RSS %ld MiB\n", "every series, all held at once (Store::history)",
                held.points, held.seconds, "", held.peak_kib / 1024);
  }
  return 0;
}
