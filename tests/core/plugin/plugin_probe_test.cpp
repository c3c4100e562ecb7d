// A plugin that crashes, aborts, hangs or exits while it is opened or initialised takes only the checking child
// down; the verdict is remembered by the file's identity, and a file is not checked again until it changes.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/plugin/plugin_open.hpp"
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

ProbeVerdict probe(const std::filesystem::path& file) {
  auto checked = check_plugin_file(file, false);
  REQUIRE_MESSAGE(checked, checked.error().message);
  return probe_plugin(checked.value(), {});
}

std::string probe_rejection(const char* broken_name) {
  const ProbeVerdict verdict = probe(fixture("broken") / broken_name);
  REQUIRE(verdict.rejection.has_value());
  CHECK_FALSE(verdict.from_cache);
  CHECK(verdict.rejection->find('\n') == std::string::npos);
  return *verdict.rejection;
}

std::size_t probe_entries(const std::filesystem::path& dir) {
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
  CHECK(probe_entries(cache.path()) == 5);  // each cost a child's death: remembered (see below)
}

TEST_CASE("a refusal that cost a crash, an exit or a hang is remembered: the next check starts no child") {
  const CacheDir cache;
  const std::string first = probe_rejection("libdgx-init-segfault.so");
  const ProbeVerdict again = probe(fixture("broken") / "libdgx-init-segfault.so");
  REQUIRE(again.rejection);
  CHECK(again.from_cache);
  CHECK(again.rejection->find(first) == 0);
  CHECK(again.rejection->find("(remembered from an earlier check, " + cache.path().string()) != std::string::npos);
  // A plugin whose init hangs costs the time limit once, not on every command.
  ::setenv("DGX_PROBE_TIMEOUT_S", "1", 1);
  const auto hang = fixture("misbehaving/init-hang/libdgx-init-hang.so");
  const ProbeVerdict hung = probe(hang);
  REQUIRE(hung.rejection);
  CHECK_FALSE(hung.from_cache);
  CHECK(hung.rejection->find("did not finish loading and initialising within 1 s") == 0);
  const ProbeVerdict remembered = probe(hang);
  CHECK(remembered.from_cache);
  CHECK(remembered.rejection->find("did not finish loading and initialising within 1 s") == 0);
  ::setenv("DGX_PROBE_TIMEOUT_S", "2", 1);  // another limit: another verdict
  CHECK_FALSE(probe(hang).from_cache);
  ::unsetenv("DGX_PROBE_TIMEOUT_S");
  // A refusal in words is cheap to find again, and may not last (a license server that is back): not remembered.
  CHECK(probe_rejection("libdgx-init-error.so").find("init failed with DGX_ERR_RUNTIME") == 0);
  CHECK_FALSE(probe(fixture("broken") / "libdgx-init-error.so").from_cache);
}

TEST_CASE("an ordinary rejection found by the child is reported as if the host had loaded the file") {
  const CacheDir cache;
  CHECK(probe_rejection("libdgx-init-error.so").find("init failed with DGX_ERR_RUNTIME") == 0);
  auto loaded = load_plugin(fixture("broken") / "libdgx-init-segfault.so", {});  // refused by the child
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().code == ExitCode::no_plugin);
}

TEST_CASE("a file that loaded cleanly is remembered by device, inode, size and modification time") {
  const CacheDir cache;
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto copy = dir.path() / "libdgx-spin.so";
  std::filesystem::copy_file(testing::spin_plugin(), copy);

  ProbeVerdict first = probe(copy);
  CHECK_FALSE(first.rejection);
  CHECK_FALSE(first.from_cache);
  CHECK(probe_entries(cache.path()) == 1);
  CHECK(probe(copy).from_cache);

  const struct timespec times[2] = {{0, UTIME_NOW}, {12345, 0}};
  REQUIRE(::utimensat(AT_FDCWD, copy.c_str(), times, 0) == 0);
  CHECK_FALSE(probe(copy).from_cache);  // changed: checked again
  CHECK(probe(copy).from_cache);
}

TEST_CASE("a file rewritten in place with its size and modification time kept is checked again") {
  const CacheDir cache;
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto plugin = dir.path() / "libdgx-cplain.so";
  // Two builds of one source, padded to one size (the loader ignores bytes past the section table): a good one,
  // and one whose init() crashes.
  auto read = [](const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string good = read(fixture("good/libdgx-cplain.so"));
  std::string bad = read(fixture("broken/libdgx-init-segfault.so"));
  const std::size_t size = std::max(good.size(), bad.size());
  good.resize(size, '\0');
  bad.resize(size, '\0');
  std::ofstream(plugin, std::ios::binary) << good;
  struct stat before {};
  REQUIRE(::stat(plugin.c_str(), &before) == 0);
  CHECK_FALSE(probe(plugin).rejection);
  CHECK(probe(plugin).from_cache);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));     // a ctime the file system can tell apart
  std::ofstream(plugin, std::ios::binary | std::ios::in) << bad;  // the same inode, rewritten
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, plugin.c_str(), times, 0) == 0);
  struct stat after {};
  REQUIRE(::stat(plugin.c_str(), &after) == 0);
  REQUIRE(after.st_ino == before.st_ino);
  REQUIRE(after.st_size == before.st_size);
  REQUIRE(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
  const ProbeVerdict rewritten = probe(plugin);
  CHECK_FALSE(rewritten.from_cache);
  REQUIRE(rewritten.rejection);
  CHECK(rewritten.rejection->find("crashed while loading or initialising, with SIGSEGV") == 0);
}

TEST_CASE("DGX_CACHE_DIR=off checks every file every time") {
  const char* old = std::getenv("DGX_CACHE_DIR");
  const std::string previous = old != nullptr ? old : "";
  ::setenv("DGX_CACHE_DIR", "off", 1);
  CHECK(probe_cache_dir().empty());
  CHECK_FALSE(probe(testing::spin_plugin()).from_cache);
  CHECK_FALSE(probe(testing::spin_plugin()).from_cache);
  if (old != nullptr) {
    ::setenv("DGX_CACHE_DIR", previous.c_str(), 1);
  } else {
    ::unsetenv("DGX_CACHE_DIR");
  }
}
