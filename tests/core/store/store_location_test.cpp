// Where the store is when the command line does not say, and the times --since takes
// (core/src/store/store_location.cpp).
#include <doctest/doctest.h>

#include <cstdlib>

#include "dgx/core/store/store.hpp"

using namespace dgx;

TEST_CASE("--since takes a date, a UTC time or a span back from now, and names the forms it takes otherwise") {
  CHECK(parse_since("2026-11-30T01:02:03Z", 0).value() == 1796000523);
  CHECK(parse_since("2026-11-30", 0).value() == 1795996800);
  CHECK(parse_since("7d", 1000000).value() == 1000000 - 7 * 86400);
  CHECK(parse_since("12h", 100000).value() == 100000 - 12 * 3600);
  CHECK(parse_since("2w", 2000000).value() == 2000000 - 14 * 86400);
  CHECK(parse_since("90m", 10000).value() == 10000 - 90 * 60);
  for (const char* bad : {"yesterday", "7", "7y", "-3d", "d"}) {
    CAPTURE(bad);
    const auto refused = parse_since(bad, 0);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == ExitCode::usage);
    CHECK(refused.error().message.find("30d") != std::string::npos);
  }
}

TEST_CASE("the default store is DGX_STORE's, else dgx-store.sqlite in the run-folder root, and none with both off") {
  const char* runs = std::getenv("DGX_RUNS_DIR");
  const std::string saved = runs != nullptr ? runs : "";
  ::unsetenv("DGX_STORE");
  ::setenv("DGX_RUNS_DIR", "/srv/runs", 1);
  CHECK(default_store_location() == "/srv/runs/dgx-store.sqlite");
  CHECK_FALSE(store_from_environment().has_value());  // runs record only when asked
  ::setenv("DGX_STORE", "postgresql://db.example/dgx", 1);
  CHECK(default_store_location() == "postgresql://db.example/dgx");
  CHECK(store_from_environment().value() == "postgresql://db.example/dgx");
  ::setenv("DGX_STORE", "off", 1);
  ::setenv("DGX_RUNS_DIR", "off", 1);
  CHECK(default_store_location().empty());
  CHECK_FALSE(store_from_environment().has_value());
  ::unsetenv("DGX_STORE");
  ::setenv("DGX_RUNS_DIR", saved.c_str(), 1);
}
