#include "dgx/core/plugin/plugin_loader.hpp"

#include <array>

#include <dgx/sdk/error.hpp>

#include "dgx/core/plugin/call_guard.hpp"
#include "dgx/core/plugin/descriptor_adapter.hpp"
#include "dgx/core/plugin/plugin_probe.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

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
  for (const dgx_mode mode : {DGX_MODE_MEASURE, DGX_MODE_PROJECT, DGX_MODE_EXPLORE}) {
    if (supports(mode)) {
      names.emplace_back(mode_name(mode));
    }
  }
  return text::join(names, ", ");
}

const WorkloadInfo* LoadedPlugin::find_workload(std::string_view workload_name) const {
  for (const WorkloadInfo& w : workloads) {
    if (w.name == workload_name) {
      return &w;
    }
  }
  return nullptr;
}

namespace {

// A v1 plugin's optional init(): called once after loading, with the services for init and probe.
std::optional<Failure> call_init(const LoadedPlugin& plugin, const dgx_host_api* host,
                                 const detail::LoadRecovery& recovery) {
  if (plugin.desc->init == nullptr) {
    return std::nullopt;
  }
  std::array<char, 1024> message{};
  dgx_error error{sizeof(dgx_error), static_cast<std::uint32_t>(message.size()), message.data()};
  dgx_status status = DGX_OK;
  {
    const CallGuard guard(plugin.file.string() + ": init()", recovery);
    status = plugin.desc->init(host, &error);
  }
  if (status == DGX_OK) {
    return std::nullopt;
  }
  return plugin_failure("init failed with " + sdk::status_symbol(status) +
                        " (expected DGX_OK): " + (message[0] != '\0' ? message.data() : "no message"));
}

}  // namespace

Expected<std::unique_ptr<LoadedPlugin>> load_checked_plugin(const CheckedFile& file, const LoadOptions& options,
                                                            const detail::LoadRecovery& recovery) {
  auto opened = open_plugin(file, recovery);
  if (!opened) {
    return opened.error();
  }
  const std::uint32_t major = DGX_ABI_VERSION_MAJOR(opened->abi_version);
  const DescriptorAdapter adapter = descriptor_adapter(major);
  if (adapter == nullptr) {  // open_plugin accepts only versions this host speaks: a missing adapter is our bug
    return plugin_failure("ABI major version " + std::to_string(major) +
                          " has no adapter in this dgxhost (internal error)");
  }
  Expected<LoadedPlugin> plugin = Failure{};
  {
    const CallGuard guard(file.file.string() + ": reading its descriptor", recovery);  // the plugin's memory
    plugin = adapter(opened.value());
  }
  if (!plugin) {
    return plugin.error();
  }
  if (auto failure = call_init(plugin.value(), options.init_host, recovery)) {
    return *failure;
  }
  auto owned = std::make_unique<LoadedPlugin>(std::move(plugin.value()));
  for (WorkloadInfo& w : owned->workloads) {
    w.plugin = owned.get();
  }
  for (FormatInfo& f : owned->formats) {
    f.plugin = owned.get();
  }
  return owned;
}

Expected<std::unique_ptr<LoadedPlugin>> load_plugin(const std::filesystem::path& file, const LoadOptions& options) {
  auto checked = check_plugin_file(file, options.allow_insecure);  // before any of its code runs
  if (!checked) {
    return checked.error();
  }
  if (!options.probe) {
    return load_checked_plugin(checked.value(), options);
  }
  ProbeVerdict verdict = probe_plugin(checked.value(), options);
  if (verdict.rejection) {
    return plugin_failure(*verdict.rejection);
  }
  return load_checked_plugin(checked.value(), options, verdict.recovery);
}

}  // namespace dgx
