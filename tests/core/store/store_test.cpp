// The results store (core/src/store/sql_store.cpp) on a real database: compiled for SQLite and for PostgreSQL
// (store_backend.hpp). What a history needs from it: runs recorded with their context, series read back in time
// order and filtered by any context field, a document recorded once, writes that are all or nothing (also when the
// writer is killed), two writers at once, and a schema it refuses when a newer dgxhost wrote it.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <thread>

#include "dgx/core/support/utc_time.hpp"
#include "store_backend.hpp"

using namespace dgx;
using dgx::testing::StoreBackend;

namespace {

// A nightly all_reduce check as dgxhost writes it: one row per message size, busbw and time.
Report nightly(const std::string& time, double busbw_gb_s, const std::string& host = "node1",
               const std::string& nccl = "2.21.5") {
  Report r;
  r.context.set("time", time);
  json::Object plugin;
  plugin.set("name", "comm");
  plugin.set("version", "1.0.0");
  r.context.set("plugin", plugin);
  r.context.set("workload", "all_reduce");
  r.context.set("mode", "measure");
  json::Object hostinfo;
  hostinfo.set("hostname", host);
  r.context.set("host", hostinfo);
  json::Object software;
  software.set("cuda_driver", "560.35");
  software.set("nccl", nccl);
  r.context.set("software", software);
  json::Object config;
  config.set("comm.collective", "all_reduce");
  r.context.set("config", config);
  for (const std::int64_t size : {std::int64_t{1} << 20, std::int64_t{1} << 30}) {
    ResultRow row;
    row.workload = "all_reduce";
    row.plugin = "comm";
    row.label = std::to_string(size) + " B";
    row.config.set("comm.bytes", size);
    row.add_metric({"busbw", busbw_gb_s * (size > (1 << 20) ? 1.0 : 0.25), "GB/s", false, {}});
    row.add_metric({"time.median", 1e-3, "s", false, {}});
    row.add_field({"timing", "device events", true});
    r.rows.push_back(row);
  }
  return r;
}

std::string day(int d) { return "2026-11-" + std::string(d < 10 ? "0" : "") + std::to_string(d) + "T02:00:00Z"; }

SeriesQuery where(std::vector<std::pair<std::string, std::string>> filters) {
  SeriesQuery q;
  q.where = std::move(filters);
  return q;
}

}  // namespace

TEST_CASE("recorded runs come back as series in time order, with each run's context, filtered by any field") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  auto store = backend.open();
  // Recorded out of order: history orders by the run's time, not by when it was recorded.
  for (const int d : {3, 1, 2}) {
    REQUIRE(store->add(nightly(day(d), 100 + d), "night-" + std::to_string(d) + ".json").has_value());
  }
  REQUIRE(store->add(nightly(day(4), 104, "node1", "2.23.4"), "night-4.json").has_value());
  REQUIRE(store->add(nightly(day(4), 90, "node2"), "night-4-node2.json").has_value());

  auto all = store->history(where({{"metric", "busbw"}}));
  REQUIRE(all.has_value());
  REQUIRE(all->size() == 4);  // two sizes x two hosts
  auto node1 = store->history(where({{"metric", "busbw"}, {"host", "node1"}, {"config.comm.bytes", "1073741824"}}));
  REQUIRE(node1.has_value());
  REQUIRE(node1->size() == 1);
  const Series& s = node1->front();
  CHECK(s.key.plugin == "comm");
  CHECK(s.key.workload == "all_reduce");
  CHECK(s.key.unit == "GB/s");
  CHECK(s.key.hosts == "node1");
  REQUIRE(s.points.size() == 4);
  CHECK(s.points[0].value == doctest::Approx(101));
  CHECK(s.points[1].value == doctest::Approx(102));
  CHECK(s.points[3].value == doctest::Approx(104));
  CHECK(iso_utc(s.points[0].run.time) == day(1));
  CHECK(s.points[0].run.nccl == "2.21.5");
  CHECK(s.points[3].run.nccl == "2.23.4");
  CHECK(s.points[0].run.driver == "560.35");
  CHECK(s.points[0].timing == "device events");
  CHECK(s.points[2].run.source == "night-3.json");

  auto newer_nccl = store->history(where({{"metric", "busbw"}, {"nccl", "2.23.4"}}));
  REQUIRE(newer_nccl.has_value());
  CHECK(newer_nccl->size() == 2);
  for (const Series& one : newer_nccl.value()) {
    CHECK(one.points.size() == 1);
  }
  SeriesQuery since = where({{"metric", "busbw"}, {"host", "node1"}});
  since.since = *parse_since(day(3), 0);
  auto recent = store->history(since);
  REQUIRE(recent.has_value());
  CHECK(recent->front().points.size() == 2);
  SeriesQuery by_name;
  by_name.name = "all_reduce";  // --plugin takes the workload's name as well as the plugin's
  by_name.max_points = 1;
  auto named = store->history(by_name);
  REQUIRE(named.has_value());
  CHECK(named->size() == 8);  // 2 sizes x 2 hosts x 2 metrics
  CHECK(named->front().points.size() == 1);
  auto summary = store->summary();
  REQUIRE(summary.has_value());
  CHECK(summary->runs == 5);
  CHECK(summary->schema_version == kStoreSchemaVersion);
  CHECK(summary->points == 20);
}

