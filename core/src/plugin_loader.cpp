#include "dgx/core/plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <boost/dll/shared_library.hpp>
#include <dgx/sdk/error.hpp>

#include "dgx/core/build_info.hpp"
#include "dgx/core/text.hpp"
#include "strided.hpp"

namespace dgx {

std::string abi_version_string(std::uint32_t version) {
  return std::to_string(DGX_ABI_VERSION_MAJOR(version)) + "." + std::to_string(DGX_ABI_VERSION_MINOR(version));
}

std::string_view kind_name(dgx_workload_kind kind) {
  switch (kind) {
  case DGX_KIND_PRETRAIN: return "pretrain";
  case DGX_KIND_FINETUNE: return "finetune";
  case DGX_KIND_INFERENCE: return "inference";
  case DGX_KIND_COMM: return "comm";
  case DGX_KIND_MICRO: return "micro";
  default: return "unknown";
  }
}

std::string_view mode_name(dgx_mode mode) {
  switch (mode) {
  case DGX_MODE_MEASURE: return "measure";
  case DGX_MODE_PROJECT: return "project";
  case DGX_MODE_EXPLORE: return "explore";
  default: return "unknown";
  }
}

std::string WorkloadInfo::mode_list() const {
  std::vector<std::string> names;
  for (const dgx_mode mode : {DGX_MODE_MEASURE, DGX_MODE_PROJECT, DGX_MODE_EXPLORE})
    if (supports(mode)) names.emplace_back(mode_name(mode));
  return text::join(names, ", ");
}

const WorkloadInfo* LoadedPlugin::find_workload(std::string_view workload_name) const {
  for (const WorkloadInfo& w : workloads)
    if (w.name == workload_name) return &w;
  return nullptr;
}

namespace {

Failure reject(std::string reason) { return {ExitCode::no_plugin, std::move(reason)}; }

// Libraries stay loaded until the process exits: code or data a plugin handed out may still be referenced, and
// unloading C++ libraries with static state is a classic source of crashes at exit. The vector is leaked on
// purpose so that nothing runs dlclose before exit.
std::vector<boost::dll::shared_library>& retained_libraries() {
  static auto* libraries = new std::vector<boost::dll::shared_library>();
  return *libraries;
}

std::string octal_mode(mode_t mode) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%04o", static_cast<unsigned>(mode & 07777));
  return buffer;
}

// "expected ... found ..." for a struct that is too short.
std::optional<std::string> check_size(const char* what, std::uint32_t found, std::size_t required) {
  if (found >= required) return std::nullopt;
  return std::string(what) + " is " + std::to_string(found) + " bytes (struct_size), ABI " +
         abi_version_string(DGX_ABI_V1_0) + " requires at least " + std::to_string(required);
}

std::string describe_non_elf(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 16> head{};
  in.read(head.data(), head.size());
  const auto n = static_cast<std::size_t>(in.gcount());
  if (n == 0) return "an empty file";
  std::string printable;
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i)
    printable += (head[i] >= 0x20 && head[i] < 0x7f) ? head[i] : '.';
  return "a file starting with \"" + printable + "\"";
}

bool is_elf(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
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
  // The version lives at a fixed offset in every ABI: check it before anything whose layout may differ.
  if (d.struct_size >= offsetof(dgx_plugin_desc, abi_version) + sizeof(std::uint32_t) &&
      (d.abi_version < kHostAbiMin || d.abi_version > kHostAbiMax || entry_status == DGX_ERR_VERSION))
    return reject("implements plugin ABI " + abi_version_string(d.abi_version) + ", this dgxhost speaks ABI " +
                  abi_version_string(kHostAbiMin) + "-" + abi_version_string(kHostAbiMax));
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

std::string insecure_permissions(const std::filesystem::path& file) {
  for (const std::filesystem::path& path :
       {file, file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path()}) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      const bool is_dir = S_ISDIR(st.st_mode);
      return std::string(is_dir ? "its directory " + path.string() : "the file") +
             " is writable by group or others (mode " + octal_mode(st.st_mode) +
             "; expected no group/other write permission): refused; fix with 'chmod go-w " + path.string() +
             "' or pass --allow-insecure-plugins";
    }
  }
  return {};
}

Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return reject("not a regular file (expected a shared library)");
  if (!options.allow_insecure) {
    if (std::string problem = insecure_permissions(file); !problem.empty()) return reject(problem);
  }
  if (!is_elf(file))
    return reject("not a shared library: expected an ELF shared object, found " + describe_non_elf(file));

  boost::dll::shared_library library;
  boost::dll::fs::error_code load_error;
  library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, load_error);
  if (load_error) {
    const char* reason = ::dlerror();  // Boost.DLL keeps only a generic code; the loader's reason is better
    return reject("cannot be loaded: " + (reason != nullptr ? std::string(reason) : load_error.message()));
  }
  retained_libraries().push_back(library);

  if (!library.has(DGX_PLUGIN_ENTRY_SYMBOL))
    return reject(std::string("no entry symbol '") + DGX_PLUGIN_ENTRY_SYMBOL +
                  "' (expected a dgx plugin: DGX_PLUGIN(...) in C++, or an exported dgx_plugin_entry in C)");
  auto& entry = library.get<std::remove_pointer_t<dgx_plugin_entry_fn>>(DGX_PLUGIN_ENTRY_SYMBOL);

  const dgx_host_offer offer{sizeof(dgx_host_offer), kHostAbiMin, kHostAbiMax, "dgxhost", build_info::version()};
  const dgx_plugin_desc* desc = nullptr;
  const dgx_status status = entry(&offer, &desc);
  if (desc == nullptr)
    return reject("dgx_plugin_entry returned no descriptor and " + sdk::status_symbol(status) +
                  " (expected DGX_OK and a descriptor)");

  auto plugin = read_descriptor(*desc, status);
  if (!plugin) return plugin.error();
  plugin->file = file;

  if (desc->init != nullptr) {
    std::array<char, 1024> message{};
    dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
    const dgx_status init_status = desc->init(options.init_host, &error);
    if (init_status != DGX_OK)
      return reject("init failed with " + sdk::status_symbol(init_status) +
                    " (expected DGX_OK): " + (message[0] != '\0' ? message.data() : "no message"));
  }
  auto owned = std::make_unique<LoadedPlugin>(std::move(plugin.value()));
  for (WorkloadInfo& w : owned->workloads) w.plugin = owned.get();
  return owned;
}

}  // namespace dgx
