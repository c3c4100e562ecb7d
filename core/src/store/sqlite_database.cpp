// The store's SQLite backend: one file, written by many processes at once. WAL lets readers go on while one
// process writes; the busy timeout makes a second writer wait for the first instead of failing; a write
// transaction takes the lock at its start (BEGIN IMMEDIATE), so two writers never deadlock upgrading read locks.
#include <sqlite3.h>

#include <cmath>
#include <filesystem>

#include "database.hpp"

namespace dgx::detail {

namespace {

constexpr int kBusyTimeoutMs = 60'000;  // a nightly check's write is milliseconds; a minute covers a busy store

std::string sqlite_json_text(const std::string& column, const std::string& key) {
  std::string quoted;
  for (const char c : key) {
    quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return "CAST(json_extract(" + column + ", '$.\"" + quoted + "\"') AS TEXT)";
}

const Dialect& sqlite_dialect() {
  static const Dialect d{"SQLite", "INTEGER PRIMARY KEY", "REAL", " WITHOUT ROWID", "BEGIN IMMEDIATE",
                         "",       &sqlite_json_text};
  return d;
}

struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt); }
};

class SqliteDatabase final : public Database {
public:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  [[nodiscard]] const Dialect& dialect() const override { return sqlite_dialect(); }
  [[nodiscard]] std::string where() const override { return path_; }

  Expected<std::vector<SqlRow>> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    if (params.empty() && sql.find(';') != std::string::npos) {
      char* error = nullptr;
      if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        const std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
        sqlite3_free(error);
        return failure(message);
      }
      return std::vector<SqlRow>{};
    }
    Statement s;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK) {
      return failure(sqlite3_errmsg(db_));
    }
    if (auto problem = bind(s.stmt, params)) {
      return *problem;
    }
    std::vector<SqlRow> rows;
    for (int rc = sqlite3_step(s.stmt);; rc = sqlite3_step(s.stmt)) {
      if (rc == SQLITE_DONE) {
        return rows;
      }
      if (rc != SQLITE_ROW) {
        return failure(sqlite3_errmsg(db_));
      }
      rows.push_back(read_row(s.stmt));
    }
  }

  std::optional<Failure> execute_many(const std::string& sql,
                                      const std::vector<std::vector<SqlValue>>& param_lists) override {
    Statement s;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK) {
      return failure(sqlite3_errmsg(db_));
    }
    for (const auto& params : param_lists) {
      sqlite3_reset(s.stmt);
      if (auto problem = bind(s.stmt, params)) {
        return problem;
      }
      if (sqlite3_step(s.stmt) != SQLITE_DONE) {
        return failure(sqlite3_errmsg(db_));
      }
    }
    return std::nullopt;
  }

  Expected<bool> has_table(const std::string& name) override {
    auto rows = query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {name});
    if (!rows) {
      return rows.error();
    }
    return !rows->empty();
  }

private:
  Failure failure(const std::string& reason) const {
    return {ExitCode::usage, "SQLite store " + path_ + ": " + reason};
  }

  std::optional<Failure> bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params) const {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      int rc = SQLITE_OK;
      if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
        rc = sqlite3_bind_int64(stmt, index, *n);
      } else if (const auto* d = std::get_if<double>(&params[i]); d != nullptr && std::isfinite(*d)) {
        rc = sqlite3_bind_double(stmt, index, *d);
      } else if (const auto* s = std::get_if<std::string>(&params[i])) {
        rc = sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      } else {
        rc = sqlite3_bind_null(stmt, index);
      }
      if (rc != SQLITE_OK) {
        return failure(sqlite3_errmsg(db_));
      }
    }
    return std::nullopt;
  }

  static SqlRow read_row(sqlite3_stmt* stmt) {
    SqlRow row;
    const int columns = sqlite3_column_count(stmt);
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt, c))); break;
      case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(stmt, c)); break;
      case SQLITE_NULL: row.emplace_back(nullptr); break;
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.emplace_back(
            std::string(text != nullptr ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
      }
      }
    }
    return row;
  }

  sqlite3* db_;
  std::string path_;
};

}  // namespace

Expected<std::unique_ptr<Database>> open_sqlite(const std::string& path, bool writable) {
  const auto usage = [&](const std::string& reason) {
    return Failure{ExitCode::usage, "SQLite store " + path + ": " + reason};
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return usage("is a directory; --store names a database file (created when absent)");
  }
  if (const auto parent = std::filesystem::path(path).parent_path();
      !parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return usage("its folder " + parent.string() + " does not exist");
  }
  if (!writable && !std::filesystem::exists(path, ec)) {
    return usage("does not exist: nothing was recorded there yet (dgxhost --store, dgxhost store add)");
  }
  sqlite3* db = nullptr;
  const int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return usage("cannot open: " + reason);
  }
  auto database = std::make_unique<SqliteDatabase>(db, path);
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (!writable) {
    if (auto check = database->query("SELECT COUNT(*) FROM sqlite_master", {}); !check) {
      return usage("is not a SQLite database: " + check.error().message);
    }
    return std::unique_ptr<Database>(std::move(database));
  }
  // A read-only file opens read-only without an error: say so now, not at the first write.
  if (sqlite3_db_readonly(db, "main") == 1) {
    return usage("is read-only; dgxhost records runs in it, so it must be writable");
  }
  if (auto wal = database->query("PRAGMA journal_mode = WAL", {}); !wal) {
    return usage("is not a SQLite database, or cannot be written: " + wal.error().message);
  }
  if (auto setup = database->query("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;", {}); !setup) {
    return setup.error();
  }
  return std::unique_ptr<Database>(std::move(database));
}

}  // namespace dgx::detail