TEST_CASE("across hosts, series that differ only by host are one, in time order, each point's hosts its context") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  auto store = backend.open();
  for (const int d : {1, 2, 3}) {
    REQUIRE(store->add(nightly(day(d), 100 + d, "node1"), "node1-" + std::to_string(d)).has_value());
    const std::string later = day(d).replace(11, 2, "03");  // an hour after node1's run
    REQUIRE(store->add(nightly(later, 90 + d, "node2"), "node2-" + std::to_string(d)).has_value());
  }
  SeriesQuery across = where({{"metric", "busbw"}, {"config.comm.bytes", "1073741824"}});
  across.across_hosts = true;
  auto merged = store->history(across);
  REQUIRE(merged.has_value());
  REQUIRE(merged->size() == 1);
  const Series& s = merged->front();
  CHECK(s.key.hosts.empty());
  REQUIRE(s.points.size() == 6);
  CHECK(s.points[0].run.hosts == "node1");
  CHECK(s.points[1].run.hosts == "node2");
  CHECK(s.points[1].run.time - s.points[0].run.time == 3600);
  CHECK(s.points[5].value == doctest::Approx(93));
  across.max_points = 4;  // --last: the newest points of the merged series
  auto newest = store->history(across);
  REQUIRE(newest.has_value());
  REQUIRE(newest->front().points.size() == 4);
  CHECK(iso_utc(newest->front().points.front().run.time) == day(2));
  across.where = {{"metric", "busbw"}};
  auto both_sizes = store->history(across);
  REQUIRE(both_sizes.has_value());
  CHECK(both_sizes->size() == 2);
}

TEST_CASE("the same document recorded twice is one run, a field the store lacks is named, non-finite values stay "
          "unknown") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  auto store = backend.open();
  Report night = nightly(day(1), 100);
  night.rows.front().add_metric({"busbw", NAN, "GB/s", false, {}});
  auto first = store->add(night, "a.json");
  auto again = store->add(night, "a-copy.json");
  REQUIRE(first.has_value());
  REQUIRE(again.has_value());
  CHECK_FALSE(first->already_recorded);
  CHECK(first->points == 4);
  CHECK(again->already_recorded);
  CHECK(again->run_id == first->run_id);
  auto series = store->history(where({{"metric", "busbw"}, {"label", "1048576 B"}}));
  REQUIRE(series.has_value());
  REQUIRE(series->size() == 1);
  REQUIRE(series->front().points.size() == 1);
  CHECK(std::isnan(series->front().points.front().value));

  auto unknown = store->history(where({{"nodes", "4"}}));
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code == ExitCode::usage);
  CHECK(unknown.error().message.find("no field 'nodes'") != std::string::npos);
  CHECK(unknown.error().message.find("driver") != std::string::npos);
  auto not_a_number = store->history(where({{"gpus", "eight"}}));
  REQUIRE_FALSE(not_a_number.has_value());
  CHECK(not_a_number.error().message.find("gpus is an integer") != std::string::npos);
}

