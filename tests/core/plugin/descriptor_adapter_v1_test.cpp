// The ABI 1.x adapter lifts a v1 descriptor into the host's types; the loader picks it by major version.
#include <doctest/doctest.h>

#include "dgx/core/plugin/descriptor_adapter.hpp"
#include "dgx/core/results/document.hpp"
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
  CHECK(plugin.error().message.find("ABI 1.0 requires 96 to 65536") != std::string::npos);
}

TEST_CASE("a version outside the host's range is refused before any adapter runs") {
  auto opened = open_plugin(fixture("broken/libdgx-future-abi.so"), false);
  REQUIRE_FALSE(opened);
  CHECK(opened.error().message.find("implements plugin ABI 2.0, this dgxhost speaks ABI 1.0-1.3") == 0);
}

namespace {

dgx_status fake_create(const dgx_workload_desc*, const dgx_host_api*, dgx_instance**, dgx_error*) { return DGX_OK; }
dgx_status fake_project(dgx_instance*, dgx_mode, dgx_error*) { return DGX_OK; }
void fake_destroy(dgx_instance*) {}

// A well-formed v1 descriptor built in memory, for tests to break one field at a time.
struct Descriptor {
  dgx_param_desc params[2] = {
      {sizeof(dgx_param_desc), "demo.n", DGX_PARAM_INT, "4", "help", nullptr, nullptr, 0, nullptr},
      {sizeof(dgx_param_desc), "demo.name", DGX_PARAM_STRING, "\"x\"", "help", nullptr, nullptr, 0, nullptr}};
  dgx_precision precisions[1] = {DGX_PRECISION_BF16};
  dgx_workload_desc workload{};
  dgx_plugin_desc plugin{};

  Descriptor(const Descriptor&) = delete;  // it points into itself
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor() {
    workload.struct_size = sizeof workload;
    workload.name = "demo";
    workload.kind = DGX_KIND_MICRO;
    workload.summary = "a demo";
    workload.precisions = precisions;
    workload.precision_count = 1;
    workload.params = params;
    workload.param_count = 2;
    workload.modes = DGX_MODE_BIT(DGX_MODE_PROJECT);
    workload.create = &fake_create;
    workload.project = &fake_project;
    workload.destroy = &fake_destroy;
    plugin.struct_size = sizeof plugin;
    plugin.abi_version = DGX_ABI_V1_0;
    plugin.name = "demo";
    plugin.version = "1.0";
    plugin.workloads = &workload;
    plugin.workload_count = 1;
  }
  Expected<LoadedPlugin> lift() const { return lift_descriptor_v1({"demo.so", &plugin, sizeof plugin, DGX_ABI_V1_0}); }
  std::string reason() const {
    auto lifted = lift();
    REQUIRE_FALSE(lifted);
    CHECK(lifted.error().code == ExitCode::no_plugin);
    return lifted.error().message;
  }
};

}  // namespace

TEST_CASE("the in-memory descriptor of these tests is valid") { CHECK(Descriptor().lift()); }

TEST_CASE("a NULL array with a non-zero count is refused, not read") {
  Descriptor a, b, c, d;
  a.plugin.workloads = nullptr;
  CHECK(a.reason() == "workload array is NULL but its count is 1 (expected an array)");
  b.workload.params = nullptr;
  CHECK(b.reason() == "workload 'demo' parameter array is NULL but its count is 2 (expected an array)");
  c.workload.precisions = nullptr;
  CHECK(c.reason().find("precision array is NULL") != std::string::npos);
  d.plugin.preset_count = 3;
  CHECK(d.reason() == "preset array is NULL but its count is 3 (expected an array)");
}

TEST_CASE("absurd counts and strides are refused before anything is read") {
  Descriptor a, b;
  a.workload.param_count = 4'000'000'000u;
  CHECK(a.reason().find("parameter count is 4000000000 (expected at most 4096)") != std::string::npos);
  b.params[0].struct_size = 1'000'000;
  CHECK(b.reason().find("requires 72 to 65536") != std::string::npos);
}

