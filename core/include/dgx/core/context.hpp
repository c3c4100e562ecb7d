// The context block of results: what ran where. Host facts come from the OS; GPU facts come from plugins that
// implement probe() (the host itself never links CUDA), so a machine without GPUs, or without a probing
// plugin, reports "none" with the reason.
#pragma once

#include <string>
#include <vector>

#include <dgx/plugin.h>

#include "dgx/core/json.hpp"
#include "dgx/core/log.hpp"
#include "dgx/core/plugin_registry.hpp"

namespace dgx {

/// hostname, os, kernel, cpu, cpu_count, memory_bytes
json::Object host_info();

struct DeviceReport {
  json::Array devices;
  json::Object software;              // component -> version
  std::vector<std::string> statuses;  // why no device was found, per probing plugin
  std::vector<std::string> probed_by;

  /// {"count", "devices", "status"}; status is "none: <reasons>" when there are no devices.
  [[nodiscard]] json::Object gpus_json() const;
  /// One line for the terminal report: "2 x NVIDIA H200 (141 GB)" or "none (CUDA driver not found ...)".
  [[nodiscard]] std::string summary() const;
};

/// Asks every loaded plugin that implements probe(). A failing probe is logged and skipped.
DeviceReport probe_devices(const PluginRegistry& registry, const dgx_host_api* host, const Logger& logger);

/// UTC time in ISO 8601, e.g. "2026-11-29T22:29:56Z".
std::string utc_timestamp();

}  // namespace dgx
