#include "dgx/catalog/system_catalog.hpp"

#include "dgx/catalog/catalog_files.hpp"
#include "dgx/catalog/small_file.hpp"
#include "dgx/catalog/toml_table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

namespace dgx::catalog {

namespace {

std::string joined(const std::vector<std::string>& names, std::string_view separator) {
  std::string out;
  for (const std::string& name : names) {
    out += (out.empty() ? "" : std::string(separator)) + name;
  }
  return out;
}

/// A system file's text and the path messages name it by.
struct SystemText {
  std::string text;
  std::string path;
};

/// The file of system `name`: `<dir>/<name>.toml` in the first of `dirs` (the folder of a user's file) that has it,
/// else the catalog's (its search folders, then the compiled-in copy).
Expected<SystemText> system_text(std::string_view name, const std::vector<std::filesystem::path>& dirs) {
  for (const std::filesystem::path& dir : dirs) {
    const std::filesystem::path path = dir / (std::string(name) + ".toml");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      continue;
    }
    auto text = read_small_file(path, kMaxCatalogFileBytes);
    if (!text) {
      return Error{path.string() + ": " + text.error().message};
    }
    return SystemText{.text = std::move(*text), .path = path.string()};
  }
  auto file = catalog_file("systems", "system", name);
  if (!file) {
    std::vector<std::string> known = catalog_names("systems");
    for (const std::filesystem::path& dir : dirs) {
      for (const std::string& entry : user_system_names(dir)) {
        known.push_back(entry);
      }
    }
    std::sort(known.begin(), known.end());
    return Error{unknown_entry("system", name, known)};
  }
  return SystemText{.text = std::move(file->text), .path = std::move(file->label)};
}

/// `own` with the systems it inherits from underneath, nearest first; `chain` holds the names seen so far. A base
/// is looked up in `dirs` (a user's folder of system files) before the catalog.
TomlTable with_inherited(const TomlTable& own, std::vector<std::string>& chain,
                         const std::vector<std::filesystem::path>& dirs) {
  const std::optional<std::string> base_name = own.optional_string("inherits");
  if (!base_name) {
    return own;
  }
  if (std::find(chain.begin(), chain.end(), *base_name) != chain.end()) {
    throw ConfigError(own.where("inherits") + " is \"" + *base_name +
                      "\", which inherits back: " + joined(chain, " -> ") + " -> " + *base_name);
  }
  const auto file = system_text(*base_name, dirs);
  if (!file) {
    throw ConfigError(own.where("inherits") + ": " + file.error().message);
  }
  chain.push_back(*base_name);
  const TomlTable base = TomlTable::parse(file->text, file->path);
  return own.over(with_inherited(base, chain, dirs));
}

std::vector<std::string> read_device_names(const TomlTable& t) {
  if (!t.contains("device_names")) {
    return {};
  }
  std::vector<std::string> names = t.strings("device_names");
  for (const std::string& name : names) {
    if (name.empty()) {
      throw ConfigError(t.where("device_names") + " holds an empty pattern, which would match every device");
    }
  }
  return names;
}

Efficiency read_efficiency(const TomlTable& t) {
  Efficiency e;
  e.gemm_ceiling_bf16 = bounded(t, "gemm_ceiling_bf16", 0.05, 1);
  e.gemm_ceiling_fp8 = bounded(t, "gemm_ceiling_fp8", 0, 1);
  e.gemm_ceiling_fp4 = bounded(t, "gemm_ceiling_fp4", 0, 1);
  e.sustained_compute = bounded(t, "sustained_compute", 0.05, 1);
  e.gpu_speed_cv = bounded(t, "gpu_speed_cv", 0, 0.5);
  e.gemm_tile_m = bounded(t, "gemm_tile_m", 16, 1024);
  e.gemm_tile_n = bounded(t, "gemm_tile_n", 16, 1024);
  e.attention_fwd = bounded(t, "attention_fwd", 0.05, 1);
  e.attention_bwd = bounded(t, "attention_bwd", 0.05, 1);
  e.memory_bw = bounded(t, "memory_bw", 0.05, 1);
  e.kernel_overhead_us = bounded(t, "kernel_overhead_us", 0, 1000);
  e.nvlink_bus = bounded(t, "nvlink_bus", 0.05, 1);
  e.nvlink_p2p = bounded(t, "nvlink_p2p", 0.05, 1);
  e.nic = bounded(t, "nic", 0.05, 1);
  e.nic_all_to_all = t.contains("nic_all_to_all") ? bounded(t, "nic_all_to_all", 0.05, 1) : e.nic;
  e.nvlink_hop_latency_us = bounded(t, "nvlink_hop_latency_us", 0, 1000);
  e.network_hop_latency_us = bounded(t, "network_hop_latency_us", 0, 1000);
  return e;
}

/// PCIe 5.0 x16, per direction: the host link of a system whose file does not name one.
constexpr double kPcie5HostLinkGbS = 64;

/// Ampere without FP8 tensor cores, Blackwell with block-scaled formats, Hopper otherwise.
std::string derived_architecture(const SystemProfile& s) {
  if (s.peak_fp8_tflops <= 0) {
    return "ampere";
  }
  return s.block_scaled_formats ? "blackwell" : "hopper";
}

SystemProfile read_system(const TomlTable& own, const std::vector<std::filesystem::path>& dirs) {
  SystemProfile s;
  s.name = own.string("name");
  s.display = own.string("display");
  s.source = own.string("source");
  s.device_names = read_device_names(own);
  s.inherits = own.optional_string("inherits").value_or("");
  std::vector<std::string> chain{s.name};
  const TomlTable t = with_inherited(own, chain, dirs);

  const TomlTable peak = t.table("peak_tflops");
  s.peak_bf16_tflops = bounded(peak, "bf16", 1, 1e6);
  s.peak_fp8_tflops = bounded(peak, "fp8", 0, 1e6);
  s.peak_fp4_tflops = bounded(peak, "fp4", 0, 1e6);
  s.block_scaled_formats = peak.boolean("block_scaled_formats", false);

  const TomlTable gpu = t.table("gpu");
  s.sms = gpu.positive_int("sms");
  s.hbm_gib = bounded(gpu, "hbm_gib", 1, 1e5);
  s.hbm_tb_s = bounded(gpu, "hbm_tb_s", 0.1, 1e3);
  s.tdp_w = bounded(gpu, "tdp_w", 1, 1e5);
  s.architecture = gpu.optional_string("architecture").value_or(derived_architecture(s));

  const TomlTable network = t.table("network");
  s.nvlink_gb_s = bounded(network, "nvlink_gb_s", 1, 1e5);
  s.nvlink_domain = network.positive_int("nvlink_domain");
  s.nic_gb_s = bounded(network, "nic_gb_s", 0.1, 1e5);
  s.host_link_gb_s =
      network.contains("host_link_gb_s") ? bounded(network, "host_link_gb_s", 1, 1e5) : kPcie5HostLinkGbS;

  s.efficiency = read_efficiency(t.table("efficiency"));
  if (gpu.contains("power_cap_w")) {
    s.power_cap_w = bounded(gpu, "power_cap_w", 1, s.tdp_w);
    s.efficiency.sustained_compute *= power_clock_scale(s.power_cap_w, s.tdp_w);
  }
  return s;
}

}  // namespace

