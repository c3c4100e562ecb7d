// The descriptor reader: a dgx_plugin_desc (<dgx/abi/v1.h>) built from the input, with its workloads,
// parameters, precisions and presets, lifted by the ABI 1 adapter (descriptor_adapter_v1.cpp) as load_plugin would;
// when it is accepted, what the host then does with it (each workload's schema, its presets' configurations,
// --describe) runs too. The adapter must accept or reject with a message, never crash, whatever the fields hold.
//
// The input is text, one field a line, so the seeds in corpus/descriptor/ are readable; fields the input runs out
// of are 0 or empty. "~" is a NULL pointer, "=" a struct_size equal to the host's sizeof, "\\n" in a string a line
// break. Layout:
//   plugin: struct_size, abi_version, entry_status, name, version, vendor, description,
//           workload count, [workload struct_size, then per workload:
//             name, kind, summary, modes, functions (bits: 1 create, 2 destroy, 4 run, 8 project),
//             precision count, precisions..., param count, [param struct_size, then per param:
//               key, type, default, help, choices, unit, flags, alias]],
//           preset count, [preset struct_size, then per preset: name, workload, summary, config]
// A count of "~" claims the next number as the count of a NULL array. Arrays hold at most kMaxElements (the
// harness cannot hand over more memory than it allocates; the host's own limits are checked through NULL arrays).
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/plugin/descriptor_adapter.hpp"
#include "dgx/core/plugin/plugin_registry.hpp"
#include "dgx/core/report/listing.hpp"
#include "dgx/core/run/run_layers.hpp"
#include "fuzz_check.hpp"

namespace {

constexpr std::uint32_t kMaxElements = 8;
constexpr std::uint32_t kMaxStride = 64 * 1024;  // the host rejects larger strides without reading past element 0

dgx_status fake_create(const dgx_workload_desc*, const dgx_host_api*, dgx_instance**, dgx_error*) { return DGX_OK; }
void fake_destroy(dgx_instance*) {}
dgx_status fake_run(dgx_instance*, const dgx_sample_request*, dgx_sample_result*, dgx_error*) { return DGX_OK; }
dgx_status fake_project(dgx_instance*, dgx_mode, dgx_error*) { return DGX_OK; }

// Fields of the input, one a line; owns every string and array the descriptor points to.
class Fields {
public:
  explicit Fields(std::string_view input) : rest_(input) {}

  std::string_view next() {
    if (rest_.empty()) {
      return {};
    }
    const std::size_t end = rest_.find('\n');
    const std::string_view field = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    return field;
  }

  std::uint32_t number() { return number(next()); }
  static std::uint32_t number(std::string_view field) {
    std::int64_t value = 0;
    std::from_chars(field.data(), field.data() + field.size(), value);
    return static_cast<std::uint32_t>(value);
  }

  // A NUL-terminated copy of the next field with "\\n" read as a line break (multi-line TOML), or NULL for "~".
  const char* text() {
    const std::string_view field = next();
    if (field == "~") {
      return nullptr;
    }
    std::string& s = strings_.emplace_back(field);
    for (std::size_t at = s.find("\\n"); at != std::string::npos; at = s.find("\\n", at + 1)) {
      s.replace(at, 2, "\n");
    }
    return s.c_str();
  }

  std::uint32_t struct_size(std::size_t host_size) {
    const std::string_view field = next();
    return field == "=" ? static_cast<std::uint32_t>(host_size) : number(field);
  }

  // A count and whether its array is NULL ("~" then the claimed count).
  std::pair<std::uint32_t, bool> count() {
    const std::string_view field = next();
    if (field == "~") {
      return {number(), true};
    }
    return {std::min(number(field), kMaxElements), false};
  }

