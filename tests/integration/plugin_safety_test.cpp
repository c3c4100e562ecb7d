// Acceptance: broken plugins are reported one line each and never take the host or the other plugins down.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string_view>
#include <thread>

#include "broken_fixtures.hpp"
#include "dgx/json/json.hpp"
#include "dgxhost.hpp"
#include "temp_dir.hpp"

using namespace dgx::testing;

TEST_CASE("a garbage libdgx-garbage.so is reported by file name and the good plugins are still listed") {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  dir.write("libdgx-garbage.so", "not an ELF file\n");
  const ProcessResult r = dgxhost({"--plugin-dir", dir.path().string(), "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find((dir.path() / "libdgx-garbage.so").string() + ": not a shared library") != std::string::npos);
  CHECK(r.out.find("spin 1.0.0") != std::string::npos);
}

TEST_CASE("every broken fixture is rejected in one line naming its file") {
  const ProcessResult r = dgxhost({"--plugin-dir", fixture_dir("broken"), "--list"});
  CHECK(r.exit_code == 0);
  for (const std::string_view name : kBrokenFixtures) {
    const std::string file = fixture_dir("broken") + "/libdgx-" + std::string(name) + ".so: ";
    CHECK_MESSAGE(r.out.find(file) != std::string::npos, name);
  }
  CHECK(r.out.find("Rejected plugin files (" + std::to_string(kBrokenFixtures.size()) + ")") != std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);  // a plugin's name never reaches the terminal raw
}

TEST_CASE("with broken plugins on the path the good ones still run") {
  const ProcessResult r = dgxhost(std::vector<std::string>{"--plugin-dir", fixture_dir("broken"), "--plugin", "spin",
                                                           "--set", "spin.us=100", "--format", "json"} +
                                  kQuick);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("\"dgx.results/1\"") != std::string::npos);
}

TEST_CASE("an exception in a plugin is that plugin's error, with a run-failure exit code") {
  const ProcessResult r =
      dgxhost({"--plugin-dir", fixture_dir("good"), "--plugin", "throw", "--set", "thrower.where=run"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("thrower:throw: run failed: unexpected exception") != std::string::npos);
  CHECK(r.err.find("boom in run") != std::string::npos);
  const ProcessResult odd =
      dgxhost({"--plugin-dir", fixture_dir("good"), "--plugin", "throw", "--set", "thrower.where=int-run"});
  CHECK(odd.exit_code == 1);
  CHECK(odd.err.find("unexpected exception of unknown type") != std::string::npos);
}

TEST_CASE("asking for a rejected plugin explains the rejection") {
  const ProcessResult r = dgxhost({"--plugin-dir", fixture_dir("broken"), "--plugin", "null-create"});
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("was found but rejected") != std::string::npos);
  CHECK(r.err.find("required function create is NULL") != std::string::npos);
}

TEST_CASE("a plugin directory writable by others is refused unless --allow-insecure-plugins") {
  TempDir dir;
  std::filesystem::copy_file(fixture_dir("good") + "/libdgx-cplain.so", dir.path() / "libdgx-cplain.so");
  ::chmod(dir.path().c_str(), 0777);
  ProcessResult r = dgxhost({"--plugin-dir", dir.path().string(), "--list"});
  CHECK(r.out.find("is writable by group or others") != std::string::npos);
  CHECK(r.out.find("cplain 1.0.0") == std::string::npos);
  r = dgxhost({"--plugin-dir", dir.path().string(), "--allow-insecure-plugins", "--list"});
  CHECK(r.out.find("cplain 1.0.0") != std::string::npos);
  ::chmod(dir.path().c_str(), 0755);
}

TEST_CASE("a --plugin-dir that is a symlink in a folder others can write is refused like a file symlink") {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto safe = dir.path() / "safe";
  std::filesystem::create_directory(safe);
  ::chmod(safe.c_str(), 0755);
  std::filesystem::copy_file(fixture_dir("good") + "/libdgx-cplain.so", safe / "libdgx-cplain.so");
  const auto open_folder = dir.path() / "w";
  std::filesystem::create_directory(open_folder);
  ::chmod(open_folder.c_str(), 0777);
  std::filesystem::create_directory_symlink(safe, open_folder / "link");
  std::filesystem::create_symlink(safe / "libdgx-cplain.so", open_folder / "libdgx-cplain.so");
  for (const auto& path : {open_folder / "link", open_folder / "libdgx-cplain.so"}) {
    const ProcessResult r = dgxhost({"--plugin-dir", path.string(), "--list"});
    CHECK(r.exit_code == 0);
    CHECK_MESSAGE(r.out.find("its folder " + open_folder.string() + " (which holds the symlink " +
                             (open_folder / path.filename()).string() + ") is writable by group or others") !=
                      std::string::npos,
                  r.out);
    CHECK(r.out.find("cplain 1.0.0") == std::string::npos);
  }
  const ProcessResult safe_link = dgxhost({"--plugin-dir", safe.string(), "--list"});
  CHECK(safe_link.out.find("cplain 1.0.0") != std::string::npos);
  ::chmod(open_folder.c_str(), 0755);
}

TEST_CASE("a plugin rewritten in place with its size and modification time kept is checked again, spin still runs") {
  TempDir dir;
  TempDir cache;
  ::chmod(dir.path().c_str(), 0755);
  const auto plugin = dir.path() / "libdgx-cplain.so";
  const auto read = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string good = read(fixture_dir("good") + "/libdgx-cplain.so");
  std::string bad = read(fixture_dir("broken") + "/libdgx-init-segfault.so");
  const std::size_t size = std::max(good.size(), bad.size());  // the loader ignores bytes past the section table
  good.resize(size, '\0');
  bad.resize(size, '\0');
  std::ofstream(plugin, std::ios::binary) << good;
  const std::map<std::string, std::string> env{{"DGX_CACHE_DIR", cache.path().string()}};
  REQUIRE(dgxhost({"--plugin-dir", dir.path().string(), "--list"}, env).out.find("cplain 1.0.0") != std::string::npos);
  struct stat before {};
  REQUIRE(::stat(plugin.c_str(), &before) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));     // a change time the file system tells apart
  std::ofstream(plugin, std::ios::binary | std::ios::in) << bad;  // the same inode
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, plugin.c_str(), times, 0) == 0);
  const ProcessResult r = dgxhost(
      std::vector<std::string>{"--plugin-dir", dir.path().string(), "--plugin", "spin", "--set", "spin.us=10"} + kQuick,
      env);
  CHECK(r.exit_code == 0);
  const ProcessResult list = dgxhost({"--plugin-dir", dir.path().string(), "--list"}, env);
  CHECK(list.out.find(plugin.string() + ": crashed while loading or initialising, with SIGSEGV") != std::string::npos);
}

