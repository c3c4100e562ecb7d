#include "dgx/core/run/context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>

#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/build_info.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/utc_time.hpp"

#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (!text::starts_with(line, "PRETTY_NAME=")) {
      continue;
    }
    std::string value = line.substr(12);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "unknown";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (!text::starts_with(line, "model name")) {
      continue;
    }
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      return text::trim(line.substr(colon + 1));
    }
  }
  return "unknown";
}

struct ProbeCollector {
  DeviceReport* report;
  std::string plugin;
};

void add_device(void* ctx, const dgx_device_info* d) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (d == nullptr || d->struct_size < sizeof(dgx_device_info)) {
    return;
  }
  auto str = [](const char* s) { return json::Value(printable(s)); };
  json::Object o;
  o.set("index", d->index);
  o.set("name", str(d->name));
  o.set("uuid", str(d->uuid));
  o.set("pci_bus_id", str(d->pci_bus_id));
  o.set("compute_capability",
        std::to_string(d->compute_capability_major) + "." + std::to_string(d->compute_capability_minor));
  o.set("multiprocessors", d->multiprocessors);
  o.set("memory_bytes", d->memory_bytes);
  o.set("l2_cache_bytes", d->l2_cache_bytes);
  o.set("clock_khz", d->clock_khz);
  o.set("memory_clock_khz", d->memory_clock_khz);
  o.set("memory_bus_bits", d->memory_bus_bits);
  o.set("probed_by", c->plugin);
  // Two plugins may see the same device: keep the first report of each UUID.
  for (const json::Value& existing : c->report->devices) {
    if (d->uuid != nullptr && *d->uuid != '\0' && existing["uuid"] == json::Value(d->uuid)) {
      return;
    }
  }
  c->report->devices.push_back(std::move(o));
}

void add_software(void* ctx, const char* component, const char* version) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (component == nullptr || version == nullptr) {
    return;
  }
  if (!c->report->software.contains(printable(component))) {
    c->report->software.set(printable(component), printable(version));
  }
}

void set_status(void* ctx, const char* status) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (status != nullptr) {
    c->report->statuses.push_back(c->plugin + ": " + printable(status));
  }
}

}  // namespace

