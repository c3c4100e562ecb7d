// Each way a plugin can be broken is rejected with one line naming what was expected and what was found.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

using namespace dgx;
using dgx::testing::fixture;

namespace {

std::string rejection(const std::filesystem::path& file, const LoadOptions& options = {}) {
  auto loaded = load_plugin(file, options);
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().code == ExitCode::no_plugin);
  CHECK(loaded.error().message.find('\n') == std::string::npos);  // one line
  return loaded.error().message;
}

}  // namespace

TEST_CASE("a good C++ plugin loads with its metadata, workloads and parameter schema") {
  auto loaded = load_plugin(testing::spin_plugin(), {});
  REQUIRE(loaded);
  const LoadedPlugin& p = *loaded.value();
  CHECK(p.name == "spin");
  CHECK(p.abi_version == DGX_ABI_VERSION);
  REQUIRE(p.workloads.size() == 1);
  const WorkloadInfo& w = p.workloads[0];
  CHECK(w.name == "spin");
  CHECK(w.plugin == &p);
  CHECK(w.supports(DGX_MODE_MEASURE));
  CHECK_FALSE(w.supports(DGX_MODE_PROJECT));
  REQUIRE(w.params.size() == 4);
  CHECK(w.params[0].key == "spin.us");
  CHECK(w.params[0].type == ParamType::integer);
  CHECK(w.params[0].default_value->as_int() == 1000);
  CHECK(w.params[0].unit == "us");
}

TEST_CASE("a plugin written in plain C loads") {
  auto loaded = load_plugin(fixture("good/libdgx-cplain.so"), {});
  REQUIRE(loaded);
  CHECK(loaded.value()->workloads[0].precisions == std::vector<std::string>{"fp32"});
}

TEST_CASE("a file that is not a shared object") {
  CHECK(rejection(fixture("broken/libdgx-garbage.so")) ==
        "not a shared library: expected an ELF shared object, found a file starting with \"garbage:\"");
}

TEST_CASE("a library without the entry symbol") {
  CHECK(rejection(fixture("broken/libdgx-no-entry.so")).find("no entry symbol 'dgx_plugin_entry'") == 0);
}

TEST_CASE("an ABI version outside the host's range") {
  CHECK(rejection(fixture("broken/libdgx-future-abi.so")) ==
        "implements plugin ABI 2.0, this dgxhost speaks ABI 1.0-1.3");
}

TEST_CASE("a struct shorter than the ABI requires") {
  CHECK(rejection(fixture("broken/libdgx-short-struct.so")) ==
        "plugin descriptor is 16 bytes (struct_size), ABI 1.0 requires " +
            std::to_string(offsetof(dgx_plugin_desc, formats)) + " to 65536, a multiple of 8");
}

TEST_CASE("a null required function pointer") {
  CHECK(rejection(fixture("broken/libdgx-null-create.so")) ==
        "workload 'cplain': required function create is NULL (expected a function pointer)");
}

TEST_CASE("init returning an error") {
  CHECK(rejection(fixture("broken/libdgx-init-error.so")) ==
        "init failed with DGX_ERR_RUNTIME (expected DGX_OK): license server unreachable (simulated)");
}

TEST_CASE("an exception thrown from init is caught by the SDK and reported as that plugin's error") {
  const std::string reason = rejection(fixture("broken/libdgx-init-throws.so"));
  CHECK(reason.find("DGX_ERR_INTERNAL") != std::string::npos);
  CHECK(reason.find("std::runtime_error: cannot initialise: simulated failure") != std::string::npos);
}

TEST_CASE("a plugin file or directory writable by group or others is refused unless allowed") {
  testing::TempDir dir;
  const auto copy = dir.path() / "libdgx-spin.so";
  std::filesystem::copy_file(testing::spin_plugin(), copy);
  ::chmod(dir.path().c_str(), 0755);

  SUBCASE("the file") {
    ::chmod(copy.c_str(), 0757);
    const std::string reason = rejection(copy);
    CHECK(reason.find("the file " + copy.string() + " is writable by group or others (mode 0757") == 0);
    CHECK(reason.find("--allow-insecure-plugins") != std::string::npos);
    CHECK(load_plugin(copy, {true, nullptr}));
  }
  SUBCASE("its directory") {
    ::chmod(copy.c_str(), 0755);
    ::chmod(dir.path().c_str(), 0777);
    CHECK(rejection(copy).find("its folder " + dir.path().string() + " is writable") == 0);
    CHECK(load_plugin(copy, {true, nullptr}));
  }
}

