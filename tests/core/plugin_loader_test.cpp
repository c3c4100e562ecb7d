// Each way a plugin can be broken is rejected with one line naming what was expected and what was found.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "dgx/core/plugin_loader.hpp"
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
  CHECK(p.abi_version == DGX_ABI_V1_0);
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
        "implements plugin ABI 2.0, this dgxhost speaks ABI 1.0-1.0");
}

TEST_CASE("a struct shorter than the ABI requires") {
  CHECK(rejection(fixture("broken/libdgx-short-struct.so")) ==
        "plugin descriptor is 16 bytes (struct_size), ABI 1.0 requires at least " +
            std::to_string(sizeof(dgx_plugin_desc)));
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
    CHECK(reason.find("the file is writable by group or others (mode 0757") == 0);
    CHECK(reason.find("--allow-insecure-plugins") != std::string::npos);
    CHECK(load_plugin(copy, {true, nullptr}));
  }
  SUBCASE("its directory") {
    ::chmod(copy.c_str(), 0755);
    ::chmod(dir.path().c_str(), 0777);
    CHECK(rejection(copy).find("its directory " + dir.path().string() + " is writable") == 0);
    CHECK(load_plugin(copy, {true, nullptr}));
  }
}

TEST_CASE("a path that is not a file is rejected") {
  CHECK(rejection(fixture("good")).find("not a regular file") == 0);
}

TEST_CASE("versions and kinds are spelled for humans") {
  CHECK(abi_version_string(DGX_ABI_MAKE_VERSION(1, 3)) == "1.3");
  CHECK(kind_name(DGX_KIND_COMM) == "comm");
}
