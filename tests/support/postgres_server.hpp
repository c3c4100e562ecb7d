// Test helper: a real PostgreSQL server of the test's own, started from Debian's `postgresql` binaries (initdb +
// pg_ctl) in a temporary folder, listening only on a Unix socket inside it, trusted local connections, stopped
// and removed at scope exit. As root (CI) the server runs as the `postgres` user (initdb refuses root), through
// runuser. Where no server binary is installed, `available()` says why and the tests print a skip.
#pragma once

#include <optional>
#include <string>

#include "temp_dir.hpp"

namespace dgx::testing {

class PostgresServer {
public:
  /// The folder of initdb and pg_ctl (the newest /usr/lib/postgresql/<version>/bin), or nullopt.
  static std::optional<std::string> binaries();

  /// Starts a server; `error()` says why when it could not (the tests fail then: a server binary exists).
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  [[nodiscard]] bool running() const { return running_; }
  [[nodiscard]] const std::string& error() const { return error_; }
  /// A libpq URL of database `db` on this server ("postgres" exists from the start).
  [[nodiscard]] std::string url(const std::string& db = "postgres") const;
  /// Creates a database; false (with error() set) when it could not.
  bool create_database(const std::string& name);
  /// Stops the server now (a store that loses its server mid-run).
  void stop();

private:
  TempDir dir_;
  std::string bin_, user_, data_, sockets_;
  bool running_ = false;
  std::string error_;
};

/// The line a test prints when no server binary is installed: CTest reports such a test as skipped.
inline constexpr const char* kNoPostgres = "SKIPPED: no PostgreSQL server binary (install Debian's postgresql)";

}  // namespace dgx::testing
