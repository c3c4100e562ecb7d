// How fast `dgxhost history` answers from a big store: generates (once; kept for reruns) a SQLite store of a
// year of nightly platform checks on many nodes through the store's own write path (Store::add, one transaction
// per run, as dgxhost --store records), then times the queries history makes: one series (one node, one row,
// one metric), the same with --detect's change-point search, and one row's series across every node. Prints a
// table of medians over repeated queries, the store's size and its row counts.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "dgx/core/store/history.hpp"
#include "dgx/core/store/store.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/support/utc_time.hpp"

using namespace dgx;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int nodes = 1000, days = 365, rows = 27, repeats = 15;
  std::string store = "bench-store.sqlite";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--nodes") {
      a.nodes = std::stoi(v);
    } else if (k == "--days") {
      a.days = std::stoi(v);
    } else if (k == "--rows") {
      a.rows = std::stoi(v);
    } else if (k == "--repeats") {
      a.repeats = std::stoi(v);
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
    for (int day = 0; day < a.days; ++day) {
      for (int node = 0; node < a.nodes; ++node) {
        if (auto added = store.add(night_of(node, day, a.rows), "night"); !added) {
          std::cerr << added.error().message << "\n";
          return 1;
        }
      }
      if (day % 30 == 29) {
        std::cerr << "day " << day + 1 << "/" << a.days << " written (" << static_cast<int>(seconds_since(t0))
                  << " s)\n";
      }
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
  return 0;
}
