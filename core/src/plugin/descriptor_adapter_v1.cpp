// The adapter for ABI 1.x: reads a dgx_plugin_desc of <dgx/abi/v1.h> into the host's types, checking every
// struct_size, pointer, count, name and enumeration on the way (open_plugin has already checked the version).
// Text a plugin hands over is made printable here (printable.hpp), so no reporter prints an escape sequence.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <set>

#include <dgx/sdk/error.hpp>

#include "descriptor_checks.hpp"
#include "descriptor_declarations_v1.hpp"
#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/plugin/descriptor_adapter.hpp"
#include "dgx/core/plugin/detail/strided.hpp"
#include "dgx/core/support/printable.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

// Counts beyond these are garbage, not a plugin: reading them would walk off into memory.
constexpr std::uint32_t kMaxWorkloads = 1024;
constexpr std::uint32_t kMaxParams = 4096;
constexpr std::uint32_t kMaxPrecisions = 64;
constexpr std::uint32_t kMaxPresets = 4096;

using detail::check_array;
using detail::check_size;
using detail::shown;

// ABI 1.0's dgx_workload_desc ended where 1.1 appended the declarations of the rows (abi/v1.h).
constexpr std::size_t kWorkloadDescV1_0 = offsetof(dgx_workload_desc, metric_descs);
// ABI 1.0 and 1.1's dgx_plugin_desc ended where 1.2 appended the formats.
constexpr std::size_t kPluginDescV1_1 = offsetof(dgx_plugin_desc, formats);
constexpr std::uint32_t kMaxFormats = 256;

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// Plugin names (abi/v1.h): lower case, digits, '-' and '_'; users type them, and ':' separates plugin:workload.
bool valid_plugin_name(std::string_view n) {
  return !n.empty() && n.size() <= 64 && is_lower_alnum(n.front()) &&
         std::all_of(n.begin(), n.end(), [](char c) { return is_lower_alnum(c) || c == '-' || c == '_'; });
}

