// The results store: every run's rows with the context they ran in, kept as a history that `dgxhost history`
// reads back as series over time (docs/history.md). One interface, two backends: SQLite (a file, the default)
// and PostgreSQL (a server a team shares). One schema, versioned and migrated when a store is opened; every
// write is one transaction, so a run killed mid-write leaves the store as it was, and two runs writing at once
// both land.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/quantity.hpp"

namespace dgx {

/// The schema version this dgxhost writes; a store of a newer version is refused, an older one read as it is and
/// migrated when a run is recorded in it. Version 2 added series.better (ABI 1.1's declared direction).
inline constexpr int kStoreSchemaVersion = 2;

/// What makes rows of different runs one series: the same plugin, workload, table, label, mode, configuration (the
/// keys the workload declares to identify a run), metric, system, GPU model and count, and hosts. What may change
/// along a series without starting a new one (the driver, CUDA, NCCL, the framework release, the keys the workload
/// calls context, dgxhost's revision, the plugin's version) is each point's context.
struct SeriesKey {
  std::string plugin, workload, table, label;
  std::string mode;  // measured, projected, imported or reference
  std::string metric, unit;
  std::string config_hash;  // of the row's identifying configuration (run_record.cpp)
  std::string config;       // that configuration, as JSON
  std::string system, gpu_model, hosts;
  std::int64_t gpus = 0;
  /// Not part of the identity: which way the metric is better as its workload declared it ("higher", "lower",
  /// "none"), or empty where it declared nothing (a run of a plugin of ABI 1.0, a store of schema 1): the unit decides.
  std::string better;
};

/// The direction of `key`'s metric: as declared, else by its unit (better_direction).
Better series_better(const SeriesKey& key);

/// The context of one run, as columns one can query (--where).
struct RunContext {
  std::int64_t time = 0;  // seconds since the epoch (UTC): the report's context.time
  std::string plugin, plugin_version, workload, preset, run_mode;
  std::string system, gpu_model, hosts;
  std::int64_t gpus = 0;
  std::string driver, cuda, nccl, framework;
  std::string dgxhost_version, dgxhost_revision;
  std::string config_hash, config;  // the run's resolved configuration
  std::int64_t exit_code = 0;
  std::string source;  // the results file or run folder it was recorded from
};

struct SeriesPoint {
  std::int64_t run_id = 0;
  double value = 0;  // NaN where the run's value was not finite
  std::string timing, verdict;
  RunContext run;
};

struct Series {
  SeriesKey key;
  std::vector<SeriesPoint> points;  // oldest first
};

/// What `dgxhost history` asks for: every filter is an equality (--where) or a bound, all of them together.
struct SeriesQuery {
  std::string name;                                        // --plugin: a plugin, workload or preset name; empty: any
  std::vector<std::pair<std::string, std::string>> where;  // field -> value; fields: store_fields()
  std::optional<std::int64_t> since;                       // seconds since the epoch, inclusive
  std::optional<std::int64_t> until;
  std::size_t max_points = 0;  // per series, the newest ones; 0: all
  /// One series across hosts (--across host): series that differ only by their hosts are one, its points in time
  /// order, each with its hosts as context (a change of hosts is reported like a change of driver).
  bool across_hosts = false;
};

/// The fields --where may name, with what each holds; `config.KEY` names a key of the row's configuration.
const std::vector<std::pair<std::string, std::string>>& store_fields();

struct AddOutcome {
  std::int64_t run_id = 0;
  std::size_t rows = 0, points = 0;
  bool already_recorded = false;  // the same document was recorded before: nothing was written
};

/// What `dgxhost store info` says of a store.
struct StoreSummary {
  int schema_version = 0;
  std::int64_t runs = 0, series = 0, points = 0;
  std::int64_t first = 0, last = 0;  // the oldest and newest run's time; 0 when empty
};

class Store {
public:
  virtual ~Store() = default;
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// "SQLite store dgx-runs/dgx-store.sqlite" or "PostgreSQL store db.example:5432/dgx".
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Records a report (its rows and context) in one transaction. `source` names where it came from. A report
  /// recorded before (the same document) is not recorded twice.
  virtual Expected<AddOutcome> add(const Report& report, const std::string& source) = 0;
  /// The series that match, one at a time (ordered as the store keeps them), each with its points oldest first,
  /// handed to `visit` and then dropped: what is held is one series, however large the store. An unknown --where
  /// field is a usage failure naming it and the known ones; a failure `visit` returns stops the read and is
  /// returned.
  virtual std::optional<Failure> each_series(const SeriesQuery& query,
                                             const std::function<std::optional<Failure>(Series&&)>& visit) = 0;
  /// Every series each_series hands over, together: for questions whose answer is small.
  Expected<std::vector<Series>> history(const SeriesQuery& query);
  /// Counts of what the store holds.
  virtual Expected<StoreSummary> summary() = 0;
};

/// Recording needs a store it can write (created, or migrated, when it opens it); reading one (history, info)
/// does not, and never creates one.
enum class StoreAccess { write, read };

/// Opens the store at `location`: a postgresql:// (or postgres://) URL, or a SQLite file (its folder must exist).
/// A store of a newer schema, a file that is not a store, a directory, a read-only file opened to write, a store
/// that does not exist opened to read, or a server that cannot be reached is a usage failure naming it and why.
Expected<std::unique_ptr<Store>> open_store(const std::string& location, StoreAccess access = StoreAccess::write);

/// Where runs are recorded when no --store is given: $DGX_STORE, or nullopt (recording is opt-in for runs).
std::optional<std::string> store_from_environment();

/// The store `history` and `store add` use without --store: $DGX_STORE, else dgx-store.sqlite in the run-folder
/// root ($DGX_RUNS_DIR, or ./dgx-runs).
std::string default_store_location();

/// A date as --since takes it: 2026-11-01, 2026-11-01T12:00:00Z, or a span back from `now`: 7d, 12h, 30m.
Expected<std::int64_t> parse_since(const std::string& text, std::int64_t now);

}  // namespace dgx
