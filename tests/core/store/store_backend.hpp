// The store's tests run against both backends: store_test.cpp is compiled once for SQLite (core_store_tests) and
// once for PostgreSQL (store_postgres_tests, DGX_TEST_POSTGRES), each test case with a new, empty store of its
// own: a fresh file, or a fresh database on a server the test binary started (postgres_server.hpp).
#pragma once

#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>

#include "dgx/core/store/store.hpp"
#include "postgres_server.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace dgx::testing {

class StoreBackend {
public:
  StoreBackend() {
#ifdef DGX_TEST_POSTGRES
    static std::atomic<int> databases{0};
    if (!PostgresServer::binaries()) {
      return;
    }
    server_ = std::make_unique<PostgresServer>();
    const std::string db = "dgx_store_" + std::to_string(++databases);
    if (server_->running() && server_->create_database(db)) {
      location_ = server_->url(db);
    }
#else
    location_ = (dir_.path() / "store.sqlite").string();
#endif
  }

  /// False (with the skip line printed) where no PostgreSQL server binary exists; a failed start fails the test.
  bool ready() const {
#ifdef DGX_TEST_POSTGRES
    if (!PostgresServer::binaries()) {
      MESSAGE(kNoPostgres);
      return false;
    }
    REQUIRE_MESSAGE(!location_.empty(), server_->error());
#endif
    return true;
  }

  [[nodiscard]] const std::string& location() const { return location_; }
  [[nodiscard]] const TempDir& dir() const { return dir_; }
  [[nodiscard]] PostgresServer* server() const { return server_.get(); }

  std::unique_ptr<Store> open() const {
    auto store = open_store(location_);
    REQUIRE_MESSAGE(store.has_value(), (store ? std::string() : store.error().message));
    return std::move(store.value());
  }

private:
  TempDir dir_;
  std::unique_ptr<PostgresServer> server_;
  std::string location_;
};

}  // namespace dgx::testing