json::Object host_info() {
  json::Object o;
  std::array<char, 256> hostname{};
  if (gethostname(hostname.data(), hostname.size() - 1) == 0) {
    o.set("hostname", hostname.data());
  }
  o.set("os", os_pretty_name());
  struct utsname u {};
  if (uname(&u) == 0) {
    o.set("kernel", std::string(u.sysname) + " " + u.release + " " + u.machine);
  }
  o.set("cpu", cpu_model());
  o.set("cpu_count", static_cast<std::int64_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  o.set("memory_bytes", static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
  return o;
}

json::Object DeviceReport::gpus_json() const {
  json::Object o;
  o.set("count", devices.size());
  o.set("devices", devices);
  if (devices.empty()) {
    std::string status = "none";
    if (!statuses.empty()) {
      status += ": " + text::join(statuses, "; ");
    } else if (probed_by.empty()) {
      status += ": no loaded plugin can probe devices; the CUDA plugins are not built or not on the plugin path";
    }
    o.set("status", status);
  } else {
    o.set("status", "ok");
  }
  return o;
}

std::string DeviceReport::summary() const {
  if (devices.empty()) {
    const std::string status = gpus_json().at("status").as_string();
    return status == "none" ? status : "none (" + status.substr(6) + ")";
  }
  std::map<std::string, int> counts;
  for (const json::Value& d : devices) {
    const double gb = d["memory_bytes"].as_number() / 1e9;
    counts[d["name"].as_string() + " (" + text::format_number(gb, 3) + " GB)"]++;
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) {
    parts.push_back(std::to_string(n) + " x " + name);
  }
  return text::join(parts, ", ");
}

DeviceReport probe_devices(const PluginRegistry& registry, const dgx_host_api* host, const Logger& logger) {
  DeviceReport report;
  for (const auto& plugin : registry.plugins()) {
    if (plugin->desc->probe == nullptr) {
      continue;
    }
    ProbeCollector collector{&report, plugin->name};
    const dgx_probe_sink sink{sizeof(dgx_probe_sink), &collector, &add_device, &add_software, &set_status};
    std::array<char, 1024> message{};
    dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
    report.probed_by.push_back(plugin->name);
    dgx_status status = DGX_OK;
    {
      const CallGuard guard(plugin->name + ": probe()");
      status = plugin->desc->probe(host, &sink, &error);
    }
    if (status != DGX_OK) {
      logger.warn("device probe of plugin '" + plugin->name + "' failed: " + printable(message.data()));
    }
  }
  return report;
}

namespace {

// Every rank's host and GPUs, gathered on all ranks (collective): where a multi-node run actually ran.
json::Array gather_rank_facts(HostComm& comm, const std::string& gpu_summary) {
  constexpr std::size_t kSlot = 512;  // bytes of JSON per rank; longer facts are cut
  json::Object mine;
  mine.set("rank", comm.ranks().rank);
  mine.set("local_rank", comm.ranks().local_rank);
  const json::Object host = host_info();
  if (const json::Value* hostname = host.find("hostname")) {
    mine.set("hostname", *hostname);
  }
  mine.set("gpus", gpu_summary);
  std::string text = json::write(mine, 0);
  if (text.size() >= kSlot) {
    text = "{\"rank\": " + std::to_string(comm.ranks().rank) + "}";
  }
  text.resize(kSlot, '\0');
  std::string all(kSlot * static_cast<std::size_t>(comm.ranks().world_size), '\0');
  const dgx_comm_api* api = comm.api();
  json::Array facts;
  if (api->all_gather(api->ctx, text.data(), all.data(), kSlot, DGX_DTYPE_UINT8, nullptr) != DGX_OK) {
    return facts;
  }
  for (int rank = 0; rank < comm.ranks().world_size; ++rank) {
    const char* slot = all.data() + static_cast<std::size_t>(rank) * kSlot;
    try {
      facts.push_back(json::parse(std::string(slot, strnlen(slot, kSlot))));
    } catch (const std::exception&) {
      facts.emplace_back();  // null: this rank's facts did not parse
    }
  }
  return facts;
}

json::Object dgxhost_json() {
  json::Object self = dgxhost_identity();
  self.set("build_type", build_info::build_type());
  self.set("abi", abi_version_string(kHostAbiMin) + "-" + abi_version_string(kHostAbiMax));
  return self;
}

json::Object ranks_json(const HostComm& comm) {
  const RankInfo& r = comm.ranks();
  json::Object ranks;
  ranks.set("rank", r.rank);
  ranks.set("world_size", r.world_size);
  ranks.set("local_rank", r.local_rank);
  ranks.set("launcher", r.launcher);
  ranks.set("transport", comm.name());
  return ranks;
}

json::Object plugin_json(const LoadedPlugin& p) {
  json::Object plugin;
  plugin.set("name", p.name);
  plugin.set("version", p.version);
  plugin.set("vendor", p.vendor);
  plugin.set("abi", abi_version_string(p.abi_version));
  plugin.set("file", p.file.string());
  return plugin;
}

}  // namespace

json::Object run_context(const ContextSources& sources, const RunFacts& run, bool gather) {
  json::Object c;
  c.set("dgxhost", dgxhost_json());
  c.set("time", utc_timestamp());
  c.set("host", host_info());
  const DeviceReport devices = probe_devices(sources.registry, sources.probe_host, sources.logger);
  c.set("gpus", devices.gpus_json());
  c.set("gpu_summary", devices.summary());
  c.set("software", devices.software);
  c.set("ranks", ranks_json(sources.comm));
  if (sources.comm.ranks().world_size > 1 && gather) {
    c.set("nodes", gather_rank_facts(sources.comm, devices.summary()));
  }
  c.set("argv", json::Array(run.argv.begin(), run.argv.end()));
  c.set("plugin", plugin_json(*run.target.plugin));
  c.set("workload", run.target.workload->name);
  c.set("preset", run.target.preset != nullptr ? json::Value(run.target.preset->name) : json::Value());
  c.set("requested_mode", std::string(run.requested_mode));
  c.set("mode", std::string(mode_name(run.mode)));
  c.set("config", run.config.to_json());
  c.set("config_sources", run.config.sources_to_json());
  const auto overrides = run.config.overrides();
  c.set("config_overrides", json::Array(overrides.begin(), overrides.end()));
  return c;
}

json::Object failure_context(const std::vector<std::string>& argv) {
  json::Object c;
  c.set("dgxhost", dgxhost_json());
  c.set("time", utc_timestamp());
  c.set("argv", json::Array(argv.begin(), argv.end()));
  return c;
}

std::string utc_timestamp() { return iso_utc_now(); }

}  // namespace dgx