TEST_CASE("two writers at once both land, each run whole") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  backend.open();  // creates the schema; the writers then race only on their runs and on shared series
  constexpr int kRuns = 12;
  auto writer = [&](const std::string& host) {
    auto store = open_store(backend.location());
    REQUIRE(store.has_value());
    for (int d = 1; d <= kRuns; ++d) {
      REQUIRE(store.value()->add(nightly(day(d), 100 + d, host), host + "-" + std::to_string(d)).has_value());
    }
  };
  std::thread a(writer, "node1");
  std::thread b(writer, "node2");
  a.join();
  b.join();
  auto store = backend.open();
  auto summary = store->summary();
  REQUIRE(summary.has_value());
  CHECK(summary->runs == 2 * kRuns);
  CHECK(summary->points == 2 * kRuns * 4);
  CHECK(summary->series == 8);
}

TEST_CASE("a writer killed in the middle of a run leaves the store as it was or with the whole run") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  backend.open();
  // A run of many rows, so that the kill can land inside its transaction.
  Report big = nightly(day(1), 100);
  const ResultRow model = big.rows.front();
  for (int i = 0; i < 4000; ++i) {
    ResultRow row = model;
    row.label = "case " + std::to_string(i);
    big.rows.push_back(row);
  }
  const std::size_t points = big.rows.size() * 2;
  for (const int delay_ms : {0, 20, 60, 150}) {
    big.context.set("time", day(2 + delay_ms % 27));
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      auto store = open_store(backend.location());
      if (store) {
        (void)store.value()->add(big, "big.json");
      }
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    auto store = backend.open();  // reopens cleanly: SQLite rolls the journal back, the server aborted the transaction
    auto summary = store->summary();
    REQUIRE(summary.has_value());
    CAPTURE(delay_ms);
    // Whatever the moment of the kill: no partial run.
    CHECK((summary->points == 0 || summary->points == static_cast<std::int64_t>(points) * summary->runs));
    auto runs = store->history(where({{"label", "case 3999"}}));
    REQUIRE(runs.has_value());
    std::size_t recorded = 0;
    for (const Series& s : runs.value()) {
      recorded += s.points.size();
    }
    CHECK(recorded == 2 * static_cast<std::size_t>(summary->runs));
  }
}

TEST_CASE("a store written by a newer dgxhost is refused and left as it is") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  {
    auto store = backend.open();
    REQUIRE(store->add(nightly(day(1), 100), "a.json").has_value());
  }