TEST_CASE("two plugins of the same name: the first wins, the second is reported") {
  const ProcessResult r = dgxhost({"--plugin-dir", fixture_dir("duplicate"), "--list"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("libdgx-twin-b.so: duplicate plugin name 'twin'") != std::string::npos);
}

TEST_CASE("two SDK plugins built with default visibility each run their own code in one process") {
  // Each exports every inline function of the SDK; a static in one of them used to be one object for the process,
  // and the second plugin loaded ran the first's code (a duplicate of its name, its init, its workload).
  const std::string dir = fixture_dir("visible");
  const ProcessResult list = dgxhost({"--plugin-dir", dir, "--list"});
  CHECK(list.exit_code == 0);
  CHECK_MESSAGE(list.out.find("visible-a 1.0.0") != std::string::npos, list.out);
  CHECK_MESSAGE(list.out.find("visible-b 1.0.0") != std::string::npos, list.out);
  CHECK_MESSAGE(list.out.find("duplicate") == std::string::npos, list.out);
  for (const std::string name : {"visible-a", "visible-b"}) {
    CAPTURE(name);
    const ProcessResult r = dgxhost({"--plugin-dir", dir, "--plugin", name, "--format", "json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const dgx::json::Value doc = dgx::json::parse(r.out);
    const dgx::json::Value& row = doc["results"][0];
    CHECK(row["info"]["made_by"].as_string() == name);
    CHECK(row["info"]["init_ran"].as_string() == "yes");
  }
}

TEST_CASE("an SDK plugin built with default visibility exports none of the SDK's constant tables") {
  // An exported inline variable, or a static of an inline function, is a unique symbol: every plugin built this way
  // in one host process would bind to the first one's copy. The fixture uses each table (visible.cpp).
  const std::string plugin = fixture_dir("visible") + "/libdgx-visible-a.so";
  const ProcessResult exported = run_process(DGX_TEST_NM, {"--dynamic", "--defined-only", "--demangle", plugin});
  REQUIRE_MESSAGE(exported.exit_code == 0, exported.err);
  std::istringstream lines(exported.out);
  int type_infos = 0;  // any C++ plugin built this way exports them: proof that the scan reads nm right
  for (std::string line; std::getline(lines, line);) {
    // "<address> <type> <name>"; data objects are u (unique), V/v (weak), D/d, B/b, R/r, G/g, S/s.
    const std::size_t type = line.find(' ');
    REQUIRE(type != std::string::npos);
    const std::string name = line.substr(type + 3);
    const bool data = std::string_view("uVvDdBbRrGgSs").find(line[type + 1]) != std::string_view::npos;
    const bool sdk = name.find("dgx::sdk::") != std::string::npos;
    const bool type_info = name.rfind("typeinfo", 0) == 0 || name.rfind("vtable", 0) == 0;
    CHECK_MESSAGE(!(data && sdk && !type_info), line);
    type_infos += data && sdk && type_info ? 1 : 0;
  }
  CHECK(type_infos > 0);
}

TEST_CASE("the host calls every loaded plugin's shutdown() before it exits") {
  TempDir dir;
  const auto marker = dir.path() / "shutdown-called";
  ProcessResult r =
      dgxhost({"--plugin-dir", fixture_dir("lifecycle"), "--list"}, {{"DGX_TEST_SHUTDOWN_MARKER", marker.string()}});
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(marker));
  std::filesystem::remove(marker);
  r = dgxhost({"--plugin-dir", fixture_dir("lifecycle"), "--plugin", "goodbye", "--mode", "project"},
              {{"DGX_TEST_SHUTDOWN_MARKER", marker.string()}});
  CHECK(r.exit_code == 0);
  CHECK(std::filesystem::exists(marker));
}

TEST_CASE("plugins that crash or exit while loading leave --list working and are named, each on one line") {
  const ProcessResult r = dgxhost({"--plugin-dir", fixture_dir("broken"), "--list"});
  CHECK(r.exit_code == 0);
  for (const char* name : {"init-segfault", "init-abort", "ctor-abort", "truncated"}) {
    const std::string file = fixture_dir("broken") + "/libdgx-" + name + ".so: crashed while loading";
    CHECK_MESSAGE(r.out.find(file) != std::string::npos, name);
  }
  CHECK(r.out.find(fixture_dir("broken") + "/libdgx-init-exit.so: ended the process with exit status 0") !=
        std::string::npos);
  CHECK(r.out.find("spin 1.0.0") != std::string::npos);
}

TEST_CASE("a plugin that crashes in run() is named with its workload and case, and the exit code is 6") {
  const ProcessResult r = dgxhost(
      std::vector<std::string>{"--plugin-dir", fixture_dir("crashing"), "--plugin", "crashy", "--mode", "measure"} +
      kQuick);
  CHECK(r.exit_code == 6);
  CHECK(r.err.find("crashy:cplain: run() of case 1/1") != std::string::npos);
  CHECK(r.err.find("the plugin crashed with SIGSEGV") != std::string::npos);
}
