// The C++ layer's adapter: a PluginSpec becomes valid C descriptors, and every exception stops at the boundary.
#include <doctest/doctest.h>

#include <array>
#include <stdexcept>
#include <string>

#include <dgx/sdk.hpp>

#include "fake_host.hpp"

namespace {

struct Boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Probe final : public dgx::sdk::Workload {
public:
  explicit Probe(dgx::sdk::Host& host) : host_(host), behaviour_(host.get_string("probe.behaviour")) {
    if (behaviour_ == "invalid") {
      throw dgx::sdk::InvalidArgument("probe.behaviour 'invalid' is invalid");
    }
  }
  std::size_t case_count() override { return 2; }
  dgx::sdk::Case begin_case(std::size_t index) override {
    return dgx::sdk::Case{"case " + std::to_string(index), {}}.set("probe.size", static_cast<std::int64_t>(1 << index));
  }
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult& result) override {
    if (behaviour_ == "throw") {
      throw Boom("boom");
    }
    if (behaviour_ == "throw-int") {
      throw 7;
    }
    if (behaviour_ == "oom") {
      throw std::bad_alloc();
    }
    result.timing = dgx::sdk::Timing::device_events;
    result.seconds = 0.001 * request.iterations;
    result.cache = dgx::sdk::CacheState::cold;
  }
  void end_case(std::size_t, const dgx::sdk::Stats& stats) override {
    host_.add_metric("rate", 1.0 / stats.median, "tokens/s");
  }
  void project(dgx::sdk::Mode mode) override {
    host_.emit(dgx::sdk::Row(dgx::sdk::ResultMode::projected)
                   .config("gpus", std::int64_t{64})
                   .metric("step_time", mode == dgx::sdk::Mode::explore ? 2.0 : 1.0, "s")
                   .field("source", "test"));
  }

private:
  dgx::sdk::Host& host_;
  std::string behaviour_;
};

dgx::sdk::PluginSpec make_spec() {
  dgx::sdk::PluginSpec spec{.name = "probe", .version = "2.1.0", .vendor = "tests", .description = "adapter test"};
  spec.add_workload<Probe>({
      .name = "probe",
      .kind = dgx::sdk::Kind::comm,
      .summary = "test workload",
      .precisions = {DGX_PRECISION_BF16, DGX_PRECISION_FP8_E4M3},
      .params = {dgx::sdk::Param::string("probe.behaviour", "ok", "what to do", "ok|invalid|throw|throw-int|oom"),
                 dgx::sdk::Param::int_list("probe.sizes", {1, 2}, "sizes", "B")},
      .modes = {dgx::sdk::Mode::measure, dgx::sdk::Mode::project},
  });
  spec.presets.push_back({"probe-fast", "probe", "fast", "probe.behaviour = \"ok\"\n"});
  return spec;
}

struct Call {
  std::array<char, 512> message{};
  dgx_error error{sizeof(dgx_error), 512, message.data()};
  [[nodiscard]] std::string text() const { return message.data(); }
};

/// The probe workload as the host sees it: its C descriptor, on a fake host whose probe.behaviour is `behaviour`
/// (nullptr: not set), with an error buffer for the calls and the instance create() makes.
struct ProbeThroughC {
  dgx::sdk::detail::PluginAdapter adapter{make_spec()};
  const dgx_workload_desc& w = adapter.descriptor()->workloads[0];
  dgx::testing::FakeHost host;
  Call call;
  dgx_instance* instance = nullptr;

  explicit ProbeThroughC(const char* behaviour) {
    if (behaviour != nullptr) {
      host.set("probe.behaviour", std::string(behaviour));
    }
  }
  dgx_status create() { return w.create(&w, host.api(), &instance, &call.error); }
};

}  // namespace

TEST_CASE("sizes in bytes are integers in unit B, the unit that takes 64K, 1M, 2G") {
  const dgx::sdk::Param size = dgx::sdk::Param::bytes("x.bytes", 1024, "a size");
  CHECK(size.type == DGX_PARAM_INT);
  CHECK(size.unit == "B");
  CHECK(size.default_value == "1024");
  const dgx::sdk::Param sizes = dgx::sdk::Param::byte_list("x.sizes", {8, 16}, "sizes");
  CHECK(sizes.type == DGX_PARAM_INT_LIST);
  CHECK(sizes.unit == "B");
}

