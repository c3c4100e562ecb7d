// The store's tables (docs/history.md shows them). A run is a row of `runs` (its context as columns), each of its
// metrics a point of `points` in the series (`series`) it belongs to; `facts` keeps the few texts a point repeats
// night after night (how it was timed, its verdict) once. Points are stored in the order history reads them,
// clustered by series and time, so one series is one range of the primary key at any store size.
#include "schema.hpp"

#include <functional>
#include <string>
#include <vector>

#include "dgx/core/store/store.hpp"

namespace dgx::detail {

namespace {

struct Migration {
  int version;  // the version the store has after it
  std::string (*statements)(const Dialect&);
};

std::string version_1(const Dialect& d) {
  const std::string id = "id " + d.id_column;
  return "CREATE TABLE runs (" + id +
         ", run_time BIGINT NOT NULL, recorded_at BIGINT NOT NULL, document_hash TEXT NOT NULL UNIQUE, "
         "source TEXT NOT NULL, plugin TEXT NOT NULL, plugin_version TEXT NOT NULL, workload TEXT NOT NULL, "
         "preset TEXT NOT NULL, run_mode TEXT NOT NULL, system TEXT NOT NULL, gpu_model TEXT NOT NULL, "
         "gpus BIGINT NOT NULL, hosts TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL, nccl TEXT NOT NULL, "
         "framework TEXT NOT NULL, dgxhost_version TEXT NOT NULL, dgxhost_revision TEXT NOT NULL, "
         "config_hash TEXT NOT NULL, config TEXT NOT NULL, exit_code BIGINT NOT NULL);\n"
         "CREATE INDEX runs_by_time ON runs (run_time);\n"
         "CREATE TABLE series (" +
         id +
         ", key_hash TEXT NOT NULL UNIQUE, plugin TEXT NOT NULL, workload TEXT NOT NULL, table_name TEXT NOT NULL, "
         "label TEXT NOT NULL, mode TEXT NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL, "
         "config_hash TEXT NOT NULL, config TEXT NOT NULL, system TEXT NOT NULL, gpu_model TEXT NOT NULL, "
         "hosts TEXT NOT NULL, gpus BIGINT NOT NULL);\n"
         "CREATE INDEX series_by_metric ON series (metric, plugin, workload);\n"
         "CREATE INDEX series_by_plugin ON series (plugin, workload);\n"
         "CREATE TABLE facts (" +
         id + ", hash TEXT NOT NULL UNIQUE, timing TEXT NOT NULL, verdict TEXT NOT NULL);\n" +
         "CREATE TABLE points (series_id BIGINT NOT NULL REFERENCES series (id), run_time BIGINT NOT NULL, "
         "run_id BIGINT NOT NULL REFERENCES runs (id), value " +
         d.real_type + ", facts_id BIGINT NOT NULL REFERENCES facts (id), PRIMARY KEY (series_id, run_time, run_id))" +
         d.clustered + ";\n";
}

// ABI 1.1: the direction a series' metric is better in, as its workload declared it; '' for the series of
// version 1 (the unit decides, as before).
std::string version_2(const Dialect&) { return "ALTER TABLE series ADD COLUMN better TEXT NOT NULL DEFAULT '';\n"; }

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list{{1, &version_1}, {2, &version_2}};
  return list;
}

std::optional<Failure> in_transaction(Database& db, const std::function<std::optional<Failure>()>& work) {
  if (auto begun = db.query(db.dialect().begin_write); !begun) {
    return begun.error();
  }
  if (auto problem = work()) {
    (void)db.query("ROLLBACK");
    return problem;
  }
  if (auto committed = db.query("COMMIT"); !committed) {
    (void)db.query("ROLLBACK");
    return committed.error();
  }
  return std::nullopt;
}

std::string store_name(const Database& db) { return db.dialect().name + " store " + db.where(); }

Failure newer(const Database& db, int version) {
  return {ExitCode::usage, store_name(db) + " was written by a newer dgxhost (store schema version " +
                               std::to_string(version) + "; this dgxhost reads up to version " +
                               std::to_string(kStoreSchemaVersion) +
                               "): use that dgxhost or a newer one; the store is left as it is"};
}

}  // namespace

Expected<int> schema_version(Database& db) {
  auto exists = db.has_table("dgx_store");
  if (!exists) {
    return exists.error();
  }
  if (!exists.value()) {
    return 0;
  }
  auto rows = db.query("SELECT value FROM dgx_store WHERE key = 'schema_version'");
  if (!rows) {
    return rows.error();
  }
  if (rows->empty()) {
    return Failure{ExitCode::usage, store_name(db) + ": its dgx_store table has no schema_version"};
  }
  return static_cast<int>(sql_int(rows->front().front()));
}

std::optional<Failure> check_schema(Database& db) {
  auto version = schema_version(db);
  if (!version) {
    return version.error();
  }
  if (version.value() == 0) {
    return Failure{ExitCode::usage, store_name(db) + " is not a dgxhost store (it has no dgx_store table): nothing "
                                                     "was recorded there yet"};
  }
  if (version.value() > kStoreSchemaVersion) {
    return newer(db, version.value());
  }
  return std::nullopt;  // an older version is read as it is (sql_store.cpp), and migrated when a run is recorded
}

std::optional<Failure> prepare_schema(Database& db) {
  // Fast path, no lock: a store at this version needs nothing.
  auto current = schema_version(db);
  if (!current) {
    return current.error();
  }
  if (current.value() == kStoreSchemaVersion) {
    return std::nullopt;
  }
  return in_transaction(db, [&]() -> std::optional<Failure> {
    if (!db.dialect().schema_lock.empty()) {
      if (auto locked = db.query(db.dialect().schema_lock); !locked) {
        return locked.error();
      }
    }
    auto version = schema_version(db);  // again, under the lock: another process may have created it meanwhile
    if (!version) {
      return version.error();
    }
    if (version.value() > kStoreSchemaVersion) {
      return newer(db, version.value());
    }
    if (version.value() == 0) {
      auto foreign = db.has_table("runs");
      if (!foreign) {
        return foreign.error();
      }
      if (foreign.value()) {
        return Failure{ExitCode::usage, store_name(db) +
                                            " holds a table `runs` but no dgx_store table: it is not a dgxhost "
                                            "store; name a new file or database"};
      }
      if (auto created = db.query("CREATE TABLE dgx_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);"); !created) {
        return created.error();
      }
      if (auto set = db.query("INSERT INTO dgx_store (key, value) VALUES ('schema_version', '0')"); !set) {
        return set.error();
      }
    }
    for (const Migration& m : migrations()) {
      if (m.version <= version.value()) {
        continue;
      }
      if (auto applied = db.query(m.statements(db.dialect())); !applied) {
        return applied.error();
      }
      if (auto set =
              db.query("UPDATE dgx_store SET value = ? WHERE key = 'schema_version'", {std::to_string(m.version)});
          !set) {
        return set.error();
      }
    }
    return std::nullopt;
  });
}

}  // namespace dgx::detail
