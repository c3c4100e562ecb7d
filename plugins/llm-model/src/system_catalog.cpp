#include "dgx/llm/system_catalog.hpp"

#include "catalog_files.hpp"
#include "toml_reader.hpp"

namespace dgx::llm {

namespace {

using detail::bounded;
using detail::TomlTable;

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

SystemProfile read_system(const TomlTable& t) {
  SystemProfile s;
  s.name = t.string("name");
  s.display = t.string("display");
  s.source = t.string("source");

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
  return s;
}

}  // namespace

Expected<SystemProfile> parse_system(std::string_view toml_text, std::string_view file) {
  return detail::read_toml(toml_text, file, read_system);
}

Expected<SystemProfile> find_system(std::string_view name) {
  return detail::load_catalog_entry("systems", "system", name, parse_system);
}

std::vector<std::string> system_names() { return detail::catalog_names("systems"); }

}  // namespace dgx::llm