TEST_CASE("a PluginSpec becomes a complete C descriptor") {
  dgx::sdk::detail::PluginAdapter adapter(make_spec());
  const dgx_plugin_desc* d = adapter.descriptor();
  CHECK(d->struct_size == sizeof(dgx_plugin_desc));
  CHECK(d->abi_version == DGX_ABI_VERSION);
  CHECK(std::string(d->name) == "probe");
  CHECK(std::string(d->version) == "2.1.0");
  REQUIRE(d->workload_count == 1);
  const dgx_workload_desc& w = d->workloads[0];
  CHECK(std::string(w.name) == "probe");
  CHECK(w.kind == DGX_KIND_COMM);
  CHECK(w.modes == (DGX_MODE_BIT(DGX_MODE_MEASURE) | DGX_MODE_BIT(DGX_MODE_PROJECT)));
  REQUIRE(w.param_count == 2);
  CHECK(std::string(w.params[0].default_value) == "\"ok\"");
  CHECK(std::string(w.params[0].choices) == "ok|invalid|throw|throw-int|oom");
  CHECK(w.params[1].type == DGX_PARAM_INT_LIST);
  CHECK(std::string(w.params[1].default_value) == "[1, 2]");
  CHECK(std::string(w.params[1].unit) == "B");
  CHECK(w.precision_count == 2);
  CHECK((w.can_measure == nullptr));  // not given: the workload can always measure
  CHECK((w.create != nullptr));
  CHECK((w.destroy != nullptr));
  REQUIRE(d->preset_count == 1);
  CHECK(std::string(d->presets[0].name) == "probe-fast");
  CHECK((d->init == nullptr));
  CHECK((d->probe == nullptr));
}

TEST_CASE("the trampolines run the whole measure lifecycle") {
  ProbeThroughC p("ok");
  REQUIRE(p.create() == DGX_OK);
  std::uint32_t cases = 0;
  CHECK(p.w.case_count(p.instance, &cases, &p.call.error) == DGX_OK);
  CHECK(cases == 2);
  dgx_case_desc desc{sizeof(dgx_case_desc), nullptr, nullptr, 0, 0};
  REQUIRE(p.w.begin_case(p.instance, 1, &desc, &p.call.error) == DGX_OK);
  CHECK(std::string(desc.label) == "case 1");
  REQUIRE(desc.config_count == 1);
  CHECK(std::string(desc.config[0].key) == "probe.size");
  CHECK(std::string(desc.config[0].value) == "2");
  const dgx_sample_request request{sizeof(dgx_sample_request), 1, 0, 4, 0, 1};
  dgx_sample_result result{sizeof(dgx_sample_result), DGX_TIMING_HOST_WALL, -1, 0};
  REQUIRE(p.w.run(p.instance, &request, &result, &p.call.error) == DGX_OK);
  CHECK(result.timing == DGX_TIMING_DEVICE_EVENTS);
  CHECK(result.seconds == doctest::Approx(0.004));
  CHECK(result.cache_state == 2);
  const dgx_sample_stats stats{sizeof(dgx_sample_stats), 10, 0.5, 0.5, 0.5, 0.5, 0, 0};
  REQUIRE(p.w.end_case(p.instance, 1, &stats, &p.call.error) == DGX_OK);
  CHECK(p.host.added_metrics.at("rate").first == doctest::Approx(2.0));
  p.w.destroy(p.instance);
}

TEST_CASE("project emits rows through the host") {
  ProbeThroughC p("ok");
  REQUIRE(p.create() == DGX_OK);
  REQUIRE(p.w.project(p.instance, DGX_MODE_EXPLORE, &p.call.error) == DGX_OK);
  REQUIRE(p.host.rows.size() == 1);
  CHECK(p.host.rows[0].mode == DGX_RESULT_PROJECTED);
  CHECK(p.host.rows[0].config.at("gpus") == "64");
  CHECK(p.host.rows[0].metrics.at("step_time").first == 2.0);
  CHECK(p.host.rows[0].fields.at("source") == "test");
  p.w.destroy(p.instance);
}

