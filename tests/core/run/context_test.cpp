#include <doctest/doctest.h>

#include "dgx/core/app/plugin_option.hpp"
#include "dgx/core/run/context.hpp"
#include "fixtures.hpp"

using namespace dgx;

TEST_CASE("host facts come from the OS") {
  const json::Object host = host_info();
  CHECK(host.contains("hostname"));
  CHECK(host.at("cpu_count").as_int() >= 1);
  CHECK(host.at("memory_bytes").as_int() > 0);
  CHECK(host.at("kernel").as_string().find("Linux") == 0);
}

TEST_CASE("no devices reports none with the reason") {
  DeviceReport report;
  CHECK(report.gpus_json().at("count").as_int() == 0);
  CHECK(report.gpus_json().at("status").as_string().find("none: no loaded plugin can probe devices") == 0);
  report.probed_by.emplace_back("cuda-probe");
  report.statuses.emplace_back("cuda-probe: CUDA driver not found");
  CHECK(report.gpus_json().at("status").as_string() == "none: cuda-probe: CUDA driver not found");
  CHECK(report.summary() == "none (cuda-probe: CUDA driver not found)");
}

TEST_CASE("devices are summarised by name and count") {
  DeviceReport report;
  json::Object d;
  d.set("name", "NVIDIA H200");
  d.set("memory_bytes", std::int64_t{150'000'000'000});
  report.devices.push_back(d);
  report.devices.push_back(d);
  CHECK(report.summary() == "2 x NVIDIA H200 (150 GB)");
  CHECK(report.gpus_json().at("status").as_string() == "ok");
}

TEST_CASE("timestamps are ISO 8601 UTC") {
  const std::string t = utc_timestamp();
  CHECK(t.size() == 20);
  CHECK(t[10] == 'T');
  CHECK(t.back() == 'Z');
}

TEST_CASE("a run's context names what ran, where, how it was asked for and with which configuration") {
  PluginRegistry registry;
  registry.discover({{testing::spin_plugin(), "test", true}}, {});
  REQUIRE(registry.plugins().size() == 1);
  const auto target = resolve_name(registry, "spin");
  REQUIRE(target);
  const ParamSpec us{"spin.us", ParamType::integer, json::Value(1000), "", {}, "us", false, {}};
  const std::vector<ParamSpec> schema{us};
  const ConfigLayer sets{"--set", {parse_set_argument("spin.us=5").value()}};
  const ConfigResolution resolution = resolve_config(schema, {&sets});
  LocalComm comm;
  Logger logger;
  const std::vector<std::string> argv{"dgxhost", "--plugin", "spin"};
  const json::Object c = run_context({registry, nullptr, comm, logger},
                                     {target.value(), resolution.config, "auto", DGX_MODE_MEASURE, argv});
  CHECK(c.at("dgxhost")["abi"].as_string() == "1.0-1.3");
  CHECK(c.at("ranks")["transport"].as_string() == "local");
  CHECK_FALSE(c.contains("nodes"));  // one rank: nothing to gather
  CHECK(c.at("plugin")["name"].as_string() == "spin");
  CHECK(c.at("workload").as_string() == "spin");
  CHECK(c.at("preset").is_null());
  CHECK(c.at("requested_mode").as_string() == "auto");
  CHECK(c.at("mode").as_string() == "measure");
  CHECK(c.at("config")["spin.us"].as_int() == 5);
  CHECK(c.at("config_overrides").as_array().size() == 1);
  CHECK(c.at("argv").as_array().size() == 3);
}