TEST_CASE("the whole chain of the resolved path is checked, not only the link and its folder") {
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto open_folder = dir.path() / "open";
  const auto inner = open_folder / "inner";
  std::filesystem::create_directories(inner);
  ::chmod(inner.c_str(), 0755);
  const auto target = inner / "libdgx-spin.so";
  std::filesystem::copy_file(testing::spin_plugin(), target);
  ::chmod(target.c_str(), 0755);

  SUBCASE("a plugin under a grandparent writable by others") {
    ::chmod(open_folder.c_str(), 0777);
    CHECK(rejection(target).find("its folder " + open_folder.string() + " is writable by group or others") == 0);
  }
  SUBCASE("a symlink in a safe folder pointing into a folder writable by others") {
    ::chmod(open_folder.c_str(), 0777);
    const auto safe = dir.path() / "safe";
    std::filesystem::create_directory(safe);
    ::chmod(safe.c_str(), 0755);
    std::filesystem::create_symlink(target, safe / "libdgx-spin.so");
    CHECK(rejection(safe / "libdgx-spin.so").find("its folder " + open_folder.string()) == 0);
  }
  SUBCASE("a safe target reached through a symlink in a folder writable by others") {
    ::chmod(open_folder.c_str(), 0755);
    const auto unsafe = dir.path() / "unsafe";
    std::filesystem::create_directory(unsafe);
    ::chmod(unsafe.c_str(), 0777);
    std::filesystem::create_symlink(target, unsafe / "libdgx-spin.so");
    CHECK(rejection(unsafe / "libdgx-spin.so").find("its folder " + unsafe.string()) == 0);
  }
  SUBCASE("a sticky folder writable by all (like /tmp) is fine: others cannot replace our entries") {
    ::chmod(open_folder.c_str(), 01777);
    CHECK(load_plugin(target, {false, nullptr}));
  }
  SUBCASE("a file owned by another user") {
    ::chmod(open_folder.c_str(), 0755);
    if (::geteuid() != 0) {
      return;  // only root can give a file away
    }
    REQUIRE(::chown(target.c_str(), 12345, 12345) == 0);
    const std::string reason = rejection(target);
    CHECK(reason.find("the file " + target.string() + " is owned by uid 12345") == 0);
    CHECK(load_plugin(target, {true, nullptr}));
  }
  SUBCASE("a folder owned by another user") {
    ::chmod(open_folder.c_str(), 0755);
    if (::geteuid() != 0) {
      return;
    }
    REQUIRE(::chown(inner.c_str(), 12345, 12345) == 0);
    CHECK(rejection(target).find("its folder " + inner.string() + " is owned by uid 12345") == 0);
  }
}

TEST_CASE("a folder reached through a symlink is checked where the link is, as a file's symlink is") {
  testing::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto safe = dir.path() / "safe";
  std::filesystem::create_directory(safe);
  ::chmod(safe.c_str(), 0755);
  const auto target = safe / "libdgx-spin.so";
  std::filesystem::copy_file(testing::spin_plugin(), target);
  const auto open_folder = dir.path() / "w";
  std::filesystem::create_directory(open_folder);
  ::chmod(open_folder.c_str(), 0777);
  std::filesystem::create_directory_symlink(safe, open_folder / "link");
  const std::string reason = rejection(open_folder / "link" / "libdgx-spin.so");
  CHECK(reason.find("its folder " + open_folder.string() + " (which holds the symlink " +
                    (open_folder / "link").string() + ") is writable by group or others") == 0);
  SUBCASE("a link to a link: each is checked where it is") {
    ::chmod(open_folder.c_str(), 0755);
    const auto second = dir.path() / "second";
    std::filesystem::create_directory(second);
    ::chmod(second.c_str(), 0777);
    std::filesystem::create_directory_symlink(open_folder / "link", second / "again");
    CHECK(rejection(second / "again" / "libdgx-spin.so").find("its folder " + second.string()) == 0);
    CHECK(load_plugin(open_folder / "link" / "libdgx-spin.so", {false, nullptr}));
  }
  SUBCASE("the file is loaded by the path it resolves to, whatever the link says later") {
    ::chmod(open_folder.c_str(), 0755);
    auto checked = check_plugin_file(open_folder / "link" / "libdgx-spin.so", false);
    REQUIRE(checked);
    CHECK(checked->resolved == std::filesystem::canonical(target));
    CHECK(checked->file == open_folder / "link" / "libdgx-spin.so");
  }
  ::chmod(open_folder.c_str(), 0755);
}

TEST_CASE("a path that is not a file is rejected") {
  CHECK(rejection(fixture("good")).find("not a regular file") == 0);
}

TEST_CASE("versions and kinds are spelled for humans") {
  CHECK(abi_version_string(DGX_ABI_MAKE_VERSION(1, 3)) == "1.3");
  CHECK(kind_name(DGX_KIND_COMM) == "comm");
}