TEST_CASE("exceptions become status codes and messages at the boundary") {
  const dgx_sample_request request{sizeof(dgx_sample_request), 0, 0, 1, 0, 0};
  dgx_sample_result result{};

  SUBCASE("an SDK error keeps its status") {
    ProbeThroughC p("invalid");
    CHECK(p.create() == DGX_ERR_INVALID_ARGUMENT);
    CHECK(p.call.text() == "probe.behaviour 'invalid' is invalid");
    CHECK(p.instance == nullptr);
  }
  SUBCASE("a std::exception is an internal error naming its type") {
    ProbeThroughC p("throw");
    REQUIRE(p.create() == DGX_OK);
    CHECK(p.w.run(p.instance, &request, &result, &p.call.error) == DGX_ERR_INTERNAL);
    CHECK(p.call.text().find("Boom") != std::string::npos);
    CHECK(p.call.text().find("boom") != std::string::npos);
    p.w.destroy(p.instance);
  }
  SUBCASE("anything else thrown is still caught") {
    ProbeThroughC p("throw-int");
    REQUIRE(p.create() == DGX_OK);
    CHECK(p.w.run(p.instance, &request, &result, &p.call.error) == DGX_ERR_INTERNAL);
    CHECK(p.call.text() == "unexpected exception of unknown type");
    p.w.destroy(p.instance);
  }
  SUBCASE("bad_alloc is out of memory") {
    ProbeThroughC p("oom");
    REQUIRE(p.create() == DGX_OK);
    CHECK(p.w.run(p.instance, &request, &result, &p.call.error) == DGX_ERR_OUT_OF_MEMORY);
    p.w.destroy(p.instance);
  }
  SUBCASE("a missing config key is reported by name") {
    ProbeThroughC p(nullptr);
    CHECK(p.create() == DGX_ERR_NOT_FOUND);
    CHECK(p.call.text() == "config key 'probe.behaviour' has no value");
  }
}

TEST_CASE("messages longer than the host's buffer are truncated, not overflowed") {
  std::array<char, 8> small{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(small.size()), small.data()};
  dgx::sdk::detail::write_error(&error, "a long message");
  CHECK(std::string(small.data()) == "a long ");
  dgx::sdk::detail::write_error(nullptr, "ignored");  // no buffer: nothing happens
}

namespace {

struct EntryHome {};  // what DGX_PLUGIN declares in a plugin's file
struct HomeA {};
struct HomeB {};

std::string g_initialised;  // the name of the last plugin whose init() ran

dgx::sdk::PluginSpec spec_named(const char* name) {
  dgx::sdk::PluginSpec spec = make_spec();
  spec.name = name;
  spec.init = [name](dgx::sdk::Host&) { g_initialised = name; };
  spec.shutdown = [name] { g_initialised = std::string("shut ") + name; };
  return spec;
}
dgx::sdk::PluginSpec spec_a() { return spec_named("a"); }
dgx::sdk::PluginSpec spec_b() { return spec_named("b"); }

}  // namespace

TEST_CASE("each plugin's home keeps its own adapter: init and shutdown reach the plugin they belong to") {
  const dgx_host_offer offer{sizeof(dgx_host_offer), DGX_ABI_V1_0, DGX_ABI_VERSION, "test", "0"};
  const dgx_plugin_desc* a = nullptr;
  const dgx_plugin_desc* b = nullptr;
  REQUIRE(dgx::sdk::detail::plugin_entry<HomeA>(&offer, &a, &spec_a) == DGX_OK);
  REQUIRE(dgx::sdk::detail::plugin_entry<HomeB>(&offer, &b, &spec_b) == DGX_OK);
  CHECK(std::string(a->name) == "a");
  CHECK(std::string(b->name) == "b");
  dgx::testing::FakeHost host;
  Call call;
  REQUIRE((b->init != nullptr));
  CHECK(b->init(host.api(), &call.error) == DGX_OK);
  CHECK(g_initialised == "b");
  CHECK(a->init(host.api(), &call.error) == DGX_OK);
  CHECK(g_initialised == "a");
  b->shutdown();
  CHECK(g_initialised == "shut b");
}

