// The SDK's test harness: the fake host refuses what dgxhost refuses, and the driver names the failing call.
#include <doctest/doctest.h>

#include <dgx/sdk.hpp>
#include <dgx/sdk/testing/fake_host.hpp>

using dgx::sdk::testing::FakeHost;

namespace {

class Counter final : public dgx::sdk::Workload {
public:
  explicit Counter(dgx::sdk::Host& host) : host_(host), unit_(host.get_string("counter.unit")) {}
  std::size_t case_count() override { return 2; }
  void run(const dgx::sdk::SampleRequest& request, dgx::sdk::SampleResult&) override { runs_ += request.iterations; }
  void end_case(std::size_t, const dgx::sdk::Stats&) override { host_.add_metric("iterations", runs_, unit_); }

private:
  dgx::sdk::Host& host_;
  std::string unit_;
  double runs_ = 0;
};

dgx::sdk::PluginSpec counter_spec() {
  dgx::sdk::PluginSpec spec;
  spec.name = "counter";
  spec.add_workload<Counter>({.name = "counter", .summary = "counts iterations"});
  return spec;
}

}  // namespace

TEST_CASE("the driver takes a workload through measure mode, case by case") {
  dgx::sdk::detail::PluginAdapter adapter(counter_spec());
  FakeHost host;
  host.set("counter.unit", std::string("count"));
  const auto outcome = dgx::sdk::testing::measure(adapter.descriptor()->workloads[0], host.api(), 5, 2);
  CHECK(outcome.ok());
  CHECK(host.added_metrics.at("iterations") == std::pair{20.0, std::string("count")});  // 2 cases x 2 samples x 5
}

TEST_CASE("a unit dgxhost does not accept fails the call, and the harness says why") {
  dgx::sdk::detail::PluginAdapter adapter(counter_spec());
  FakeHost host;
  host.set("counter.unit", std::string("parsecs"));
  const auto outcome = dgx::sdk::testing::measure(adapter.descriptor()->workloads[0], host.api());
  CHECK(outcome.status == DGX_ERR_INVALID_ARGUMENT);
  CHECK(outcome.call == "end_case");
  REQUIRE_FALSE(host.logs.empty());
  CHECK(host.logs.back().find("metric 'iterations' has unit 'parsecs', which dgxhost does not accept") == 0);
}

TEST_CASE("a missing key fails create, and there is no communicator to ask for") {
  dgx::sdk::detail::PluginAdapter adapter(counter_spec());
  FakeHost host;
  const auto outcome = dgx::sdk::testing::project(adapter.descriptor()->workloads[0], host.api());
  CHECK(outcome.call == "create");
  CHECK(outcome.message.find("counter.unit") != std::string::npos);
  const dgx_comm_api* comm = nullptr;
  CHECK(host.api()->host_comm(host.api()->ctx, &comm) == DGX_ERR_UNSUPPORTED);
}
