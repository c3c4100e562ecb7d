// The store over either database (store.hpp): a run recorded in one transaction, series read back with one query.
// Written once for both backends; database.hpp hides what differs.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "dgx/core/store/store.hpp"
#include "dgx/core/support/text.hpp"
#include "run_record.hpp"
#include "schema.hpp"

namespace dgx {

namespace detail {

namespace {

// --where fields: the column each reads, and what it holds (store_fields()).
struct FieldColumn {
  const char* field;
  const char* column;
  const char* meaning;
  bool integer = false;
};

const std::vector<FieldColumn>& field_columns() {
  static const std::vector<FieldColumn> list{
      {"plugin", "s.plugin", "the plugin that made the row"},
      {"workload", "s.workload", "the workload"},
      {"table", "s.table_name", "the row's table"},
      {"label", "s.label", "the row's label (a measured case)"},
      {"mode", "s.mode", "measured, projected, imported or reference"},
      {"metric", "s.metric", "the metric's name (also --metric)"},
      {"unit", "s.unit", "the metric's unit"},
      {"system", "s.system", "the system profile (configs/systems)"},
      {"gpu_model", "s.gpu_model", "the GPU a measured row ran on"},
      {"gpus", "s.gpus", "the GPU count", true},
      {"host", "s.hosts", "one of the hosts a measured row ran on"},
      {"hosts", "s.hosts", "all of them, comma-separated"},
      {"driver", "r.driver", "the CUDA driver"},
      {"cuda", "r.cuda", "the CUDA runtime"},
      {"nccl", "r.nccl", "NCCL"},
      {"framework", "r.framework", "the framework release (configs/frameworks)"},
      {"revision", "r.dgxhost_revision", "dgxhost's git revision"},
      {"dgxhost_version", "r.dgxhost_version", "dgxhost's version"},
      {"plugin_version", "r.plugin_version", "the plugin's version"},
      {"preset", "r.preset", "the preset run"},
      {"run_mode", "r.run_mode", "the run's mode: measure, project, explore, plan"},
      {"source", "r.source", "the results file or run folder recorded"},
      {"config_hash", "r.config_hash", "the hash of the run's resolved configuration"},
  };
  return list;
}

std::string like_escaped(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '%' || c == '_' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// Columns of history's query after those of select_for: the id a row's series is grouped by, and its direction.
constexpr std::size_t kGroupColumn = 36, kBetterColumn = 37;

// The query of history(); a store of schema version 1 has no series.better (its series are judged by their unit).
// Across hosts, a series is grouped with those that differ from it only by their hosts, under the smallest id
// among them (the order the merged series come in), and takes that one's direction.
std::string select_for(int schema_version, bool across_hosts) {
  const std::string better = schema_version >= 2 ? "s.better" : "''";
  return std::string(
             "SELECT s.plugin, s.workload, s.table_name, s.label, s.mode, s.metric, s.unit, s.config_hash, s.config, "
             "s.system, s.gpu_model, s.hosts, s.gpus, p.run_id, p.value, f.timing, f.verdict, r.run_time, r.plugin, "
             "r.plugin_version, r.workload, r.preset, r.run_mode, r.system, r.gpu_model, r.hosts, r.gpus, r.driver, "
             "r.cuda, r.nccl, r.framework, r.dgxhost_version, r.dgxhost_revision, r.config_hash, r.exit_code, "
             "r.source, ") +
         (across_hosts
              ? "MIN(s.id) OVER hostless AS group_id, FIRST_VALUE(" + better + ") OVER (hostless ORDER BY s.id)"
              : "s.id AS group_id, " + better) +
         " FROM series s JOIN points p ON p.series_id = s.id JOIN runs r ON r.id = p.run_id JOIN facts f ON f.id = "
         "p.facts_id";
}

// How history's rows are ordered: series by series (each whole when the next one's first row arrives), each in time
// order; merged across hosts, a run's points in the order of their series.
std::string order_for(bool across_hosts) {
  if (!across_hosts) {
    return " ORDER BY s.id, p.run_time, p.run_id";
  }
  return " WINDOW hostless AS (PARTITION BY s.plugin, s.workload, s.table_name, s.label, s.mode, s.metric, s.unit, "
         "s.config_hash, s.system, s.gpu_model, s.gpus) ORDER BY group_id, p.run_time, p.run_id, s.id";
}

SeriesKey key_from(const SqlRow& row) {
  SeriesKey k;
  std::string* texts[] = {&k.plugin, &k.workload,    &k.table,  &k.label,  &k.mode,      &k.metric,
                          &k.unit,   &k.config_hash, &k.config, &k.system, &k.gpu_model, &k.hosts};
  for (std::size_t i = 0; i < std::size(texts); ++i) {
    *texts[i] = sql_text(row[i]);
  }
  k.gpus = sql_int(row[12]);
  k.better = sql_text(row[kBetterColumn]);
  return k;
}

SeriesPoint point_from(const SqlRow& row) {
  SeriesPoint p;
  p.run_id = sql_int(row[13]);
  p.value = sql_real(row[14]);
  p.timing = sql_text(row[15]);
  p.verdict = sql_text(row[16]);
  RunContext& r = p.run;
  r.time = sql_int(row[17]);
  std::string* texts[] = {&r.plugin,   &r.plugin_version, &r.workload,  &r.preset,
                          &r.run_mode, &r.system,         &r.gpu_model, &r.hosts};
  for (std::size_t i = 0; i < std::size(texts); ++i) {
    *texts[i] = sql_text(row[18 + i]);
  }
  r.gpus = sql_int(row[26]);
  std::string* more[] = {&r.driver,           &r.cuda,       &r.nccl, &r.framework, &r.dgxhost_version,
                         &r.dgxhost_revision, &r.config_hash};
  for (std::size_t i = 0; i < std::size(more); ++i) {
    *more[i] = sql_text(row[27 + i]);
  }
  r.exit_code = sql_int(row[34]);
  r.source = sql_text(row[35]);
  return p;
}

// Rows of history's query (ordered by series, then time) made into series, each handed on once it is whole.
class SeriesStream {
public:
  using Visitor = std::function<std::optional<Failure>(Series&&)>;
  SeriesStream(const SeriesQuery& query, const Visitor& visit)
      : max_points_(query.max_points), across_hosts_(query.across_hosts), visit_(visit) {}

  std::optional<Failure> take(const SqlRow& row) {
    if (const std::int64_t id = sql_int(row[kGroupColumn]); id != current_) {
      if (auto stop = finish()) {
        return stop;
      }
      current_ = id;
      series_ = Series{key_from(row), {}};
      if (across_hosts_) {
        series_->key.hosts.clear();  // each point's hosts are its context
      }
    }
    series_->points.push_back(point_from(row));
    // --last N: the newest N, trimmed as they come (in halves, so each point moves about once).
    if (max_points_ > 0 && series_->points.size() >= 2 * max_points_) {
      keep_newest();
    }
    return std::nullopt;
  }

  // Hands on the series under way, if any.
  std::optional<Failure> finish() {
    if (!series_) {
      return std::nullopt;
    }
    if (max_points_ > 0 && series_->points.size() > max_points_) {
      keep_newest();
    }
    Series whole = std::move(*series_);
    series_.reset();
    return visit_(std::move(whole));
  }

private:
  void keep_newest() {
    auto& points = series_->points;
    points.erase(points.begin(), points.end() - static_cast<std::ptrdiff_t>(max_points_));
  }

  std::size_t max_points_;
  bool across_hosts_;
  const Visitor& visit_;
  std::int64_t current_ = -1;
  std::optional<Series> series_;
};

class SqlStore final : public Store {
public:
  explicit SqlStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}

  [[nodiscard]] std::string describe() const override { return db_->dialect().name + " store " + db_->where(); }

  Expected<AddOutcome> add(const Report& report, const std::string& source) override {
    const RunRecord record = record_of(report, source);
    AddOutcome outcome;
    outcome.rows = record.rows;
    if (auto begun = db_->query(db_->dialect().begin_write); !begun) {
      return begun.error();
    }
    if (auto problem = write(record, outcome)) {
      (void)db_->query("ROLLBACK");
      pending_.clear();
      declared_.clear();  // what a rolled-back update wrote is not there
      return *problem;
    }
    if (auto committed = db_->query("COMMIT"); !committed) {
      (void)db_->query("ROLLBACK");
      pending_.clear();
      declared_.clear();  // what a rolled-back update wrote is not there
      return committed.error();
    }
    known_.merge(pending_);  // ids of committed rows only: a rolled-back insert must not be remembered
    pending_.clear();
    return outcome;
  }

  std::optional<Failure> each_series(const SeriesQuery& query,
                                     const std::function<std::optional<Failure>(Series&&)>& visit) override {
    auto version = schema_version(*db_);
    if (!version) {
      return version.error();
    }
    std::string sql = select_for(version.value(), query.across_hosts);
    std::vector<SqlValue> params;
    std::vector<std::string> conditions;
    for (const auto& [field, value] : query.where) {
      auto condition = condition_for(field, value, params);
      if (!condition) {
        return condition.error();
      }
      conditions.push_back(condition.value());
    }
    if (!query.name.empty()) {
      conditions.emplace_back("(s.plugin = ? OR s.workload = ? OR r.preset = ?)");
      params.insert(params.end(), {query.name, query.name, query.name});
    }
    if (query.since) {
      conditions.emplace_back("p.run_time >= ?");
      params.emplace_back(*query.since);
    }
    if (query.until) {
      conditions.emplace_back("p.run_time <= ?");
      params.emplace_back(*query.until);
    }
    if (!conditions.empty()) {
      sql += " WHERE " + text::join(conditions, " AND ");
    }
    sql += order_for(query.across_hosts);
    SeriesStream stream(query, visit);
    if (auto problem = db_->each_row(sql, params, [&](const SqlRow& row) { return stream.take(row); })) {
      return problem;
    }
    return stream.finish();
  }

  Expected<StoreSummary> summary() override {
    StoreSummary out;
    auto version = schema_version(*db_);
    if (!version) {
      return version.error();
    }
    out.schema_version = version.value();
    auto runs = db_->query("SELECT COUNT(*), MIN(run_time), MAX(run_time) FROM runs");
    auto series = db_->query("SELECT COUNT(*) FROM series");
    auto points = db_->query("SELECT COUNT(*) FROM points");
    for (const auto* result : {&runs, &series, &points}) {
      if (!*result) {
        return result->error();
      }
    }
    out.runs = sql_int(runs->front()[0]);
    out.first = sql_int(runs->front()[1]);
    out.last = sql_int(runs->front()[2]);
    out.series = sql_int(series->front()[0]);
    out.points = sql_int(points->front()[0]);
    return out;
  }

private:
  Expected<std::string> condition_for(const std::string& field, const std::string& value,
                                      std::vector<SqlValue>& params) const {
    if (text::starts_with(field, "config.") && field.size() > 7) {
      params.emplace_back(value);
      return db_->dialect().json_text("s.config", field.substr(7)) + " = ?";
    }
    for (const FieldColumn& f : field_columns()) {
      if (field != f.field) {
        continue;
      }
      if (field == "host") {  // one of the hosts of the comma-separated list
        params.emplace_back("%," + like_escaped(value) + ",%");
        return std::string("(',' || s.hosts || ',') LIKE ? ESCAPE '\\'");
      }
      if (f.integer) {
        std::int64_t n = 0;
        const auto r = std::from_chars(value.data(), value.data() + value.size(), n);
        if (r.ec != std::errc() || r.ptr != value.data() + value.size()) {
          return Failure{ExitCode::usage, "--where " + field + "=" + value + ": " + field + " is an integer"};
        }
        params.emplace_back(n);
      } else {
        params.emplace_back(value);
      }
      return std::string(f.column) + " = ?";
    }
    std::vector<std::string> known;
    for (const FieldColumn& f : field_columns()) {
      known.emplace_back(f.field);
    }
    return Failure{ExitCode::usage, "--where " + field + "=" + value + ": the store has no field '" + field +
                                        "'; it has " + text::join(known, ", ") +
                                        ", and config.KEY for a key of the row's configuration"};
  }

  Expected<std::int64_t> single_id(const std::string& sql, const std::vector<SqlValue>& params) {
    auto rows = db_->query(sql, params);
    if (!rows) {
      return rows.error();
    }
    if (rows->empty()) {
      return Failure{ExitCode::run_failed, describe() + ": no id came back from: " + sql};
    }
    return sql_int(rows->front().front());
  }

  // The id of the row whose unique `hash` column holds `hash`, inserting it first when absent. A concurrent
  // writer's insert of the same row is not an error: ON CONFLICT leaves theirs.
  Expected<std::int64_t> interned(const std::string& table, const std::string& hash_column, const std::string& hash,
                                  const std::string& columns, const std::vector<SqlValue>& values) {
    std::string marks = "?";
    for (std::size_t i = 1; i < values.size(); ++i) {
      marks += ", ?";
    }
    const std::string memo = table + "\x1f" + hash;
    if (const auto known = known_.find(memo); known != known_.end()) {
      return known->second;
    }
    const std::string select = "SELECT id FROM " + table + " WHERE " + hash_column + " = ?";
    if (auto rows = db_->query(select, {hash}); rows && !rows->empty()) {
      return pending_[memo] = sql_int(rows->front().front());
    }
    if (auto inserted = db_->query("INSERT INTO " + table + " (" + columns + ") VALUES (" + marks + ") ON CONFLICT (" +
                                       hash_column + ") DO NOTHING",
                                   values);
        !inserted) {
      return inserted.error();
    }
    auto id = single_id(select, {hash});
    if (id) {
      pending_[memo] = id.value();
    }
    return id;
  }

  // A series recorded before its workload declared its direction (or declared another) takes the newest
  // declaration; once per series and connection.
  std::optional<Failure> declare_better(std::int64_t series_id, const std::string& better) {
    if (better.empty() || !declared_.insert(series_id).second) {
      return std::nullopt;
    }
    auto updated = db_->query("UPDATE series SET better = ? WHERE id = ? AND better <> ?", {better, series_id, better});
    return updated ? std::nullopt : std::optional<Failure>(updated.error());
  }

  std::optional<Failure> write(const RunRecord& record, AddOutcome& outcome) {
    auto seen = db_->query("SELECT id FROM runs WHERE document_hash = ?", {record.document_hash});
    if (!seen) {
      return seen.error();
    }
    if (!seen->empty()) {
      outcome.run_id = sql_int(seen->front().front());
      outcome.already_recorded = true;
      return std::nullopt;
    }
    const RunContext& c = record.context;
    auto run_id = single_id(
        "INSERT INTO runs (run_time, recorded_at, document_hash, source, plugin, plugin_version, workload, preset, "
        "run_mode, system, gpu_model, gpus, hosts, driver, cuda, nccl, framework, dgxhost_version, "
        "dgxhost_revision, config_hash, config, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?, ?) RETURNING id",
        {c.time,
         static_cast<std::int64_t>(std::time(nullptr)),
         record.document_hash,
         c.source,
         c.plugin,
         c.plugin_version,
         c.workload,
         c.preset,
         c.run_mode,
         c.system,
         c.gpu_model,
         c.gpus,
         c.hosts,
         c.driver,
         c.cuda,
         c.nccl,
         c.framework,
         c.dgxhost_version,
         c.dgxhost_revision,
         c.config_hash,
         c.config,
         c.exit_code});
    if (!run_id) {
      return run_id.error();
    }
    outcome.run_id = run_id.value();
    std::map<std::string, std::int64_t> series_ids, fact_ids;  // this run's, by hash
    std::vector<std::vector<SqlValue>> points;
    for (const RecordedPoint& p : record.points) {
      const std::string key_hash = series_hash(p.key);
      if (!series_ids.count(key_hash)) {
        const SeriesKey& k = p.key;
        auto id = interned("series", "key_hash", key_hash,
                           "key_hash, plugin, workload, table_name, label, mode, metric, unit, config_hash, config, "
                           "system, gpu_model, hosts, gpus, better",
                           {key_hash, k.plugin, k.workload, k.table, k.label, k.mode, k.metric, k.unit, k.config_hash,
                            k.config, k.system, k.gpu_model, k.hosts, k.gpus, k.better});
        if (!id) {
          return id.error();
        }
        if (auto problem = declare_better(id.value(), k.better)) {
          return problem;
        }
        series_ids[key_hash] = id.value();
      }
      const std::string fact_hash = fnv1a_hex(p.timing + "\x1f" + p.verdict);
      if (!fact_ids.count(fact_hash)) {
        auto id = interned("facts", "hash", fact_hash, "hash, timing, verdict", {fact_hash, p.timing, p.verdict});
        if (!id) {
          return id.error();
        }
        fact_ids[fact_hash] = id.value();
      }
      points.push_back({series_ids[key_hash], c.time, outcome.run_id,
                        std::isfinite(p.value) ? SqlValue(p.value) : SqlValue(nullptr), fact_ids[fact_hash]});
    }
    outcome.points = points.size();
    return db_->execute_many("INSERT INTO points (series_id, run_time, run_id, value, facts_id) VALUES (?, ?, ?, ?, ?)",
                             points);
  }

  std::unique_ptr<Database> db_;
  // Ids of series and facts rows, which never change once committed: a store that records many runs (a
  // long-lived connection, the benchmark) looks each up once. `pending_` holds this transaction's until it commits.
  std::map<std::string, std::int64_t> known_, pending_;
  std::set<std::int64_t> declared_;  // series whose direction this connection wrote (declare_better)
};

}  // namespace

}  // namespace detail

Expected<std::vector<Series>> Store::history(const SeriesQuery& query) {
  std::vector<Series> out;
  if (auto problem = each_series(query, [&](Series&& s) -> std::optional<Failure> {
        out.push_back(std::move(s));
        return std::nullopt;
      })) {
    return *problem;
  }
  return out;
}

Better series_better(const SeriesKey& key) {
  if (const auto declared = parse_better(key.better)) {
    return *declared;
  }
  return better_direction(key.metric, key.unit);
}

const std::vector<std::pair<std::string, std::string>>& store_fields() {
  static const std::vector<std::pair<std::string, std::string>> list = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const detail::FieldColumn& f : detail::field_columns()) {
      out.emplace_back(f.field, f.meaning);
    }
    out.emplace_back("config.KEY",
                     "a key that identifies the row's series, as its workload declares (config.precision)");
    return out;
  }();
  return list;
}

Expected<std::unique_ptr<Store>> open_store(const std::string& location, StoreAccess access) {
  if (location.empty()) {
    return Failure{ExitCode::usage, "--store needs a SQLite file or a postgresql:// URL"};
  }
  const bool postgres = text::starts_with(location, "postgresql://") || text::starts_with(location, "postgres://");
  const bool writable = access == StoreAccess::write;
  auto db = postgres ? detail::open_postgresql(location) : detail::open_sqlite(location, writable);
  if (!db) {
    return db.error();
  }
  if (auto problem = writable ? detail::prepare_schema(*db.value()) : detail::check_schema(*db.value())) {
    return *problem;
  }
  return std::unique_ptr<Store>(std::make_unique<detail::SqlStore>(std::move(db.value())));
}

}  // namespace dgx
