#include "dgx/catalog/framework.hpp"

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/toml_table.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace dgx::catalog {

namespace {

constexpr std::string_view kFolder = "frameworks";
/// Inheritance deeper than this is a cycle.
constexpr int kMaxInheritance = 16;

std::optional<FsdpKind> parse_fsdp(std::string_view text) {
  if (text == "megatron") {
    return FsdpKind::megatron;
  }
  if (text == "fsdp2") {
    return FsdpKind::fsdp2;
  }
  return std::nullopt;
}

std::optional<SelectivePolicy> parse_selective(std::string_view text) {
  if (text == "modules") {
    return SelectivePolicy::modules;
  }
  if (text == "every-other-matmul") {
    return SelectivePolicy::every_other_matmul;
  }
  return std::nullopt;
}

void read_software(const TomlTable& t, Software& s) {
  s.low_precision_params = t.boolean("low_precision_params", s.low_precision_params);
  if (t.contains("fsdp")) {
    s.fsdp = parse_enum(t, "fsdp", parse_fsdp, "megatron, fsdp2");
  }
  if (t.contains("selective_recompute")) {
    s.selective = parse_enum(t, "selective_recompute", parse_selective, "modules, every-other-matmul");
  }
  if (t.contains("elementwise_traffic")) {
    s.elementwise_traffic = bounded(t, "elementwise_traffic", 1, 10);
  }
  if (t.contains("grad_reduce_bytes")) {
    s.grad_reduce_bytes = bounded(t, "grad_reduce_bytes", 1, 4);
  }
  if (t.contains("fp8_weight_cast_bytes")) {
    s.fp8_weight_cast_bytes = bounded(t, "fp8_weight_cast_bytes", 0, 32);
  }
  s.fp8_amax_pass = t.boolean("fp8_amax_pass", s.fp8_amax_pass);
  s.fused_norm_cast = t.boolean("fused_norm_cast", s.fused_norm_cast);
  s.fp32_logits = t.boolean("fp32_logits", s.fp32_logits);
  if (t.contains("tp_overlap")) {
    s.tp_overlap.fill(bounded(t, "tp_overlap", 0, 1));
  }
  for (const Precision p : kAllPrecisions) {
    const std::string key = "tp_overlap_" + std::string(to_string(p));
    if (t.contains(key)) {
      s.tp_overlap[static_cast<std::size_t>(p)] = bounded(t, key, 0, 1);
    }
  }
  s.in_place_cross_entropy = t.boolean("in_place_cross_entropy", s.in_place_cross_entropy);
  if (t.contains("overlap_slowdown")) {
    s.overlap_slowdown = bounded(t, "overlap_slowdown", 0, 1);
  }
  if (t.contains("host_op_us")) {
    s.host_op_us = bounded(t, "host_op_us", 0, 1000);
  }
}

void read_capabilities(const TomlTable& t, Software& s) {
  s.expert_parallel = t.boolean("expert_parallel", s.expert_parallel);
  s.distributed_optimizer = t.boolean("distributed_optimizer", s.distributed_optimizer);
  s.activation_offload = t.boolean("activation_offload", s.activation_offload);
  s.block_scaled_formats = t.boolean("block_scaled_formats", s.block_scaled_formats);
  s.recompute_modules = t.boolean("recompute_modules", s.recompute_modules);
  s.ep_overlap = t.boolean("ep_overlap", s.ep_overlap);
}

void read_kernels(const TomlTable& t, KernelEfficiency& k) {
  for (const Precision p : kAllPrecisions) {
    const std::string key = "gemm_" + std::string(to_string(p));
    if (t.contains(key)) {
      k.gemm[static_cast<std::size_t>(p)] = bounded(t, key, 0.05, 1.5);
    }
  }
  if (t.contains("attention")) {
    k.attention = bounded(t, "attention", 0.05, 2);
  }
  if (t.contains("grouped_gemm")) {
    k.grouped_gemm = bounded(t, "grouped_gemm", 0.05, 1);
  }
  if (t.contains("grouped_gemm_tokens")) {
    k.grouped_gemm_tokens = bounded(t, "grouped_gemm_tokens", 0, 65536);
  }
}

FrameworkProfile read_framework(const TomlTable& t, FrameworkProfile profile) {
  profile.name = t.string("name");
  profile.display = t.string("display");
  profile.released = t.string("released");
  profile.source = t.string("source");
  profile.inherits = t.optional_string("inherits").value_or("");
  profile.dense_from = t.optional_string("dense_from").value_or("");
  profile.family = t.optional_string("family").value_or(profile.family.empty() ? "nemo" : profile.family);
  profile.software.family = profile.family;
  if (t.contains("software")) {
    read_software(t.table("software"), profile.software);
  }
  if (t.contains("capabilities")) {
    read_capabilities(t.table("capabilities"), profile.software);
  }
  if (t.contains("kernels")) {
    const TomlTable kernels = t.table("kernels");
    for (const char* arch : {"ampere", "hopper", "blackwell", "blackwell-ultra"}) {
      if (kernels.contains(arch)) {
        read_kernels(kernels.table(arch), profile.kernels[arch]);
      }
    }
  }
  return profile;
}

/// The name a file inherits, read before the file itself is parsed over its base.
Expected<std::string> inherited_name(std::string_view text, std::string_view file) {
  return read_toml(
      text, file, [](const TomlTable& t) { return t.optional_string("inherits").value_or(""); }, UnreadKeys::allow);
}

Expected<FrameworkProfile> load(std::string_view name, int depth) {
  if (depth > kMaxInheritance) {
    return Error{"framework profile '" + std::string(name) + "': inheritance deeper than " +
                 std::to_string(kMaxInheritance) + " (a cycle?)"};
  }
  auto file = catalog_file(kFolder, "framework", name);
  if (!file) {
    return file.error();
  }
  const std::string path = file->label;
  auto parent_name = inherited_name(file->text, path);
  if (!parent_name) {
    return parent_name.error();
  }
  FrameworkProfile base;
  if (!parent_name->empty()) {
    auto parent = load(*parent_name, depth + 1);
    if (!parent) {
      return Error{path + ": inherits '" + *parent_name + "': " + parent.error().message};
    }
    base = std::move(parent).value();
  }
  auto profile = parse_framework(file->text, path, base);
  if (profile && profile->name != name) {
    return Error{path + ": key 'name' is \"" + profile->name + "\", expected \"" + std::string(name) +
                 "\" (the file name)"};
  }
  return profile;
}

}  // namespace

Expected<FrameworkProfile> parse_framework(std::string_view toml_text, std::string_view file,
                                           const FrameworkProfile& base) {
  return read_toml(toml_text, file, [&](const TomlTable& t) { return read_framework(t, base); });
}

Expected<FrameworkProfile> find_framework(std::string_view name) { return load(name, 0); }

std::vector<std::string> framework_names() {
  std::vector<std::pair<std::string, std::string>> dated;  // (released, name)
  for (const std::string& name : catalog_names(kFolder)) {
    auto profile = find_framework(name);
    dated.emplace_back(profile ? profile->released : std::string(), name);
  }
  std::sort(dated.begin(), dated.end());
  std::vector<std::string> names;
  for (auto& [released, name] : dated) {
    names.push_back(std::move(name));
  }
  return names;
}

std::string default_framework() {
  std::string newest;
  for (const std::string& name : framework_names()) {  // oldest first
    auto profile = find_framework(name);
    if (profile && profile->family == kDefaultFamily) {
      newest = name;
    }
  }
  return newest;
}

SystemProfile apply_framework(SystemProfile system, const FrameworkProfile& framework) {
  system.software = framework.software;
  system.software.framework = framework.name;
  auto found = framework.kernels.find(system.architecture);
  if (found == framework.kernels.end()) {
    // A variant ("blackwell-ultra") runs its family's kernels unless the profile says otherwise.
    found = framework.kernels.find(std::string_view(system.architecture).substr(0, system.architecture.find('-')));
  }
  if (found == framework.kernels.end()) {
    return system;
  }
  const KernelEfficiency& k = found->second;
  for (std::size_t p = 0; p < k.gemm.size(); ++p) {
    system.efficiency.gemm_software[p] = k.gemm[p].value_or(1.0);
  }
  system.efficiency.grouped_gemm = k.grouped_gemm.value_or(1.0);
  system.efficiency.grouped_gemm_tokens = k.grouped_gemm_tokens.value_or(0.0);
  const double attention = k.attention.value_or(1.0);
  system.efficiency.attention_fwd = std::min(1.0, system.efficiency.attention_fwd * attention);
  system.efficiency.attention_bwd = std::min(1.0, system.efficiency.attention_bwd * attention);
  return system;
}

}  // namespace dgx::catalog
