#include "dgx/core/context.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <ctime>
#include <fstream>
#include <map>

#include "dgx/core/text.hpp"

namespace dgx {

namespace {

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (!text::starts_with(line, "PRETTY_NAME=")) continue;
    std::string value = line.substr(12);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    return value;
  }
  return "unknown";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (!text::starts_with(line, "model name")) continue;
    const auto colon = line.find(':');
    if (colon != std::string::npos) return text::trim(line.substr(colon + 1));
  }
  return "unknown";
}

struct ProbeCollector {
  DeviceReport* report;
  std::string plugin;
};

void add_device(void* ctx, const dgx_device_info* d) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (d == nullptr || d->struct_size < sizeof(dgx_device_info)) return;
  auto str = [](const char* s) { return json::Value(s != nullptr ? s : ""); };
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
  for (const json::Value& existing : c->report->devices)
    if (d->uuid != nullptr && *d->uuid != '\0' && existing["uuid"] == json::Value(d->uuid)) return;
  c->report->devices.push_back(std::move(o));
}

void add_software(void* ctx, const char* component, const char* version) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (component == nullptr || version == nullptr) return;
  if (!c->report->software.contains(component)) c->report->software.set(component, version);
}

void set_status(void* ctx, const char* status) {
  auto* c = static_cast<ProbeCollector*>(ctx);
  if (status != nullptr) c->report->statuses.push_back(c->plugin + ": " + status);
}

}  // namespace

json::Object host_info() {
  json::Object o;
  std::array<char, 256> hostname{};
  if (gethostname(hostname.data(), hostname.size() - 1) == 0) o.set("hostname", hostname.data());
  o.set("os", os_pretty_name());
  struct utsname u {};
  if (uname(&u) == 0) o.set("kernel", std::string(u.sysname) + " " + u.release + " " + u.machine);
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
    if (!statuses.empty())
      status += ": " + text::join(statuses, "; ");
    else if (probed_by.empty())
      status += ": no loaded plugin can probe devices; the CUDA plugins are not built or not on the plugin path";
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
  for (const auto& [name, n] : counts) parts.push_back(std::to_string(n) + " x " + name);
  return text::join(parts, ", ");
}

DeviceReport probe_devices(const PluginRegistry& registry, const dgx_host_api* host, const Logger& logger) {
  DeviceReport report;
  for (const auto& plugin : registry.plugins()) {
    if (plugin->desc->probe == nullptr) continue;
    ProbeCollector collector{&report, plugin->name};
    const dgx_probe_sink sink{sizeof(dgx_probe_sink), &collector, &add_device, &add_software, &set_status};
    std::array<char, 1024> message{};
    dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
    report.probed_by.push_back(plugin->name);
    if (plugin->desc->probe(host, &sink, &error) != DGX_OK)
      logger.warn("device probe of plugin '" + plugin->name + "' failed: " + message.data());
  }
  return report;
}

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer.data();
}

}  // namespace dgx