double power_clock_scale(double power_cap_w, double tdp_w) {
  if (power_cap_w <= 0 || tdp_w <= 0 || power_cap_w >= tdp_w) {
    return 1;
  }
  return std::cbrt(power_cap_w / tdp_w);
}

Expected<SystemProfile> parse_system(std::string_view toml_text, std::string_view file) {
  return read_toml(toml_text, file, [](const TomlTable& t) { return read_system(t, {}); });
}

Expected<SystemProfile> find_system(std::string_view name) { return find_system(name, {}); }

std::vector<std::string> user_system_names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".toml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Expected<SystemProfile> load_system_file(const std::filesystem::path& path) {
  const auto text = read_small_file(path, kMaxCatalogFileBytes);
  if (!text) {
    return Error{path.string() + ": " + text.error().message};
  }
  const std::vector<std::filesystem::path> dirs{path.parent_path().empty() ? "." : path.parent_path()};
  auto system = read_toml(*text, path.string(), [&](const TomlTable& t) { return read_system(t, dirs); });
  if (system && system->name != path.stem().string()) {
    return Error{path.string() + ": key 'name' is \"" + system->name + "\", expected \"" + path.stem().string() +
                 "\" (the file name)"};
  }
  return system;
}

Expected<SystemProfile> find_system(std::string_view name, const std::vector<std::filesystem::path>& dirs) {
  const std::filesystem::path as_path(name);
  if (as_path.extension() == ".toml") {
    return load_system_file(as_path);  // a file named directly
  }
  auto file = system_text(name, dirs);
  if (!file) {
    return file.error();
  }
  auto system = read_toml(file->text, file->path, [&](const TomlTable& t) { return read_system(t, dirs); });
  if (system && system->name != name) {
    return Error{file->path + ": key 'name' is \"" + system->name + "\", expected \"" + std::string(name) +
                 "\" (the file name)"};
  }
  return system;
}