// Workload and preset names: what users type after --plugin ("all_reduce", "h100-gemm.v2").
bool valid_workload_name(std::string_view n) {
  return !n.empty() && n.size() <= 128 && is_alnum(n.front()) &&
         std::all_of(n.begin(), n.end(), [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::optional<dgx_param_type> valid_param_type(dgx_param_type type) {
  if (type >= DGX_PARAM_BOOL && type <= DGX_PARAM_STRING_LIST) {
    return type;
  }
  return std::nullopt;
}

ParamType to_param_type(dgx_param_type type) {
  switch (type) {
  case DGX_PARAM_BOOL: return ParamType::boolean;
  case DGX_PARAM_INT: return ParamType::integer;
  case DGX_PARAM_FLOAT: return ParamType::floating;
  case DGX_PARAM_INT_LIST: return ParamType::int_list;
  case DGX_PARAM_FLOAT_LIST: return ParamType::float_list;
  case DGX_PARAM_STRING_LIST: return ParamType::string_list;
  default: return ParamType::string;
  }
}

// runner.* keys are the host's: a workload may give one another default (a collective sweep wants fewer samples),
// but not another type (the runner reads runner.batch as an integer) nor invent one.
std::optional<std::string> check_runner_key(const ParamSpec& spec, const std::string& here) {
  if (!text::starts_with(spec.key, "runner.")) {
    return std::nullopt;
  }
  for (const ParamSpec& host : RunnerSettings::params()) {
    if (host.key == spec.key) {
      if (host.type == spec.type) {
        return std::nullopt;
      }
      return here + " has type " + std::string(to_string(spec.type)) + ", but " + spec.key +
             " is the host's runner setting of type " + std::string(to_string(host.type)) +
             " (a workload may change its default, not its type)";
    }
  }
  return here + ": runner.* keys belong to the host, and it has no " + spec.key +
         " (dgxhost --plugin NAME --describe lists them)";
}

Expected<ParamSpec> read_param(const dgx_param_desc& p, const std::string& where) {
  if (p.key == nullptr || *p.key == '\0') {
    return plugin_failure(where + " has no key (expected a dotted name, found NULL)");
  }
  const std::string here = where + " " + shown(p.key);
  if (!valid_config_key(p.key)) {
    return plugin_failure(here + " is not a config key (expected letters, digits, '_', '-', separated by dots)");
  }
  if (!valid_param_type(p.type)) {
    return plugin_failure(here + " has type " + std::to_string(p.type) + " (expected 1-7)");
  }
  ParamSpec spec;
  spec.key = p.key;
  spec.type = to_param_type(p.type);
  spec.help = printable(p.help);
  spec.unit = printable(p.unit);
  spec.required = (p.flags & DGX_PARAM_REQUIRED) != 0;
  if (p.alias != nullptr && *p.alias != '\0') {
    if (std::strlen(p.alias) != 1 || std::isalpha(static_cast<unsigned char>(*p.alias)) == 0) {
      return plugin_failure(here + " has alias " + shown(p.alias) + " (expected one letter)");
    }
    spec.alias = p.alias;
  }
  if (p.choices != nullptr && *p.choices != '\0') {
    // abi/v1.h: choices are for STRING and STRING_LIST; on a number they would be compared as text to nothing.
    if (p.type != DGX_PARAM_STRING && p.type != DGX_PARAM_STRING_LIST) {
      return plugin_failure(here + " of type " + std::string(to_string(spec.type)) + " has choices " +
                            shown(p.choices) + " (expected none: only string and string-list parameters take choices)");
    }
    spec.choices = text::split(printable(p.choices), '|');
  }
  if (auto problem = check_runner_key(spec, here)) {
    return plugin_failure(*problem);
  }
  if (p.default_value != nullptr) {
    // A default that does not parse or does not fit the type is the plugin's bug: reject it now, not mid-run.
    auto literal = parse_toml_value(printable(p.default_value));
    if (!literal) {
      return plugin_failure(here + " has an invalid default: " + literal.error().message);
    }
    auto value = coerce(spec, ConfigEntry{spec.key, literal.value(), {"default", {}, 0, 0, {}}, {}});
    if (!value) {
      return plugin_failure(here + ": default does not fit: " + value.error().message);
    }
    spec.default_value = std::move(value.value());
  }
  return spec;
}

std::optional<Failure> check_required_functions(const dgx_workload_desc& w, const std::string& named) {
  struct Required {
    const char* name;
    bool missing;
  };
  const bool measures = (w.modes & DGX_MODE_BIT(DGX_MODE_MEASURE)) != 0;
  const bool projects = (w.modes & (DGX_MODE_BIT(DGX_MODE_PROJECT) | DGX_MODE_BIT(DGX_MODE_EXPLORE))) != 0;
  for (const Required& r : {Required{"create", w.create == nullptr}, Required{"destroy", w.destroy == nullptr},
                            Required{"run (it declares measure mode)", measures && w.run == nullptr},
                            Required{"project (it declares project/explore mode)", projects && w.project == nullptr}}) {
    if (r.missing) {
      return plugin_failure(named + ": required function " + r.name + " is NULL (expected a function pointer)");
    }
  }
  const std::uint32_t known =
      DGX_MODE_BIT(DGX_MODE_MEASURE) | DGX_MODE_BIT(DGX_MODE_PROJECT) | DGX_MODE_BIT(DGX_MODE_EXPLORE);
  if (w.modes == 0 || (w.modes & ~known) != 0) {
    return plugin_failure(named + " declares modes " + std::to_string(w.modes) +
                          " (expected measure, project and/or explore)");
  }
  return std::nullopt;
}

std::optional<Failure> read_params(const dgx_workload_desc& w, const std::string& named, WorkloadInfo& info) {
  if (auto problem = check_array(named + " parameter", w.params, w.param_count, kMaxParams)) {
    return plugin_failure(*problem);
  }
  std::set<std::string> keys;
  for (std::uint32_t i = 0; i < w.param_count; ++i) {
    if (auto problem = check_size<dgx_param_desc>(named + " parameter " + std::to_string(i), w.params->struct_size)) {
      return plugin_failure(*problem);
    }
    auto spec = read_param(detail::strided_element(w.params, i), named + " parameter");
    if (!spec) {
      return spec.error();
    }
    if (!keys.insert(spec->key).second) {
      return plugin_failure(named + " declares parameter '" + spec->key + "' twice (expected unique keys)");
    }
    info.params.push_back(std::move(spec.value()));
  }
  return std::nullopt;
}

Expected<WorkloadInfo> read_workload(const dgx_workload_desc& w, std::uint32_t index) {
  const std::string where = "workload " + std::to_string(index);
  if (w.name == nullptr || *w.name == '\0') {
    return plugin_failure(where + " has no name (found NULL)");
  }
  if (!valid_workload_name(w.name)) {
    return plugin_failure(where + " is named " + shown(w.name) +
                          " (expected letters, digits, '-', '_' or '.', starting with a letter or digit)");
  }
  const std::string named = "workload '" + std::string(w.name) + "'";
  if (auto failure = check_required_functions(w, named)) {
    return *failure;
  }
  if (auto problem = check_array(named + " precision", w.precisions, w.precision_count, kMaxPrecisions)) {
    return plugin_failure(*problem);
  }

  WorkloadInfo info;
  info.name = w.name;
  info.kind = w.kind;
  info.summary = printable(w.summary);
  info.modes = w.modes;
  info.desc = &w;
  for (std::uint32_t i = 0; i < w.precision_count; ++i) {
    const dgx_precision_props props = dgx_precision_properties(w.precisions[i]);
    info.precisions.push_back(props.name != nullptr ? props.name : "precision#" + std::to_string(w.precisions[i]));
  }
  if (auto failure = read_params(w, named, info)) {
    return *failure;
  }
  if (auto failure = detail::read_declarations_v1(w, named, info)) {
    return *failure;
  }
  return info;
}

std::optional<Failure> read_workloads(const dgx_plugin_desc& d, LoadedPlugin& plugin) {
  if (auto problem = check_array("workload", d.workloads, d.workload_count, kMaxWorkloads)) {
    return plugin_failure(*problem);
  }
  if (d.workload_count > 0) {
    if (auto problem =
            check_size<dgx_workload_desc>("workload descriptor", d.workloads->struct_size, kWorkloadDescV1_0)) {
      return plugin_failure(*problem);
    }
  }
  for (std::uint32_t i = 0; i < d.workload_count; ++i) {
    auto workload = read_workload(detail::strided_element(d.workloads, i), i);
    if (!workload) {
      return workload.error();
    }
    if (plugin.find_workload(workload->name) != nullptr) {
      return plugin_failure("workload '" + workload->name + "' is declared twice (expected unique names)");
    }
    workload->declarations.plugin = plugin.name;
    plugin.workloads.push_back(std::move(workload.value()));
  }
  return std::nullopt;
}

std::optional<Failure> read_presets(const dgx_plugin_desc& d, LoadedPlugin& plugin) {
  if (auto problem = check_array("preset", d.presets, d.preset_count, kMaxPresets)) {
    return plugin_failure(*problem);
  }
  if (d.preset_count > 0) {
    if (auto problem = check_size<dgx_preset_desc>("preset descriptor", d.presets->struct_size)) {
      return plugin_failure(*problem);
    }
  }
  for (std::uint32_t i = 0; i < d.preset_count; ++i) {
    const dgx_preset_desc& p = detail::strided_element(d.presets, i);
    if (p.name == nullptr || p.workload == nullptr || p.config_toml == nullptr) {
      return plugin_failure("preset " + std::to_string(i) + " lacks a name, workload or config (found NULL)");
    }
    if (!valid_workload_name(p.name)) {
      return plugin_failure("preset " + std::to_string(i) + " is named " + shown(p.name) +
                            " (expected letters, digits, '-', '_' or '.')");
    }
    if (plugin.find_workload(p.workload) == nullptr) {
      return plugin_failure("preset '" + std::string(p.name) + "' names workload " + shown(p.workload) +
                            ", which this plugin does not offer");
    }
    if (std::any_of(plugin.presets.begin(), plugin.presets.end(),
                    [&](const PresetInfo& q) { return q.name == p.name; })) {
      return plugin_failure("preset '" + std::string(p.name) + "' is declared twice (expected unique names)");
    }
    plugin.presets.push_back({p.name, p.workload, printable(p.summary), p.config_toml, {}});
  }
  return std::nullopt;
}

// Format names are what users see in messages and docs: lower case, digits, '-'.
bool valid_format_name(std::string_view n) {
  return !n.empty() && n.size() <= 64 && is_lower_alnum(n.front()) &&
         std::all_of(n.begin(), n.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
}

std::optional<Failure> read_formats(const dgx_plugin_desc& d, LoadedPlugin& plugin) {
  if (d.struct_size < offsetof(dgx_plugin_desc, format_count) + sizeof d.format_count) {
    return std::nullopt;  // ABI 1.0 or 1.1: reads no format
  }
  if (auto problem = check_array("format", d.formats, d.format_count, kMaxFormats)) {
    return plugin_failure(*problem);
  }
  if (d.format_count > 0) {
    if (auto problem = check_size<dgx_format_desc>("format descriptor", d.formats->struct_size)) {
      return plugin_failure(*problem);
    }
  }
  for (std::uint32_t i = 0; i < d.format_count; ++i) {
    const dgx_format_desc& f = detail::strided_element(d.formats, i);
    if (f.name == nullptr || f.probe == nullptr || f.read == nullptr) {
      return plugin_failure("format " + std::to_string(i) + " lacks a name, probe or read (found NULL)");
    }
    if (!valid_format_name(f.name)) {
      return plugin_failure("format " + std::to_string(i) + " is named " + shown(f.name) +
                            " (expected lower case letters, digits and '-', at most 64)");
    }
    if (std::any_of(plugin.formats.begin(), plugin.formats.end(),
                    [&](const FormatInfo& g) { return g.name == f.name; })) {
      return plugin_failure("format '" + std::string(f.name) + "' is declared twice (expected unique names)");
    }
    plugin.formats.push_back({f.name, printable(f.summary), &f, nullptr});
  }
  return std::nullopt;
}

Expected<LoadedPlugin> read_descriptor(const dgx_plugin_desc& d, dgx_status entry_status) {
  if (auto problem = check_size<dgx_plugin_desc>("plugin descriptor", d.struct_size, kPluginDescV1_1)) {
    return plugin_failure(*problem);
  }
  if (entry_status != DGX_OK) {
    return plugin_failure("dgx_plugin_entry returned " + sdk::status_symbol(entry_status) + " (expected DGX_OK)");
  }
  if (d.name == nullptr || *d.name == '\0') {
    return plugin_failure("plugin descriptor has no name (found NULL)");
  }
  if (!valid_plugin_name(d.name)) {
    return plugin_failure("plugin is named " + shown(d.name) +
                          " (expected lower case letters, digits, '-' and '_', at most 64, as abi/v1.h says)");
  }

  LoadedPlugin plugin;
  plugin.name = d.name;
  plugin.version = printable(d.version);
  plugin.vendor = printable(d.vendor);
  plugin.description = printable(d.description);
  plugin.abi_version = d.abi_version;
  plugin.desc = &d;
  if (auto failure = read_workloads(d, plugin)) {
    return *failure;
  }
  if (auto failure = read_presets(d, plugin)) {
    return *failure;
  }
  if (auto failure = read_formats(d, plugin)) {
    return *failure;
  }
  return plugin;
}

}  // namespace

Expected<LoadedPlugin> lift_descriptor_v1(const OpenedPlugin& opened) {
  auto plugin = read_descriptor(*static_cast<const dgx_plugin_desc*>(opened.descriptor), opened.entry_status);
  if (plugin) {
    plugin->file = opened.file;
  }
  return plugin;
}

}  // namespace dgx
