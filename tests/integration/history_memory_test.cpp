// `dgxhost history` over a large store, in memory bounded by the question (issue 38): a store of 200,202 points
// in 2,002 series, made by SQL from one recorded run, is listed whole by a dgxhost whose peak resident memory stays
// far below what holding every point costs (530 to 670 MiB here before the store streamed its series). On SQLite and
// on a real PostgreSQL server. Memory, not time: a loaded machine changes neither the bound nor the verdict.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>

#include "database.hpp"
#include "dgxhost.hpp"
#include "postgres_server.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using namespace dgx::testing;

namespace {

constexpr int kHosts = 1000, kNights = 100;  // 2 metrics x 1,000 hosts x 100 nights = 200,000 generated points
// What dgxhost itself, the report of 2,002 series and one series' points take, with room to spare; every point
// held at once takes several times this.
constexpr long kBoundKiB = 128L * 1024;

// One night's all_reduce check, recorded with dgxhost store add: it makes the schema, a run and its series.
std::string one_night(const TempDir& dir) {
  return dir
      .write("night.json", R"({"schema": "dgx.results/1", "status": {"exit_code": 0, "ok": true},
  "context": {"time": "2026-01-01T02:00:00Z", "host": {"hostname": "gpu-node-0"},
    "software": {"cuda_driver": "560.35", "nccl": "2.21.5"}, "plugin": {"name": "comm", "version": "1.0.0"},
    "workload": "all_reduce", "mode": "measure", "config": {"comm.collective": "all_reduce"}},
  "results": [{"workload": "all_reduce", "plugin": "comm", "mode": "measured", "label": "1 GiB",
    "config": {"comm.bytes": 1073741824},
    "metrics": {"busbw": {"value": 480.5, "unit": "GB/s"}, "time.median": {"value": 0.0125, "unit": "s"}},
    "info": {"timing": "device events"}}]})")
      .string();
}

// The recorded run's series copied to kHosts hosts, its run to kNights nights, and a point of every series on every
// generated night: SQL both databases run alike, in seconds.
void grow(detail::Database& db) {
  const auto numbers = [](int n) {
    return "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + std::to_string(n) + ") ";
  };
  const std::string statements[] = {
      numbers(kHosts) +
          "INSERT INTO series (key_hash, plugin, workload, table_name, label, mode, metric, unit, config_hash, config, "
          "system, gpu_model, hosts, gpus, better) SELECT key_hash || '-' || i, plugin, workload, table_name, label, "
          "mode, metric, unit, config_hash, config, system, gpu_model, 'gpu-node-' || i, gpus, better FROM series "
          "CROSS JOIN n",
      numbers(kNights) +
          "INSERT INTO runs (run_time, recorded_at, document_hash, source, plugin, plugin_version, workload, preset, "
          "run_mode, system, gpu_model, gpus, hosts, driver, cuda, nccl, framework, dgxhost_version, "
          "dgxhost_revision, config_hash, config, exit_code) SELECT run_time + i * 86400, recorded_at, "
          "document_hash || '-' || i, 'generated', plugin, plugin_version, workload, preset, run_mode, system, "
          "gpu_model, gpus, hosts, driver, cuda, nccl, framework, dgxhost_version, dgxhost_revision, config_hash, "
          "config, exit_code FROM runs CROSS JOIN n",
      "INSERT INTO points (series_id, run_time, run_id, value, facts_id) SELECT s.id, r.run_time, r.id, "
      "400.0 + r.id % 7, (SELECT MIN(id) FROM facts) FROM series s CROSS JOIN runs r WHERE r.source = 'generated'"};
  for (const std::string& sql : statements) {
    auto done = db.query(sql, {});
    REQUIRE_MESSAGE(done.has_value(), (done ? std::string() : done.error().message));
  }
}

// Records one night in `store`, grows it through the connection `open` makes, and lists every series with dgxhost
// history.
void check_history_of_a_large_store(const std::string& store,
                                    const std::function<std::unique_ptr<detail::Database>()>& open) {
  const TempDir dir;
  const ProcessResult added = dgxhost({"store", "add", "--store", store, one_night(dir)});
  REQUIRE_MESSAGE(added.exit_code == 0, added.err);
  grow(*open());
  const ProcessResult listed = dgxhost({"history", "--store", store});
  REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
  CHECK(listed.out.find("2002 series, 200202 points.") != std::string::npos);
  CHECK(listed.out.find("1 GiB on gpu-node-1000") != std::string::npos);
  MESSAGE("peak resident memory of dgxhost history: " << listed.max_rss_kib / 1024 << " MiB");
  CHECK(listed.max_rss_kib > 0);
  CHECK(listed.max_rss_kib < kBoundKiB);
}

std::unique_ptr<detail::Database> opened(Expected<std::unique_ptr<detail::Database>> db) {
  REQUIRE_MESSAGE(db.has_value(), (db ? std::string() : db.error().message));
  return std::move(db.value());
}

}  // namespace

TEST_CASE("history lists every series of a 200,000-point SQLite store in memory far below what its points take") {
  const TempDir dir;
  const std::string store = (dir.path() / "large.sqlite").string();
  check_history_of_a_large_store(store, [&] { return opened(detail::open_sqlite(store, true)); });
}

TEST_CASE("history lists every series of a 200,000-point PostgreSQL store in memory far below what its points take") {
  if (!PostgresServer::binaries()) {
    MESSAGE(kNoPostgres);
    return;
  }
  PostgresServer server;
  REQUIRE_MESSAGE(server.running(), server.error());
  REQUIRE(server.create_database("large"));
  const std::string store = server.url("large");
  check_history_of_a_large_store(store, [&] { return opened(detail::open_postgresql(store)); });
}
