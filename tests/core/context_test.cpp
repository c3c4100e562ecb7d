#include <doctest/doctest.h>

#include "dgx/core/context.hpp"

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
  report.probed_by.push_back("cuda-probe");
  report.statuses.push_back("cuda-probe: CUDA driver not found");
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
