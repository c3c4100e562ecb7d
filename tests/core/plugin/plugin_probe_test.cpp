// A plugin that crashes, aborts or exits while it is opened or initialised takes only the checking child down;
// a file that loaded cleanly is remembered by its identity and not checked again.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/plugin/plugin_probe.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using dgx::testing::fixture;

namespace {

// Points the verdict cache at a fresh folder for the test's lifetime.
class CacheDir {
public:
  CacheDir() {
    const char* old = std::getenv("DGX_CACHE_DIR");
    if (old != nullptr) {
      previous_ = old;
    }
    ::setenv("DGX_CACHE_DIR", dir_.path().c_str(), 1);
  }
  CacheDir(const CacheDir&) = delete;
  CacheDir& operator=(const CacheDir&) = delete;
  ~CacheDir() {
    if (previous_) {
      ::setenv("DGX_CACHE_DIR", previous_->c_str(), 1);
    } else {
      ::unsetenv("DGX_CACHE_DIR");
    }
  }
  [[nodiscard]] const std::filesystem::path& path() const { return dir_.path(); }

private:
  testing::TempDir dir_;
  std::optional<std::string> previous_;
};

std::string probe_rejection(const char* broken_name) {
  const ProbeVerdict verdict = probe_plugin(fixture("broken") / broken_name, {});
  REQUIRE(verdict.rejection.has_value());
  CHECK_FALSE(verdict.from_cache);
  CHECK(verdict.rejection->find('\n') == std::string::npos);
  return *verdict.rejection;
}

std::size_t entries(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("a plugin that crashes, aborts or exits while loading is refused, with the signal or the exit status") {
  const CacheDir cache;
  CHECK(probe_rejection("libdgx-init-segfault.so").find("crashed while loading or initialising, with SIGSEGV") == 0);
  CHECK(probe_rejection("libdgx-init-abort.so").find("with SIGABRT") != std::string::npos);
  CHECK(probe_rejection("libdgx-ctor-abort.so").find("with SIGABRT") != std::string::npos);
  CHECK(probe_rejection("libdgx-truncated.so").find("with SIGBUS") != std::string::npos);
  CHECK(probe_rejection("libdgx-init-exit.so").find("ended the process with exit status 0 while loading") == 0);
  CHECK(entries(cache.path()) == 0);  // a refused file is not remembered: it is checked again next time
}

TEST_CASE("an ordinary rejection found by the child is reported as if the host had loaded the file") {
  const CacheDir cache;
  CHECK(probe_rejection("libdgx-init-error.so").find("init failed with DGX_ERR_RUNTIME") == 0);
  auto loaded = load_plugin(fixture("broken") / "libdgx-init-segfault.so", {});
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().code == ExitCode::no_plugin);
}

TEST_CASE("a file that loaded cleanly is remembered by device, inode, size and modification time") {
  const CacheDir cache;
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto copy = dir.path() / "libdgx-spin.so";
  std::filesystem::copy_file(testing::spin_plugin(), copy);

  ProbeVerdict first = probe_plugin(copy, {});
  CHECK_FALSE(first.rejection);
  CHECK_FALSE(first.from_cache);
  CHECK(entries(cache.path()) == 1);
  CHECK(probe_plugin(copy, {}).from_cache);

  const struct timespec times[2] = {{0, UTIME_NOW}, {12345, 0}};
  REQUIRE(::utimensat(AT_FDCWD, copy.c_str(), times, 0) == 0);
  CHECK_FALSE(probe_plugin(copy, {}).from_cache);  // changed: checked again
  CHECK(probe_plugin(copy, {}).from_cache);
}

TEST_CASE("DGX_CACHE_DIR=off checks every file every time") {
  const char* old = std::getenv("DGX_CACHE_DIR");
  const std::string previous = old != nullptr ? old : "";
  ::setenv("DGX_CACHE_DIR", "off", 1);
  CHECK(probe_cache_dir().empty());
  CHECK_FALSE(probe_plugin(testing::spin_plugin(), {}).from_cache);
  CHECK_FALSE(probe_plugin(testing::spin_plugin(), {}).from_cache);
  if (old != nullptr) {
    ::setenv("DGX_CACHE_DIR", previous.c_str(), 1);
  } else {
    ::unsetenv("DGX_CACHE_DIR");
  }
}
