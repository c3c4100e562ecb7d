// A GPU system as the performance model sees it: datasheet facts plus the efficiency parameters of the roofline
// (configs/systems/<name>.toml). Every efficiency is a physical fraction with its source in the TOML file.
#pragma once

#include "dgx/llm/precision.hpp"

#include <array>
#include <string>
#include <vector>

namespace dgx::llm {

/// Fractions and latencies that turn datasheet peaks into achievable op times.
struct Efficiency {
  /// Largest fraction of the dense peak a large GEMM reaches, per peak column (calibration.md section D).
  double gemm_ceiling_bf16 = 0;
  double gemm_ceiling_fp8 = 0;
  double gemm_ceiling_fp4 = 0;
  /// Fraction of the isolated-kernel compute rate (the ceilings above, the attention fractions below) that
  /// kernels sustain inside a full training step: power-capped clocks with every GPU, NVSwitch and NIC of the
  /// node loaded, where the ceilings are single-GPU microbenchmarks. Applies to GEMMs and attention, not to
  /// memory-bound ops (HBM clocks do not throttle). Calibrated (calibration.toml).
  double sustained_compute = 1;
  /// Coefficient of variation of the sustained compute speed across GPUs of the system (stragglers.hpp).
  double gpu_speed_cv = 0;
  /// CTA tile of the GEMM kernels: GEMMs with fewer output tiles than SMs leave SMs idle.
  double gemm_tile_m = 128;
  double gemm_tile_n = 256;
  /// Flash-attention forward / backward, fraction of the BF16 dense peak on the FLOPs the kernel executes.
  double attention_fwd = 0;
  double attention_bwd = 0;
  /// Fraction of HBM bandwidth that fused elementwise / normalization kernels sustain.
  double memory_bw = 0;
  /// Fixed time per kernel (launch gap, ramp-up and tail of the last wave), microseconds.
  double kernel_overhead_us = 0;
  /// Ring collective bus bandwidth over NVLink as a fraction of the per-direction NVLink bandwidth.
  double nvlink_bus = 0;
  /// Point-to-point bandwidth over NVLink as a fraction of the per-direction NVLink bandwidth.
  double nvlink_p2p = 0;
  /// Achieved fraction of the NIC line rate.
  double nic = 0;
  /// Latency of one ring step (one hop) inside the NVLink domain / across the scale-out network, microseconds.
  double nvlink_hop_latency_us = 0;
  double network_hop_latency_us = 0;
  /// Fraction of the hardware GEMM rate (ceiling · sustained) that the framework release's kernels and
  /// quantization recipes reach, per precision (indexed by Precision). 1 until a framework profile sets it.
  std::array<double, 4> gemm_software{1, 1, 1, 1};
};

/// What the training software does, set from a framework profile (configs/frameworks/, framework.hpp); the
/// defaults are the model's behaviour without one.
struct Software {
  std::string framework;  ///< the profile's name, e.g. "nemo-26.02"; empty: none applied
  /// FP8 / FP4 runs keep the parameters in the low-precision format (Megatron fp8_param_gather, with the
  /// row- and column-wise copies the GEMMs need) instead of BF16 weights plus a low-precision cache.
  bool low_precision_params = true;
  /// Fraction of TP/SP all-gather / reduce-scatter time hidden behind the GEMMs it feeds (Transformer Engine
  /// userbuffer overlap), per GEMM precision (Precision index): the first chunk and imperfect pipelining leave
  /// part exposed; where a release turns the overlap off for a precision nothing is hidden.
  std::array<double, 4> tp_overlap{0.5, 0.5, 0.5, 0.5};
  /// Fraction of any overlapped communication's time still added to the step: NCCL kernels occupy SMs and HBM
  /// bandwidth (≈ NCCL's CTAs / SMs, 16 of 132 on H100).
  double overlap_slowdown = 0.12;
  /// The loss writes its gradient into the BF16 logits (Transformer Engine's fused parallel cross entropy)
  /// instead of keeping an FP32 softmax beside them.
  bool in_place_cross_entropy = false;
};

struct SystemProfile {
  std::string name;     ///< catalog key, e.g. "h100-sxm"
  std::string display;  ///< e.g. "NVIDIA H100 SXM 80 GB (DGX H100)"
  std::string source;
  /// Patterns of the CUDA device names this profile describes, e.g. "H100 80GB HBM3" (system_catalog.hpp,
  /// find_system_for_device). Never inherited.
  std::vector<std::string> device_names;

  double peak_bf16_tflops = 0;        ///< dense
  double peak_fp8_tflops = 0;         ///< dense; 0: no FP8 tensor cores
  double peak_fp4_tflops = 0;         ///< dense; 0: no FP4 tensor cores
  bool block_scaled_formats = false;  ///< mxfp8 / nvfp4 supported (Blackwell)
  int sms = 0;
  double hbm_gib = 0;      ///< capacity as the driver reports it
  double hbm_tb_s = 0;     ///< bandwidth, 1e12 bytes/s
  double nvlink_gb_s = 0;  ///< per GPU, per direction, 1e9 bytes/s
  int nvlink_domain = 0;   ///< GPUs that share one NVLink fabric
  double nic_gb_s = 0;     ///< scale-out bandwidth per GPU, 1e9 bytes/s
  double tdp_w = 0;
  /// GPU generation the framework profiles key their kernel efficiencies by: "ampere", "hopper", "blackwell",
  /// "blackwell-ultra" (the TOML's gpu.architecture, else derived from the formats the GPU supports).
  std::string architecture;
  /// Host (CPU) link per GPU, per direction, 1e9 bytes/s: activation offloading goes over it (NVLink-C2C on
  /// Grace systems, PCIe elsewhere).
  double host_link_gb_s = 0;
  Efficiency efficiency;
  Software software;

  /// Dense peak of the precision's GEMMs in FLOP/s; 0 when the system lacks that format.
  [[nodiscard]] double dense_peak_flops(Precision precision) const;
  /// Largest achievable fraction of that peak for a large GEMM, with the framework's kernel efficiency.
  [[nodiscard]] double gemm_ceiling(Precision precision) const;
  [[nodiscard]] bool supports(Precision precision) const;
  [[nodiscard]] double hbm_bytes() const;
  [[nodiscard]] double hbm_bytes_per_s() const { return hbm_tb_s * 1e12; }
};

}  // namespace dgx::llm
