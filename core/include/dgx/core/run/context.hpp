// The context block of results: what ran where. Host facts come from the OS; GPU facts come from plugins that
// implement probe() (the host itself never links CUDA), so a machine without GPUs, or without a probing
// plugin, reports "none" with the reason.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <dgx/plugin.h>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/distributed/comm.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/support/log.hpp"
#include "dgx/json/json.hpp"

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

/// What one run was, for its context block.
struct RunFacts {
  const Target& target;
  const ResolvedConfig& config;
  std::string_view requested_mode;  // as --mode spells it: "auto", "measure", ...
  dgx_mode mode;                    // what ran
  const std::vector<std::string>& argv;
};

/// Where the context block's facts come from: the plugins that probe devices, and the ranks.
struct ContextSources {
  const PluginRegistry& registry;
  const dgx_host_api* probe_host;  // the services probe() gets
  HostComm& comm;
  const Logger& logger;
};

/// The context block of results (docs/results-schema.md): dgxhost, time, host, GPUs, ranks, argv, plugin,
/// workload, modes and configuration. With several ranks and `gather`, every rank's host and GPUs are collected
/// into "nodes" (a collective: all ranks must call); pass false when the other ranks cannot take part.
json::Object run_context(const ContextSources& sources, const RunFacts& run, bool gather = true);

/// The context of a run that failed before it started: dgxhost, time, argv.
json::Object failure_context(const std::vector<std::string>& argv);

/// UTC time in ISO 8601, e.g. "2026-11-29T22:29:56Z".
std::string utc_timestamp();

}  // namespace dgx