// Found by tests/fuzz/fuzz_descriptor (corpus/descriptor/misaligned_stride): a stride that is no multiple of the
// struct's alignment was accepted, and the host then read the next element's pointers misaligned (UBSan).
TEST_CASE("a struct_size that is no multiple of the struct's alignment is refused before a second element is read") {
  Descriptor a, b;
  a.workload.struct_size = sizeof(dgx_workload_desc) + 4;
  CHECK(a.reason().find("workload descriptor is " + std::to_string(sizeof(dgx_workload_desc) + 4) +
                        " bytes (struct_size)") == 0);
  CHECK(a.reason().find(", a multiple of 8") != std::string::npos);
  b.params[0].struct_size = sizeof(dgx_param_desc) + 1;
  CHECK(b.reason().find("parameter 0 is " + std::to_string(sizeof(dgx_param_desc) + 1) + " bytes") !=
        std::string::npos);
}

// Found by tests/fuzz/fuzz_descriptor (corpus/descriptor/choices_on_int_list): choices on an int-list parameter
// reached check_choices, which read each integer as a string: std::bad_variant_access, std::terminate.
TEST_CASE("choices on a parameter that is not a string or string list are refused") {
  Descriptor d;
  d.params[0] = {sizeof(dgx_param_desc), "demo.n", DGX_PARAM_INT_LIST, "[8, 16]", "", "fast|slow", nullptr, 0, nullptr};
  CHECK(d.reason() == "workload 'demo' parameter 'demo.n' of type int list has choices 'fast|slow' (expected none: "
                      "only string and string-list parameters take choices)");
  d.params[0] = {sizeof(dgx_param_desc), "demo.n", DGX_PARAM_STRING_LIST, "[\"a\"]", "", "a|b", nullptr, 0, nullptr};
  CHECK(d.lift());
}

TEST_CASE("names users type are checked: no control characters, no ':'") {
  Descriptor d;
  d.plugin.name = "evil\n\x1b[31m";
  CHECK(d.reason() == "plugin is named 'evil\\x0a\\x1b[31m' (expected lower case letters, digits, '-' and '_', at "
                      "most 64, as abi/v1.h says)");
  d.plugin.name = "a:b";
  CHECK(d.reason().find("plugin is named 'a:b'") == 0);
  Descriptor w, k;
  w.workload.name = "x y";
  CHECK(w.reason().find("workload 0 is named 'x y'") == 0);
  k.params[1].key = "demo..name";
  CHECK(k.reason().find("is not a config key") != std::string::npos);
}

TEST_CASE("duplicate parameter keys and workload names are refused") {
  Descriptor d;
  d.params[1].key = "demo.n";
  CHECK(d.reason() == "workload 'demo' declares parameter 'demo.n' twice (expected unique keys)");
}

TEST_CASE("a runner.* key may change its default but not its type, and may not be invented") {
  Descriptor d;
  d.params[1] = {sizeof(dgx_param_desc), "runner.batch", DGX_PARAM_STRING, "\"x\"", "", nullptr, nullptr, 0, nullptr};
  CHECK(d.reason().find("'runner.batch' has type string, but runner.batch is the host's runner setting of type int") !=
        std::string::npos);
  d.params[1] = {sizeof(dgx_param_desc), "runner.speed", DGX_PARAM_INT, "1", "", nullptr, nullptr, 0, nullptr};
  CHECK(d.reason().find("runner.* keys belong to the host, and it has no runner.speed") != std::string::npos);
  d.params[1] = {sizeof(dgx_param_desc), "runner.batch", DGX_PARAM_INT, "20", "", nullptr, nullptr, 0, nullptr};
  CHECK(d.lift());
}

TEST_CASE("free text from a plugin is made printable when it is lifted") {
  Descriptor d;
  d.plugin.description = "line\nbreak \x1b[2J and \xff";
  d.workload.summary = "\x1b]0;title\x07";
  auto plugin = d.lift();
  REQUIRE(plugin);
  CHECK(plugin->description == "line\\x0abreak \\x1b[2J and \xef\xbf\xbd");
  CHECK(plugin->workloads[0].summary == "\\x1b]0;title\\x07");
}

// ABI 1.1: what a workload declares of its rows ------------------------------------------------------------------