std::vector<std::string> system_names() { return catalog_names("systems"); }

bool device_name_matches(std::string_view device_name, std::string_view pattern) {
  if (pattern.empty() || pattern.size() > device_name.size()) {
    return false;
  }
  const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t at = 0; at + pattern.size() <= device_name.size(); ++at) {
    const bool same = std::equal(pattern.begin(), pattern.end(), device_name.begin() + static_cast<std::ptrdiff_t>(at),
                                 [&](char a, char b) { return lower(a) == lower(b); });
    const std::size_t end = at + pattern.size();
    if (same && (at == 0 || !word(device_name[at - 1])) && (end == device_name.size() || !word(device_name[end]))) {
      return true;
    }
  }
  return false;
}

bool system_answers_to_device(std::string_view system, std::string_view device) {
  std::string name(system);
  for (int depth = 0; depth < 16 && !name.empty(); ++depth) {
    auto profile = find_system(name);
    if (!profile) {
      return false;
    }
    if (!profile->device_names.empty()) {
      return std::any_of(profile->device_names.begin(), profile->device_names.end(),
                         [&](const std::string& pattern) { return device_name_matches(device, pattern); });
    }
    name = profile->inherits;
  }
  return false;
}

Expected<SystemProfile> find_system_for_device(std::string_view device_name) {
  std::optional<SystemProfile> best;
  std::string best_pattern;
  std::string tie;  // another system matching as well as the best, while it is the best
  for (const std::string& name : system_names()) {
    auto system = find_system(name);
    if (!system) {
      return system.error();
    }
    for (const std::string& pattern : system->device_names) {
      if (!device_name_matches(device_name, pattern)) {
        continue;
      }
      if (!best || pattern.size() > best_pattern.size()) {
        best = *system;
        best_pattern = pattern;
        tie.clear();
      } else if (pattern.size() == best_pattern.size() && best->name != name) {
        tie = name + " ('" + pattern + "')";
      }
    }
  }
  if (!tie.empty()) {
    return Error{"the device '" + std::string(device_name) + "' matches " + best->name + " ('" + best_pattern +
                 "') and " + tie + " equally well: make one of the device_names in configs/systems more specific"};
  }
  if (!best) {
    return Error{"no system profile in configs/systems lists a device name matching '" + std::string(device_name) +
                 "' (device_names)"};
  }
  return std::move(*best);
}

}  // namespace dgx::catalog
