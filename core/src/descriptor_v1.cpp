// The adapter for ABI 1.x: reads a dgx_plugin_desc of <dgx/abi/v1.h> into the host's types, checking every
// struct_size, pointer and enumeration on the way (open_plugin has already checked the version).
#include <cctype>
#include <cstring>

#include <dgx/sdk/error.hpp>

#include "dgx/core/descriptor.hpp"
#include "dgx/core/text.hpp"
#include "strided.hpp"

namespace dgx {

namespace {

Failure reject(std::string reason) { return {ExitCode::no_plugin, std::move(reason)}; }

// "expected ... found ..." for a struct that is too short.
std::optional<std::string> check_size(const char* what, std::uint32_t found, std::size_t required) {
  if (found >= required) return std::nullopt;
  return std::string(what) + " is " + std::to_string(found) + " bytes (struct_size), ABI " +
         abi_version_string(DGX_ABI_V1_0) + " requires at least " + std::to_string(required);
}

std::optional<dgx_param_type> valid_param_type(dgx_param_type type) {
  if (type >= DGX_PARAM_BOOL && type <= DGX_PARAM_STRING_LIST) return type;
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

std::string str(const char* s) { return s != nullptr ? s : ""; }

Expected<ParamSpec> read_param(const dgx_param_desc& p, const std::string& where) {
  if (p.key == nullptr || *p.key == '\0') return reject(where + " has no key (expected a dotted name, found NULL)");
  const std::string here = where + " '" + p.key + "'";
  if (!valid_param_type(p.type)) return reject(here + " has type " + std::to_string(p.type) + " (expected 1-7)");
  ParamSpec spec;
  spec.key = p.key;
  spec.type = to_param_type(p.type);
  spec.help = str(p.help);
  spec.unit = str(p.unit);
  spec.required = (p.flags & DGX_PARAM_REQUIRED) != 0;
  if (p.alias != nullptr && *p.alias != '\0') {
    if (std::strlen(p.alias) != 1 || std::isalpha(static_cast<unsigned char>(*p.alias)) == 0)
      return reject(here + " has alias '" + p.alias + "' (expected one letter)");
    spec.alias = p.alias;
  }
  if (p.choices != nullptr && *p.choices != '\0') spec.choices = text::split(p.choices, '|');
  if (p.default_value != nullptr) {
    // A default that does not parse or does not fit the type is the plugin's bug: reject it now, not mid-run.
    auto literal = parse_toml_value(p.default_value);
    if (!literal) return reject(here + " has an invalid default: " + literal.error().message);
    auto value = coerce(spec, ConfigEntry{spec.key, literal.value(), {"default", {}, 0, 0, {}}, {}});
    if (!value) return reject(here + ": default does not fit: " + value.error().message);
    spec.default_value = std::move(value.value());
  }
  return spec;
}

Expected<WorkloadInfo> read_workload(const dgx_workload_desc& w, std::uint32_t index) {
  const std::string where = "workload " + std::to_string(index);
  if (auto problem = check_size(("descriptor of " + where).c_str(), w.struct_size, sizeof(dgx_workload_desc)))
    return reject(*problem);
  if (w.name == nullptr || *w.name == '\0') return reject(where + " has no name (found NULL)");
  const std::string named = "workload '" + std::string(w.name) + "'";
  struct Required {
    const char* name;
    bool missing;
  };
  const bool measures = (w.modes & DGX_MODE_BIT(DGX_MODE_MEASURE)) != 0;
  const bool projects = (w.modes & (DGX_MODE_BIT(DGX_MODE_PROJECT) | DGX_MODE_BIT(DGX_MODE_EXPLORE))) != 0;
  for (const Required& r : {Required{"create", w.create == nullptr}, Required{"destroy", w.destroy == nullptr},
                            Required{"run (it declares measure mode)", measures && w.run == nullptr},
                            Required{"project (it declares project/explore mode)", projects && w.project == nullptr}})
    if (r.missing) return reject(named + ": required function " + r.name + " is NULL (expected a function pointer)");
  if (w.modes == 0) return reject(named + " declares no modes (expected measure, project and/or explore)");

  WorkloadInfo info;
  info.name = w.name;
  info.kind = w.kind;
  info.summary = str(w.summary);
  info.modes = w.modes;
  info.desc = &w;
  for (std::uint32_t i = 0; i < w.precision_count; ++i) {
    const dgx_precision_props props = dgx_precision_properties(w.precisions[i]);
    info.precisions.push_back(props.name != nullptr ? props.name : "precision#" + std::to_string(w.precisions[i]));
  }
  for (std::uint32_t i = 0; i < w.param_count; ++i) {
    const dgx_param_desc& p = detail::strided_element(w.params, i);
    if (auto problem =
            check_size((named + " parameter " + std::to_string(i)).c_str(), p.struct_size, sizeof(dgx_param_desc)))
      return reject(*problem);
    auto spec = read_param(p, named + " parameter");
    if (!spec) return spec.error();
    info.params.push_back(std::move(spec.value()));
  }
  return info;
}

Expected<LoadedPlugin> read_descriptor(const dgx_plugin_desc& d, dgx_status entry_status) {
  if (auto problem = check_size("plugin descriptor", d.struct_size, sizeof(dgx_plugin_desc))) return reject(*problem);
  if (entry_status != DGX_OK)
    return reject("dgx_plugin_entry returned " + sdk::status_symbol(entry_status) + " (expected DGX_OK)");
  if (d.name == nullptr || *d.name == '\0') return reject("plugin descriptor has no name (found NULL)");

  LoadedPlugin plugin;
  plugin.name = d.name;
  plugin.version = str(d.version);
  plugin.vendor = str(d.vendor);
  plugin.description = str(d.description);
  plugin.abi_version = d.abi_version;
  plugin.desc = &d;
  for (std::uint32_t i = 0; i < d.workload_count; ++i) {
    auto workload = read_workload(detail::strided_element(d.workloads, i), i);
    if (!workload) return workload.error();
    plugin.workloads.push_back(std::move(workload.value()));
  }
  for (std::uint32_t i = 0; i < d.preset_count; ++i) {
    const dgx_preset_desc& p = detail::strided_element(d.presets, i);
    if (auto problem = check_size("preset descriptor", p.struct_size, sizeof(dgx_preset_desc))) return reject(*problem);
    if (p.name == nullptr || p.workload == nullptr || p.config_toml == nullptr)
      return reject("preset " + std::to_string(i) + " lacks a name, workload or config (found NULL)");
    if (plugin.find_workload(p.workload) == nullptr)
      return reject("preset '" + std::string(p.name) + "' names workload '" + p.workload +
                    "', which this plugin does not offer");
    plugin.presets.push_back({p.name, p.workload, str(p.summary), p.config_toml, {}});
  }
  return plugin;
}

}  // namespace

Expected<LoadedPlugin> lift_descriptor_v1(const OpenedPlugin& opened) {
  auto plugin = read_descriptor(*static_cast<const dgx_plugin_desc*>(opened.descriptor), opened.entry_status);
  if (plugin) plugin->file = opened.file;
  return plugin;
}

}  // namespace dgx