#ifdef DGX_TEST_POSTGRES
  const auto psql = dgx::testing::PostgresServer::binaries().value() + "/psql";
  const auto r = dgx::testing::run_process(
      psql, {backend.location(), "-c", "UPDATE dgx_store SET value = '99' WHERE key = 'schema_version'"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
#else
  const auto r = dgx::testing::run_process(
      "/usr/bin/sqlite3", {backend.location(), "UPDATE dgx_store SET value = '99' WHERE key = 'schema_version'"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
#endif
  auto refused = open_store(backend.location());
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ExitCode::usage);
  CHECK(refused.error().message.find("newer dgxhost (store schema version 99; this dgxhost reads up to version 2)") !=
        std::string::npos);
  CHECK(refused.error().message.find("left as it is") != std::string::npos);
}

namespace {

// What a SQL statement gives on the backend, through its own client (psql, sqlite3).
void run_sql(const StoreBackend& backend, const std::string& sql) {
#ifdef DGX_TEST_POSTGRES
  const auto psql = dgx::testing::PostgresServer::binaries().value() + "/psql";
  const auto r = dgx::testing::run_process(psql, {backend.location(), "-c", sql});
#else
  const auto r = dgx::testing::run_process("/usr/bin/sqlite3", {backend.location(), sql});
#endif
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
}

// The nightly run with what its workload declares: busbw better higher (as its unit says) and an efficiency in unit
// "1" better higher (which its unit alone does not say).
Report declared_nightly(const std::string& time, double busbw) {
  Report r = nightly(time, busbw);
  for (ResultRow& row : r.rows) {
    row.add_metric({"efficiency", busbw / 500, "1", false, {}});
  }
  WorkloadDeclarations d;
  d.plugin = "comm";
  d.workload = "all_reduce";
  d.metrics = {{"busbw", "GB/s", Better::higher, {}, {}}, {"efficiency", "1", Better::higher, {}, {}}};
  d.identity_keys = std::vector<std::string>{"comm.bytes"};
  r.workloads.push_back(d);
  return r;
}

}  // namespace

TEST_CASE("a series keeps the direction its workload declared, and one recorded before learns it") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  auto store = backend.open();
  REQUIRE(store->add(nightly(day(1), 100), "old.json").has_value());  // declares nothing
  auto before = store->history(where({{"metric", "busbw"}}));
  REQUIRE(before.has_value());
  CHECK(before->front().key.better.empty());
  CHECK(series_better(before->front().key) == Better::higher);  // its unit says so
  REQUIRE(store->add(declared_nightly(day(2), 101), "new.json").has_value());
  auto after = store->history(where({{"metric", "busbw"}, {"config.comm.bytes", "1073741824"}}));
  REQUIRE(after.has_value());
  REQUIRE(after->size() == 1);  // the same series: comm.bytes identifies it, as before
  CHECK(after->front().points.size() == 2);
  CHECK(after->front().key.better == "higher");
  auto efficiency = store->history(where({{"metric", "efficiency"}}));
  REQUIRE(efficiency.has_value());
  REQUIRE_FALSE(efficiency->empty());
  CHECK(series_better(efficiency->front().key) == Better::higher);  // unit "1": only the declaration says so
}

TEST_CASE("a store of schema version 1 is read as it is, and migrated when a run is recorded in it") {
  const StoreBackend backend;
  if (!backend.ready()) {
    return;
  }
  {
    auto store = backend.open();
    REQUIRE(store->add(nightly(day(1), 100), "a.json").has_value());
  }
  // What dgxhost wrote before ABI 1.1's declarations: no series.better, version 1.
  run_sql(backend, "ALTER TABLE series DROP COLUMN better");
  run_sql(backend, "UPDATE dgx_store SET value = '1' WHERE key = 'schema_version'");
  {
    auto reader = open_store(backend.location(), StoreAccess::read);
    REQUIRE_MESSAGE(reader.has_value(), (reader ? std::string() : reader.error().message));
    auto series = reader.value()->history(where({{"metric", "busbw"}}));
    REQUIRE(series.has_value());
    CHECK(series->size() == 2);
    CHECK(series->front().key.better.empty());
    CHECK(reader.value()->summary()->schema_version == 1);  // reading changed nothing
  }
  auto writer = backend.open();
  REQUIRE(writer->add(declared_nightly(day(2), 90), "b.json").has_value());
  CHECK(writer->summary()->schema_version == kStoreSchemaVersion);
  auto series = writer->history(where({{"metric", "busbw"}, {"config.comm.bytes", "1073741824"}}));
  REQUIRE(series.has_value());
  REQUIRE(series->size() == 1);
  CHECK(series->front().points.size() == 2);  // the old run and the new one, one series
  CHECK(series->front().key.better == "higher");
}
