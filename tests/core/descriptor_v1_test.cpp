// The ABI 1.x adapter lifts a v1 descriptor into the host's types; the loader picks it by major version.
#include <doctest/doctest.h>

#include "dgx/core/descriptor.hpp"
#include "fixtures.hpp"

using namespace dgx;
using dgx::testing::fixture;

TEST_CASE("the loader has an adapter for ABI 1 and none for other majors") {
  CHECK((descriptor_adapter(1) == &lift_descriptor_v1));
  CHECK((descriptor_adapter(0) == nullptr));
  CHECK((descriptor_adapter(2) == nullptr));
}

TEST_CASE("a C fixture plugin opens, negotiates 1.0 and is lifted by the v1 adapter") {
  auto opened = open_plugin(fixture("good/libdgx-cplain.so"), false);
  REQUIRE(opened);
  CHECK(opened->abi_version == DGX_ABI_V1_0);
  CHECK(opened->entry_status == DGX_OK);
  CHECK(opened->struct_size == sizeof(dgx_plugin_desc));

  const DescriptorAdapter adapter = descriptor_adapter(DGX_ABI_VERSION_MAJOR(opened->abi_version));
  REQUIRE((adapter != nullptr));
  auto plugin = adapter(opened.value());
  REQUIRE(plugin);
  CHECK(plugin->name == "cplain");
  CHECK(plugin->file == fixture("good/libdgx-cplain.so"));
  CHECK(plugin->abi_version == DGX_ABI_V1_0);
  REQUIRE(plugin->workloads.size() == 1);
  const WorkloadInfo& w = plugin->workloads[0];
  CHECK(w.name == "cplain");
  CHECK(w.supports(DGX_MODE_MEASURE));
  CHECK(w.supports(DGX_MODE_PROJECT));
  REQUIRE(w.params.size() == 1);
  CHECK(w.params[0].key == "cplain.loops");
  CHECK(w.params[0].default_value->as_int() == 1000);
  CHECK((w.desc->create != nullptr));  // the host calls the plugin through the lifted entry points
}

TEST_CASE("the v1 adapter rejects what the common opening part cannot know about") {
  auto opened = open_plugin(fixture("broken/libdgx-short-struct.so"), false);
  REQUIRE(opened);  // the version is readable, so opening succeeds ...
  auto plugin = lift_descriptor_v1(opened.value());
  REQUIRE_FALSE(plugin);  // ... and the v1 layout check fails
  CHECK(plugin.error().message.find("plugin descriptor is") == 0);
  CHECK(plugin.error().message.find("ABI 1.0 requires at least") != std::string::npos);
}

TEST_CASE("a version outside the host's range is refused before any adapter runs") {
  auto opened = open_plugin(fixture("broken/libdgx-future-abi.so"), false);
  REQUIRE_FALSE(opened);
  CHECK(opened.error().message.find("implements plugin ABI 2.0, this dgxhost speaks ABI 1.0-1.0") == 0);
}