  // Zeroed storage for `count` elements of `stride` bytes (at least sizeof(T) each, so element 0 is whole).
  template <typename T> T* array(std::uint32_t count, std::uint32_t stride) {
    const std::size_t step = stride >= sizeof(T) && stride <= kMaxStride ? stride : sizeof(T);
    std::vector<std::max_align_t>& block =
        blocks_.emplace_back((count * step + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
    return reinterpret_cast<T*>(block.data());
  }

  // Where the harness writes element `index`: at the stride when the host may read it there. A stride the host
  // must refuse (too short, too long, no multiple of alignof(T)) only ever has element 0 read, so the harness keeps
  // its own writes aligned and lays the others out at sizeof(T).
  template <typename T> static T& element(T* base, std::uint32_t index, std::uint32_t stride) {
    const bool readable = stride >= sizeof(T) && stride <= kMaxStride && stride % alignof(T) == 0;
    const std::size_t step = readable ? stride : sizeof(T);
    return *reinterpret_cast<T*>(reinterpret_cast<char*>(base) + index * step);
  }

private:
  std::string_view rest_;
  std::deque<std::string> strings_;
  std::deque<std::vector<std::max_align_t>> blocks_;
};

template <typename T> T* make_array(Fields& in, std::uint32_t& count_out, std::uint32_t& stride) {
  const auto [count, null] = in.count();
  count_out = count;
  if (null || count == 0) {
    return nullptr;
  }
  stride = in.struct_size(sizeof(T));
  T* base = in.array<T>(count, stride);
  for (std::uint32_t i = 0; i < count; ++i) {
    Fields::element(base, i, stride).struct_size = stride;
  }
  return base;
}

void read_param(Fields& in, dgx_param_desc& p) {
  p.key = in.text();
  p.type = static_cast<dgx_param_type>(in.number());
  p.default_value = in.text();
  p.help = in.text();
  p.choices = in.text();
  p.unit = in.text();
  p.flags = in.number();
  p.alias = in.text();
}

void read_workload(Fields& in, dgx_workload_desc& w) {
  w.name = in.text();
  w.kind = static_cast<dgx_workload_kind>(in.number());
  w.summary = in.text();
  w.modes = in.number();
  const std::uint32_t functions = in.number();
  if ((functions & 1u) != 0) {
    w.create = &fake_create;
  }
  if ((functions & 2u) != 0) {
    w.destroy = &fake_destroy;
  }
  if ((functions & 4u) != 0) {
    w.run = &fake_run;
  }
  if ((functions & 8u) != 0) {
    w.project = &fake_project;
  }
  const auto [precisions, null] = in.count();
  w.precision_count = precisions;
  if (!null && precisions > 0) {
    auto* array = in.array<dgx_precision>(precisions, sizeof(dgx_precision));
    for (std::uint32_t i = 0; i < precisions; ++i) {
      array[i] = static_cast<dgx_precision>(in.number());
    }
    w.precisions = array;
  }
  std::uint32_t stride = 0;
  auto* params = make_array<dgx_param_desc>(in, w.param_count, stride);
  w.params = params;
  for (std::uint32_t i = 0; params != nullptr && i < w.param_count; ++i) {
    read_param(in, Fields::element(params, i, stride));
  }
}

void read_preset(Fields& in, dgx_preset_desc& p) {
  p.name = in.text();
  p.workload = in.text();
  p.summary = in.text();
  p.config_toml = in.text();
}

// What the host does with a plugin it accepted: schemas, each preset's layers, --describe of every workload.
void use(dgx::LoadedPlugin& plugin) {
  for (dgx::WorkloadInfo& w : plugin.workloads) {
    w.plugin = &plugin;
  }
  for (const dgx::WorkloadInfo& w : plugin.workloads) {
    const std::vector<dgx::ParamSpec> schema = dgx::schema_for(w);
    const dgx::ConfigResolution resolution = dgx::resolve_config(schema, {});
    (void)dgx::describe_text({&plugin, &w, nullptr}, resolution.config);
    (void)dgx::json::write(dgx::describe_json({&plugin, &w, nullptr}, resolution.config));
  }
  for (const dgx::PresetInfo& preset : plugin.presets) {
    const dgx::WorkloadInfo* w = plugin.find_workload(preset.workload);
    auto layers = dgx::read_layers(dgx::CliOptions{}, &preset);
    dgx::fuzz::check_rejection(layers);
    if (w == nullptr || !layers) {
      continue;
    }
    std::vector<const dgx::ConfigLayer*> pointers;
    for (const dgx::ConfigLayer& layer : layers->storage) {
      pointers.push_back(&layer);
    }
    const std::vector<dgx::ParamSpec> schema = dgx::schema_for(*w);
    const dgx::ConfigResolution resolution = dgx::resolve_config(schema, pointers);
    if (resolution.errors.empty()) {
      (void)dgx::describe_text({&plugin, w, &preset}, resolution.config);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fields in(std::string_view(reinterpret_cast<const char*>(data), size));
  dgx_plugin_desc desc{};
  desc.struct_size = in.struct_size(sizeof(dgx_plugin_desc));
  desc.abi_version = in.number();
  const auto entry_status = static_cast<dgx_status>(in.number());
  desc.name = in.text();
  desc.version = in.text();
  desc.vendor = in.text();
  desc.description = in.text();

  std::uint32_t stride = 0;
  auto* workloads = make_array<dgx_workload_desc>(in, desc.workload_count, stride);
  desc.workloads = workloads;
  for (std::uint32_t i = 0; workloads != nullptr && i < desc.workload_count; ++i) {
    read_workload(in, Fields::element(workloads, i, stride));
  }
  auto* presets = make_array<dgx_preset_desc>(in, desc.preset_count, stride);
  desc.presets = presets;
  for (std::uint32_t i = 0; presets != nullptr && i < desc.preset_count; ++i) {
    read_preset(in, Fields::element(presets, i, stride));
  }

  const dgx::OpenedPlugin opened{"libdgx-fuzz.so", &desc, desc.struct_size, desc.abi_version, entry_status};
  auto plugin = dgx::lift_descriptor_v1(opened);
  dgx::fuzz::check_rejection(plugin);
  if (plugin) {
    use(plugin.value());
  }
  return 0;
}