namespace {

// The in-memory descriptor with declarations: a metric, a family, identity keys and a chart.
struct Declaring : Descriptor {
  dgx_metric_desc metrics[2] = {{sizeof(dgx_metric_desc), "rate", "GB/s", DGX_BETTER_HIGHER, "rate", "bytes / time"},
                                {sizeof(dgx_metric_desc), "part.*", "s", DGX_BETTER_LOWER, nullptr, nullptr}};
  const char* keys[2] = {"demo.n", "demo.*"};
  dgx_chart_desc charts[1] = {{sizeof(dgx_chart_desc), "Rate against n", DGX_CHART_LINES, "demo.n", "rate", "demo.name",
                               "caption", DGX_RESULT_PROJECTED, nullptr, "MB/s", "rate", "peak",
                               DGX_CHART_LOG_X | DGX_CHART_PEAK_LINE}};
  Declaring() {
    workload.metric_descs = metrics;
    workload.metric_desc_count = 2;
    workload.identity_keys = keys;
    workload.identity_key_count = 2;
    workload.charts = charts;
    workload.chart_count = 1;
  }
};

}  // namespace

TEST_CASE("a workload's declarations of its rows are lifted with the workload") {
  Declaring d;
  auto plugin = d.lift();
  REQUIRE(plugin);
  const WorkloadDeclarations& w = plugin->workloads[0].declarations;
  CHECK(w.plugin == "demo");
  CHECK(w.workload == "demo");
  REQUIRE(w.metrics.size() == 2);
  CHECK(w.metrics[0].better == Better::higher);
  CHECK(w.metrics[0].help == "bytes / time");
  CHECK(w.find_metric("part.compute")->better == Better::lower);
  REQUIRE(w.identity_keys);
  CHECK(*w.identity_keys == std::vector<std::string>{"demo.n", "demo.*"});
  REQUIRE(w.charts.size() == 1);
  const ChartDeclaration& c = w.charts[0];
  CHECK(c.kind == ChartKind::lines);
  CHECK(c.mode == ResultMode::projected);
  CHECK(c.series == "demo.name");
  CHECK(c.unit == "MB/s");
  CHECK(c.log_x);
  CHECK_FALSE(c.log_y);
  CHECK(c.peak_line);
  CHECK(c.peak_label == "peak");
}

TEST_CASE("a descriptor of ABI 1.0 ends before the declarations, which the host never reads") {
  Declaring d;  // the fields are set, but beyond struct_size: garbage to a 1.0 reader
  d.workload.struct_size = offsetof(dgx_workload_desc, metric_descs);
  auto plugin = d.lift();
  REQUIRE(plugin);
  CHECK(plugin->workloads[0].declarations.empty());
  CHECK_FALSE(plugin->workloads[0].declarations.identity_keys);
  Descriptor shorter;
  shorter.workload.struct_size = offsetof(dgx_workload_desc, destroy);  // shorter than 1.0: refused
  CHECK(shorter.reason().find("workload descriptor is") == 0);
}

TEST_CASE("the C fixture of ABI 1.0 is lifted with nothing declared, its workload descriptor of 1.0's size") {
  auto opened = open_plugin(fixture("good/libdgx-cplain.so"), false);
  REQUIRE(opened);
  auto plugin = lift_descriptor_v1(opened.value());
  REQUIRE(plugin);
  CHECK(plugin->workloads[0].desc->struct_size == offsetof(dgx_workload_desc, metric_descs));
  CHECK(plugin->workloads[0].declarations.empty());
}

