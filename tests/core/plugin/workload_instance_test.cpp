#include <doctest/doctest.h>

#include "dgx/core/plugin/host_services.hpp"
#include "dgx/core/plugin/workload_instance.hpp"
#include "fixtures.hpp"

using namespace dgx;

TEST_CASE("plugin statuses map to exit codes") {
  CHECK(exit_code_for(DGX_OK) == ExitCode::success);
  CHECK(exit_code_for(DGX_ERR_INVALID_ARGUMENT) == ExitCode::usage);
  CHECK(exit_code_for(DGX_ERR_NO_DEVICE) == ExitCode::no_device);
  CHECK(exit_code_for(DGX_ERR_CHECK_FAILED) == ExitCode::check_failed);
  CHECK(exit_code_for(DGX_ERR_CANCELLED) == ExitCode::interrupted);
  CHECK(exit_code_for(DGX_ERR_RUNTIME) == ExitCode::run_failed);
  CHECK(exit_code_for(DGX_ERR_INTERNAL) == ExitCode::run_failed);
}

TEST_CASE("create failures carry the plugin's message and a config-error exit code") {
  auto plugin = std::move(load_plugin(testing::spin_plugin(), {}).value());
  Logger logger;
  LocalComm comm;
  std::vector<ParamSpec> schema = plugin->workloads[0].params;
  const ConfigLayer sets{"--set", {parse_set_argument("spin.us=-5").value()}};
  const ConfigResolution r = resolve_config(schema, {&sets});
  HostServices services(logger, comm, {}, "spin");
  services.bind_config(&r.config);
  auto instance = WorkloadInstance::create(plugin->workloads[0], services.api());
  REQUIRE_FALSE(instance);
  CHECK(instance.error().code == ExitCode::usage);
  CHECK(instance.error().message == "spin:spin: invalid configuration: spin.us must be in 0..4398046511104, got -5");
}

TEST_CASE("project on a C plugin emits its projected row") {
  auto plugin = std::move(load_plugin(testing::fixture("good/libdgx-cplain.so"), {}).value());
  Logger logger;
  LocalComm comm;
  const ConfigResolution r = resolve_config(plugin->workloads[0].params, {});
  HostServices services(logger, comm, {}, "cplain");
  services.bind_config(&r.config);
  Report report;
  services.bind_report(&report, "cplain", "cplain");
  auto instance = WorkloadInstance::create(plugin->workloads[0], services.api());
  REQUIRE(instance);
  CHECK_FALSE(instance->project(DGX_MODE_PROJECT));
  REQUIRE(report.rows.size() == 1);
  CHECK(report.rows[0].mode == ResultMode::projected);
  CHECK(report.rows[0].find_metric("time")->value == doctest::Approx(1e-6));
}
