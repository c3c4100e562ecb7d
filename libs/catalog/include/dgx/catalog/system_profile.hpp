// A GPU system as the performance model sees it: datasheet facts plus the efficiency parameters of the roofline
// (configs/systems/<name>.toml). Every efficiency is a physical fraction with its source in the TOML file.
#pragma once

#include "dgx/catalog/precision.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dgx::catalog {

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
  /// Achieved fraction of the NIC line rate in an all-to-all across the scale-out network (every NIC sending to and
  /// receiving from all the others at once); a file without it: `nic`.
  double nic_all_to_all = 0;
  /// Latency of one ring step (one hop) inside the NVLink domain / across the scale-out network, microseconds.
  double nvlink_hop_latency_us = 0;
  double network_hop_latency_us = 0;
  /// Fraction of the hardware GEMM rate (ceiling · sustained) that the framework release's kernels and
  /// quantization recipes reach, per GEMM precision (kAllPrecisions, indexed by Precision). 1 until a framework
  /// profile sets it.
  std::array<double, 4> gemm_software{1, 1, 1, 1};
  /// Fraction of a dense GEMM's rate the routed experts' grouped GEMMs reach under the framework release (TE's
  /// grouped GEMM: one GEMM per local expert with its own quantization and padding). 1 until a profile sets it.
  double grouped_gemm = 1;
  /// Tokens per local expert at which the grouped GEMMs reach half of grouped_gemm: each expert's GEMM streams its
  /// whole weight for its few rows (forward, dgrad) or reduces over them (wgrad), so its fixed per-tile prologue and
  /// epilogue weigh as t0 / (t + t0) of the tile's time at t tokens. 0: no such loss.
  double grouped_gemm_tokens = 0;
};

/// How a framework shards data-parallel state under TrainConfig::fsdp.
/// - megatron: Megatron FSDP ("optim_grads_params"): every microbatch gathers each layer's parameters before its
///   forward and again before its backward and reduce-scatters its gradients.
/// - fsdp2: PyTorch FSDP2 (fully_shard per decoder layer, as torchtitan applies it): without pipeline parallelism
///   the same per-layer traffic (torchtitan runs one microbatch per step there); with it the parameters stay
///   gathered from the first microbatch's forward to the last one's backward (reshard_after_forward off) and the
///   gradients are reduce-scattered once, after the last backward (gradient sync only on the last microbatch), so
///   the stage's whole parameters and gradients sit unsharded on the GPU for the step.
enum class FsdpKind : std::uint8_t { megatron, fsdp2 };

/// What Recompute::selective reruns.
/// - modules: Megatron's selective recompute of TrainConfig::recompute_modules.
/// - every_other_matmul: torchtitan's per-op policy (selective_ac_option "op"): of each layer's forward it keeps the
///   outputs of the attention kernel, of the TP reduce-scatters and of every other aten.mm (the 1st, 3rd, ... of wq,
///   wk, wv, wo, w1, w3, w2: wq, wv, w1, w2) and reruns everything else; torchao's float8 GEMMs count as aten.mm
///   (they dispatch as aten.mm on its Float8Tensor subclass).
enum class SelectivePolicy : std::uint8_t { modules, every_other_matmul };

/// What the training software does, set from a framework profile (configs/frameworks/, framework.hpp); the
/// defaults are the model's behaviour without one (Megatron-core with Transformer Engine, as NeMo runs it).
struct Software {
  std::string framework;        ///< the profile's name, e.g. "nemo-26.02"; empty: none applied
  std::string family = "nemo";  ///< the profile's family: "nemo", "torchtitan"
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

  // What layouts the framework can express (resolve_layout refuses the others, naming the framework and the key).
  bool expert_parallel = true;        ///< MoE layers with expert parallelism
  bool distributed_optimizer = true;  ///< Megatron's distributed optimizer (ZeRO-1); else FSDP or plain DDP
  bool activation_offload = true;     ///< Megatron's cpu_offloading_num_layers
  bool block_scaled_formats = true;   ///< MXFP8 / NVFP4 recipes
  bool recompute_modules = true;      ///< a choice of Megatron recompute_modules
  bool ep_overlap = true;             ///< overlap_moe_expert_parallel_comm

  FsdpKind fsdp = FsdpKind::megatron;
  SelectivePolicy selective = SelectivePolicy::modules;
  /// Memory-bound elementwise traffic (norms, activations, rotary, residuals, casts) relative to fused kernels:
  /// 1 for Transformer Engine's / torch.compile's fused kernels; eager PyTorch runs each elementwise step as its
  /// own kernel, reading and writing the tensor again (and in FP32 where the module upcasts).
  double elementwise_traffic = 1;
  /// Bytes per element of the data-parallel gradient reduction: 2 (BF16, Megatron with grad_reduce_in_fp32 off),
  /// 4 (FP32: torchtitan's mixed_precision_reduce default).
  double grad_reduce_bytes = 2;
  /// FP8 activations and gradients are cast with dynamic per-tensor scales (torchao tensorwise, Transformer
  /// Engine's current scaling): the amax is a reduction over the whole tensor before the cast, one more read.
  bool fp8_amax_pass = false;
  /// The norm before a column-parallel GEMM writes the GEMM's input type itself (Transformer Engine's
  /// LayerNormLinear); false: the FP8 cast of the normed input is a kernel of its own.
  bool fused_norm_cast = true;
  /// Bytes moved per GEMM weight parameter per microbatch to cast the weights to FP8 (torchao's Float8Linear casts
  /// them in every forward and again, transposed, in the backward); 0 where the FP8 weights are kept or cached.
  double fp8_weight_cast_bytes = 0;
  /// The loss upcasts the logits to FP32 before the cross entropy (torchtitan's loss: pred.float()): the FP32 copy
  /// and the FP32 log-softmax beside the BF16 logits.
  bool fp32_logits = false;
  /// Host time to issue one kernel of an op outside CUDA graphs, microseconds: the Python of the module
  /// (Megatron, Transformer Engine), PyTorch's dispatch and the launch itself. Where the GPU waits for the host,
  /// this is what it waits for: in MoE layers, whose dropless dispatcher synchronises the host with the GPU every
  /// forward (the tokens each local expert receives size the grouped GEMMs), a layer whose host work exceeds its
  /// GPU work runs at the host's pace (step_model.hpp, host-bound time). 0: the host always keeps ahead.
  double host_op_us = 0;
};

struct SystemProfile {
  std::string name;     ///< catalog key, e.g. "h100-sxm"
  std::string display;  ///< e.g. "NVIDIA H100 SXM 80 GB (DGX H100)"
  std::string source;
  /// Patterns of the CUDA device names this profile describes, e.g. "H100 80GB HBM3" (system_catalog.hpp,
  /// find_system_for_device). Never inherited.
  std::vector<std::string> device_names;
  /// The system this one's file starts from (`inherits`); empty for a file of its own.
  std::string inherits;

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
  /// Power limit the GPUs run at (gpu.power_cap_w; 0: the TDP). Below the TDP the sustained compute clock scales
  /// by (power_cap_w / tdp_w)^(1/3) (dynamic power ~ f·V², V ~ f): efficiency.sustained_compute already holds it.
  double power_cap_w = 0;
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
  /// FP8 GEMMs take any operand layout (Blackwell; Hopper's need the TN layout, hence transposed copies).
  [[nodiscard]] bool any_layout_fp8() const { return architecture.rfind("blackwell", 0) == 0; }
  [[nodiscard]] double hbm_bytes() const;
  [[nodiscard]] double hbm_bytes_per_s() const { return hbm_tb_s * 1e12; }
};

}  // namespace dgx::catalog
