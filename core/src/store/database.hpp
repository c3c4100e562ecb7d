// Private to the store: the little of SQL the results store needs, over SQLite and PostgreSQL alike. One
// connection, statements with positional parameters written `?` (PostgreSQL's $1, $2, ... are made from them),
// text, integer, real and null values, and the dialect differences the schema meets. The store's logic
// (sql_store.cpp) is written once on top of it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dgx/core/support/expected.hpp"

namespace dgx::detail {

/// A parameter or a column value. Non-finite reals are stored as NULL (neither backend keeps NaN portably).
using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

/// One row of a result, its columns in the order of the SELECT.
using SqlRow = std::vector<SqlValue>;

/// Takes one row of a result as it is read; a failure it returns stops the read.
using RowVisitor = std::function<std::optional<Failure>(const SqlRow&)>;

struct Dialect {
  std::string name;         // "SQLite", "PostgreSQL"
  std::string id_column;    // an integer primary key the database assigns
  std::string real_type;    // an 8-byte float column
  std::string clustered;    // appended to a table whose primary key should order its storage (SQLite's
                            // WITHOUT ROWID); empty where the database has no such clause
  std::string begin_write;  // starts a transaction that writes (SQLite takes the write lock at once)
  std::string schema_lock;  // inside a transaction, serialises schema changes between processes (SQLite: the
                            // write lock of begin_write already does)
  /// An expression for the text of member `key` of the JSON object held in TEXT column `column`.
  std::string (*json_text)(const std::string& column, const std::string& key) = nullptr;
};

class Database {
public:
  virtual ~Database() = default;
  Database() = default;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  [[nodiscard]] virtual const Dialect& dialect() const = 0;
  /// Where the database is, for messages: a file's path, or host, port and database name (never a password).
  [[nodiscard]] virtual std::string where() const = 0;
  /// Runs one statement (or, without parameters, several separated by ';') and returns the rows it yields.
  virtual Expected<std::vector<SqlRow>> query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  /// Runs one SELECT and hands its rows to `visit` one at a time as the database yields them, so what is held is
  /// one row (PostgreSQL: one batch of a server-side cursor), however many rows the result has. Returns the first
  /// failure, the database's or the one `visit` returned.
  virtual std::optional<Failure> each_row(const std::string& sql, const std::vector<SqlValue>& params,
                                          const RowVisitor& visit) = 0;
  /// Runs one statement once per parameter list, prepared once: the bulk inserts of a run.
  virtual std::optional<Failure> execute_many(const std::string& sql,
                                              const std::vector<std::vector<SqlValue>>& param_lists) = 0;
  /// Whether a table of this name exists.
  virtual Expected<bool> has_table(const std::string& name) = 0;
};

/// Opens the SQLite database in `path`: to write (created when absent; WAL journal, a busy timeout, foreign
/// keys on), or only to read (it must exist).
Expected<std::unique_ptr<Database>> open_sqlite(const std::string& path, bool writable);

/// Connects to the PostgreSQL server a libpq connection URL names (postgresql://user@host:port/db?...). A usage
/// failure naming the host and the server's reason when it cannot; one naming the build when this dgxhost was
/// built without libpq.
Expected<std::unique_ptr<Database>> open_postgresql(const std::string& url);

/// The text of a value, for messages and for columns read back as text ("" for NULL).
std::string sql_text(const SqlValue& value);
/// The integer of a value (0 for NULL; a real is truncated; text is parsed).
std::int64_t sql_int(const SqlValue& value);
/// The real of a value (NaN for NULL).
double sql_real(const SqlValue& value);

}  // namespace dgx::detail