TEST_CASE("an SDK plugin answers the newest version the host offers: 1.1 to a 1.1 host, 1.0 to a 1.0 host") {
  const dgx_plugin_desc* desc = nullptr;
  const dgx_host_offer current{sizeof(dgx_host_offer), DGX_ABI_V1_0, DGX_ABI_V1_1, "test", "0"};
  REQUIRE(dgx::sdk::detail::plugin_entry<EntryHome>(&current, &desc, &make_spec) == DGX_OK);
  CHECK(desc->abi_version == DGX_ABI_V1_1);
  const dgx_host_offer older{sizeof(dgx_host_offer), DGX_ABI_V1_0, DGX_ABI_V1_0, "test", "0"};
  REQUIRE(dgx::sdk::detail::plugin_entry<EntryHome>(&older, &desc, &make_spec) == DGX_OK);
  CHECK(desc->abi_version == DGX_ABI_V1_0);
  const dgx_host_offer future{sizeof(dgx_host_offer), DGX_ABI_MAKE_VERSION(2, 0), DGX_ABI_MAKE_VERSION(2, 3), "t", "0"};
  CHECK(dgx::sdk::detail::plugin_entry<EntryHome>(&future, &desc, &make_spec) == DGX_ERR_VERSION);
}

TEST_CASE("what a workload declares of its rows becomes the descriptor's ABI 1.1 arrays") {
  using dgx::sdk::ChartSpec;
  using dgx::sdk::MetricSpec;
  dgx::sdk::PluginSpec spec = make_spec();
  spec.workloads[0].metrics = {MetricSpec::higher("busbw", "GB/s", "bus bandwidth").with_label("busbw GB/s"),
                               MetricSpec::lower("ttft.*", "s"), MetricSpec::neutral("size", "B")};
  spec.workloads[0].identity_keys = {"probe.behaviour", "size"};
  spec.workloads[0].charts = {ChartSpec::lines("Bandwidth", "size", "busbw")
                                  .by("probe.behaviour")
                                  .log_x()
                                  .only(dgx::sdk::ResultMode::measured)
                                  .peak("busbw", "link"),
                              ChartSpec::bars("TTFT", "probe.behaviour", "ttft.*").in_unit("ms").alternative()};
  dgx::sdk::detail::PluginAdapter adapter(std::move(spec));
  const dgx_workload_desc& w = adapter.descriptor()->workloads[0];
  CHECK(w.struct_size == sizeof(dgx_workload_desc));
  REQUIRE(w.metric_desc_count == 3);
  CHECK(w.metric_descs[0].struct_size == sizeof(dgx_metric_desc));
  CHECK(std::string(w.metric_descs[0].name) == "busbw");
  CHECK(std::string(w.metric_descs[0].unit) == "GB/s");
  CHECK(w.metric_descs[0].better == DGX_BETTER_HIGHER);
  CHECK(std::string(w.metric_descs[0].label) == "busbw GB/s");
  CHECK(std::string(w.metric_descs[0].help) == "bus bandwidth");
  CHECK(w.metric_descs[1].better == DGX_BETTER_LOWER);
  CHECK(w.metric_descs[1].label == nullptr);  // none given: NULL, as the ABI says
  CHECK(w.metric_descs[2].better == DGX_BETTER_NONE);
  REQUIRE(w.identity_key_count == 2);
  CHECK(std::string(w.identity_keys[1]) == "size");
  REQUIRE(w.chart_count == 2);
  const dgx_chart_desc& lines = w.charts[0];
  CHECK(lines.kind == DGX_CHART_LINES);
  CHECK(std::string(lines.series) == "probe.behaviour");
  CHECK(lines.mode == DGX_RESULT_MEASURED);
  CHECK(lines.flags == (DGX_CHART_LOG_X | DGX_CHART_PEAK_LINE));
  CHECK(std::string(lines.peak_metric) == "busbw");
  CHECK(std::string(lines.peak_label) == "link");
  CHECK(lines.table == nullptr);
  const dgx_chart_desc& bars = w.charts[1];
  CHECK(bars.kind == DGX_CHART_BARS);
  CHECK(std::string(bars.unit) == "ms");
  CHECK(bars.flags == DGX_CHART_ALTERNATIVE);
  CHECK(bars.mode == 0);
}

TEST_CASE("a workload that declares nothing of its rows leaves the ABI 1.1 arrays empty") {
  dgx::sdk::detail::PluginAdapter adapter(make_spec());
  const dgx_workload_desc& w = adapter.descriptor()->workloads[0];
  CHECK(w.metric_descs == nullptr);
  CHECK(w.metric_desc_count == 0);
  CHECK(w.identity_keys == nullptr);
  CHECK(w.charts == nullptr);
}
