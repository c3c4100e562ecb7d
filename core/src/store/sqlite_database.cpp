// The store's SQLite backend: one file, written by many processes at once. WAL lets readers go on while one
// process writes; the busy timeout makes a second writer wait for the first instead of failing; a write
// transaction takes the lock at its start (BEGIN IMMEDIATE), so two writers never deadlock upgrading read locks.
#include <sqlite3.h>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <variant>

#include "database.hpp"
#include "dgx/core/support/files.hpp"

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
  [[nodiscard]] sqlite3* handle() const { return db_; }
  [[nodiscard]] std::string last_error() const { return sqlite3_errmsg(db_); }
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
    std::vector<SqlRow> rows;
    if (auto problem = each_row(sql, params, [&](const SqlRow& row) -> std::optional<Failure> {
          rows.push_back(row);
          return std::nullopt;
        })) {
      return *problem;
    }
    return rows;
  }

  std::optional<Failure> each_row(const std::string& sql, const std::vector<SqlValue>& params,
                                  const RowVisitor& visit) override {
    Statement s;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK) {
      return failure(sqlite3_errmsg(db_));
    }
    if (auto problem = bind(s.stmt, params)) {
      return problem;
    }
    for (int rc = sqlite3_step(s.stmt);; rc = sqlite3_step(s.stmt)) {
      if (rc == SQLITE_DONE) {
        return std::nullopt;
      }
      if (rc != SQLITE_ROW) {
        return failure(sqlite3_errmsg(db_));
      }
      if (auto stop = visit(read_row(s.stmt))) {
        return stop;
      }
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

Expected<std::unique_ptr<SqliteDatabase>> connect(const std::string& path, int flags, const std::string& uri = {}) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &db,
                                 flags | SQLITE_OPEN_NOMUTEX | (uri.empty() ? 0 : SQLITE_OPEN_URI), nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Failure{ExitCode::usage, "SQLite store " + path + ": cannot open: " + reason};
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::make_unique<SqliteDatabase>(db, path);
}

// file: URI of a path: '%', '?' and '#' escaped.
std::string file_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr std::string_view kHex = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  return uri;
}

// Reading a store needs no write access to it: a WAL database whose folder the reader cannot write (no -shm file
// can be made there) is opened as immutable, which SQLite reads without any lock. A writer elsewhere is then not
// seen until it checkpoints; reading with access to the folder is the ordinary shared read.
Expected<std::unique_ptr<Database>> open_to_read(const std::string& path) {
  for (const bool immutable : {false, true}) {
    auto database = connect(path, SQLITE_OPEN_READONLY, immutable ? file_uri(path) + "?immutable=1" : std::string());
    if (!database) {
      return database.error();
    }
    if (database.value()->query("SELECT COUNT(*) FROM sqlite_master", {})) {
      return std::unique_ptr<Database>(std::move(database.value()));
    }
    const int code = sqlite3_errcode(database.value()->handle()) & 0xff;
    if (code != SQLITE_READONLY && code != SQLITE_CANTOPEN) {
      return Failure{ExitCode::usage,
                     "SQLite store " + path + ": is not a SQLite database (" + database.value()->last_error() + ")"};
    }
  }
  return Failure{ExitCode::usage, "SQLite store " + path + ": cannot be read"};
}

}  // namespace

Expected<std::unique_ptr<Database>> open_sqlite(const std::string& path, bool writable) {
  const auto usage = [&](const std::string& reason) {
    return Failure{ExitCode::usage, "SQLite store " + path + ": " + reason};
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return usage("is a directory; --store names a database file (created when absent)");
  }
  // A FIFO would block the open, a device (/dev/null) would take SQLite's journal beside it: only a regular file
  // is a database, and only a regular file (or none) is opened.
  if (const auto status = std::filesystem::status(path, ec);
      std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    struct stat st {};
    const char* kind = ::stat(path.c_str(), &st) == 0 ? file_kind(st.st_mode) : "not a regular file";
    return usage(std::string("is ") + kind + ", not a database file");
  }
  if (const auto parent = std::filesystem::path(path).parent_path();
      !parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return usage("its folder " + parent.string() + " does not exist");
  }
  if (!writable && !std::filesystem::exists(path, ec)) {
    return usage("does not exist: nothing was recorded there yet (dgxhost --store, dgxhost store add)");
  }
  if (!writable) {
    return open_to_read(path);
  }
  auto database = connect(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!database) {
    return database.error();
  }
  // A read-only file opens read-only without an error: say so now, not at the first write.
  if (sqlite3_db_readonly(database.value()->handle(), "main") == 1) {
    return usage("is read-only; dgxhost records runs in it, so it must be writable");
  }
  if (auto wal = database.value()->query("PRAGMA journal_mode = WAL", {}); !wal) {
    return usage("is not a SQLite database, or cannot be written (" + database.value()->last_error() + ")");
  }
  if (auto setup = database.value()->query("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;", {}); !setup) {
    return setup.error();
  }
  // Before the first write of a session: a damaged database is refused, not written into (and made worse).
  auto check = database.value()->query("PRAGMA quick_check", {});
  if (!check) {
    return usage("is damaged: SQLite's quick_check failed (" + check.error().message + ")");
  }
  if (check->size() != 1 || check->front().size() != 1 || !std::holds_alternative<std::string>(check->front()[0]) ||
      std::get<std::string>(check->front()[0]) != "ok") {
    std::string first =
        !check->empty() && !check->front().empty() && std::holds_alternative<std::string>(check->front()[0])
            ? std::get<std::string>(check->front()[0])
            : std::string("no answer");
    std::replace(first.begin(), first.end(), '\n', ' ');
    return usage("is damaged: SQLite's quick_check found " + first +
                 "; nothing was written (keep a copy, then sqlite3's .recover can save what it holds)");
  }
  return std::unique_ptr<Database>(std::move(database.value()));
}

}  // namespace dgx::detail