TEST_CASE("a bad declaration disables the plugin with a reason naming the workload, the field and what it found") {
  SUBCASE("a unit outside the list") {
    Declaring d;
    d.metrics[0].unit = "GBps";
    CHECK(d.reason().find("workload 'demo' metric_descs[0] 'rate' has unit 'GBps' (expected one of s, B") == 0);
  }
  SUBCASE("a metric name that is no metric") {
    Declaring d;
    d.metrics[1].name = "Part Time";
    CHECK(d.reason().find("workload 'demo' metric_descs[1] is named 'Part Time'") == 0);
  }
  SUBCASE("a direction outside the enumeration") {
    Declaring d;
    d.metrics[0].better = 7;
    CHECK(d.reason().find("metric_descs[0] 'rate' has better = 7") != std::string::npos);
  }
  SUBCASE("a metric declared twice") {
    Declaring d;
    d.metrics[1].name = "rate";
    CHECK(d.reason() == "workload 'demo' metric_descs declares 'rate' twice (expected unique names)");
  }
  SUBCASE("an identity key the schema does not have") {
    Declaring d;
    d.keys[0] = "demo.m";
    CHECK(d.reason() == "workload 'demo' identity_keys[0] 'demo.m' is neither a parameter of the schema nor a metric "
                        "of metric_descs (expected one of its keys, or a family such as \"parallel.*\")");
    d.keys[0] = "rate";  // a declared metric may name the case
    CHECK(d.lift());
  }
  SUBCASE("a family that matches no parameter, and the host's own keys") {
    Declaring d;
    d.keys[1] = "other.*";
    CHECK(d.reason().find("identity_keys[1] 'other.*' matches no parameter of the schema") != std::string::npos);
    d.keys[1] = "runner.batch";
    CHECK(d.reason().find("identity_keys[1] 'runner.batch' is the host's") != std::string::npos);
  }
  SUBCASE("a NULL identity key or array") {
    Declaring d;
    d.keys[1] = nullptr;
    CHECK(d.reason() == "workload 'demo' identity_keys[1] is NULL (expected a config key)");
    d.workload.identity_keys = nullptr;
    CHECK(d.reason() == "workload 'demo' identity_keys array is NULL but its count is 2 (expected an array)");
  }
  SUBCASE("a chart of a metric nobody declared") {
    Declaring d;
    d.charts[0].y = "speed";
    CHECK(d.reason() ==
          "workload 'demo' charts[0] 'Rate against n': y 'speed' is no metric of metric_descs (expected a "
          "declared metric)");
  }
  SUBCASE("a chart against a key the workload does not have") {
    Declaring d;
    d.charts[0].x = "demo.size";
    CHECK(d.reason().find("x 'demo.size' is neither a metric of metric_descs nor a parameter") != std::string::npos);
  }
  SUBCASE("a chart's unit of another quantity, an unknown kind, mode or flag, no title") {
    Declaring d;
    d.charts[0].unit = "ms";
    CHECK(d.reason().find("unit 'ms' is not a unit of y 'rate' (GB/s)") != std::string::npos);
    Declaring k;
    k.charts[0].kind = 3;
    CHECK(k.reason().find("has kind 3") != std::string::npos);
    Declaring m;
    m.charts[0].mode = 9;
    CHECK(m.reason().find("has mode 9") != std::string::npos);
    Declaring f;
    f.charts[0].flags = 0x100;
    CHECK(f.reason().find("has flags 256") != std::string::npos);
    Declaring t;
    t.charts[0].title = nullptr;
    CHECK(t.reason() == "workload 'demo' charts[0] has no title (expected one, found NULL)");
  }
  SUBCASE("a peak line without a declared peak metric") {
    Declaring d;
    d.charts[0].peak_metric = "link";
    CHECK(d.reason().find("peak_metric 'link' is no metric of metric_descs") != std::string::npos);
  }
  SUBCASE("an absurd stride of the new arrays") {
    Declaring d;
    d.metrics[0].struct_size = 3;
    CHECK(d.reason().find("workload 'demo' metric_descs[0] is 3 bytes (struct_size)") == 0);
    Declaring c;
    c.workload.chart_count = 100000;
    CHECK(c.reason() == "workload 'demo' charts count is 100000 (expected at most 256)");
  }
}

TEST_CASE("a workload with measure mode may name a key its cases set as identity, one without may not") {
  Declaring d;
  d.keys[0] = "world_size";
  CHECK_FALSE(d.lift());
  d.workload.modes |= DGX_MODE_BIT(DGX_MODE_MEASURE);
  static dgx_status (*const run)(dgx_instance*, const dgx_sample_request*, dgx_sample_result*, dgx_error*) =
      [](dgx_instance*, const dgx_sample_request*, dgx_sample_result*, dgx_error*) -> dgx_status { return DGX_OK; };
  d.workload.run = run;
  CHECK(d.lift());
}
