#include "dgx/llm/op_time.hpp"

#include "dgx/llm/communication.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

/// Query rows one flash-attention CTA handles (FlashAttention-2/3 and cuDNN use 128 on Hopper).
constexpr double kAttentionQueryTile = 128;
/// Flash-attention backward executes 5 matmuls (QKᵀ recomputed, dV, dP, dQ, dK) against the forward's 2.
constexpr double kAttentionBackwardFactor = 2.5;
/// Output written by GEMMs in BF16.
constexpr double kGemmOutputBytes = 2;

/// Flash-attention rate against head dimension: the exponentials (one per score) and the online-softmax rescaling
/// are fixed work per query-key pair, the matmuls grow with d, so the sustained rate follows d / (d + d0). d0 = 54.5
/// matches FlashAttention-3's published H100 forward rates at head dim 64, 128 and 256 (about 0.77 and 1.15 of the
/// rate at 128; Shah et al., arXiv 2407.08608); the systems' attention fractions are stated at 128.
constexpr double kAttentionHeadDimHalf = 54.5;
double head_dim_factor(double head_dim) {
  const auto rate = [](double d) { return d / (d + kAttentionHeadDimHalf); };
  return head_dim > 0 ? rate(head_dim) / rate(128) : 1.0;
}

/// Fraction of the SMs a kernel with `tiles` independent output tiles keeps busy.
double sm_fill(double tiles, int sms) { return std::min(1.0, tiles / sms); }

/// Fraction of the SM-time a GEMM of `tiles` output tiles uses when its tiles run in waves of one per SM: the last
/// wave is partly empty (wave quantization: 320 tiles on 148 SMs run as 3 waves, 72 %). Below one wave, sm_fill.
double wave_fill(double tiles, int sms) {
  if (tiles <= sms) {
    return sm_fill(tiles, sms);
  }
  return tiles / (std::ceil(tiles / sms) * sms);
}

struct RooflineTimer {
  const SystemProfile& system;
  Precision precision;
  Pass pass;
  RooflineProvider::GemmFill fill = RooflineProvider::GemmFill::output_tiles;
  RooflineProvider::Groups groups = RooflineProvider::Groups::per_group;
  /// The arithmetic's rate relative to a dense GEMM's (the experts' grouped GEMMs in one kernel); 1 else.
  double compute_rate = 1;

  [[nodiscard]] double overhead(int kernels) const { return kernels * system.efficiency.kernel_overhead_us * 1e-6; }
  [[nodiscard]] double memory_seconds(double bytes) const {
    return bytes / (system.efficiency.memory_bw * system.hbm_bytes_per_s());
  }

  double operator()(const GemmShape& g) const {
    const Efficiency& e = system.efficiency;
    const double flops = 2.0 * g.m * g.n * g.k * g.groups;
    double tiles = g.groups * std::ceil(g.m / e.gemm_tile_m) * std::ceil(g.n / e.gemm_tile_n);
    if (fill == RooflineProvider::GemmFill::split_k && tiles < system.sms) {
      tiles *= std::max(1.0, std::min(std::ceil(system.sms / tiles), std::floor(g.k / RooflineProvider::kSplitKMin)));
    }
    const double rate = system.dense_peak_flops(precision) * system.gemm_ceiling(precision) * e.sustained_compute *
                        wave_fill(tiles, system.sms) * compute_rate;
    const double operands =
        g.weight_bytes > 0
            ? (1.0 * g.m * g.k * gemm_operand_bytes(precision) + 1.0 * g.k * g.n * g.weight_bytes) * g.groups
            : (1.0 * g.m * g.k + 1.0 * g.k * g.n) * g.groups * gemm_operand_bytes(precision);
    const double output = 1.0 * g.m * g.n * g.groups * (kGemmOutputBytes + 2.0 * g.accumulate_bytes);
    // Per group: one GEMM per group (Transformer Engine's per-expert cuBLAS calls), each with its own ramp-up and
    // tail; one kernel: the engines' grouped kernels.
    const int launches = groups == RooflineProvider::Groups::one_kernel ? 1 : static_cast<int>(g.groups);
    return std::max(flops / rate, memory_seconds(operands + output)) + overhead(launches);
  }

  double operator()(const AttentionShape& a) const {
    const Efficiency& e = system.efficiency;
    const double forward_flops = 4.0 * a.batch * a.heads * a.q_len * a.kv_len * a.head_dim * a.mask_fraction;
    const bool forward = pass == Pass::forward;
    const double flops = forward ? forward_flops : kAttentionBackwardFactor * forward_flops;
    const double tiles = a.batch * a.heads * std::ceil(a.q_len / kAttentionQueryTile);
    const double rate = system.peak_bf16_tflops * 1e12 * (forward ? e.attention_fwd : e.attention_bwd) *
                        e.sustained_compute * sm_fill(tiles, system.sms) *
                        head_dim_factor(static_cast<double>(a.head_dim));
    return flops / rate + overhead(a.kernels());
  }

  /// A chunked scan's small per-chunk matmuls at the system's flash-attention fraction of the BF16 peak: the
  /// kernels (mamba_ssm's, flash-linear-attention's Triton kernels) have no calibrated rate of their own, and they
  /// are, as attention is, tiles of small matmuls with elementwise work between them.
  double operator()(const ScanShape& s) const {
    const Efficiency& e = system.efficiency;
    const bool forward = pass == Pass::forward;
    const double rate = system.peak_bf16_tflops * 1e12 * (forward ? e.attention_fwd : e.attention_bwd) *
                        e.sustained_compute * sm_fill(static_cast<double>(s.tiles), system.sms);
    return std::max(s.flops / rate, memory_seconds(s.bytes)) + overhead(s.kernels);
  }

  double operator()(const MemoryShape& m) const { return memory_seconds(m.bytes) + overhead(m.kernels); }

  double operator()(const CollectiveShape& c) const {
    return collective_seconds(system, c.collective, c.bytes, c.placement, c.offdomain_share, c.one_sided);
  }
};

}  // namespace

double RooflineProvider::seconds(const Op& op) const {
  RooflineTimer timer{.system = system_, .precision = op.precision, .pass = op.pass, .fill = fill_, .groups = groups_};
  // The routed experts' grouped GEMMs run at the release's grouped-GEMM fraction of a dense GEMM's rate, less at
  // few tokens per expert (the rows of the forward and dgrad GEMMs, the reduction depth of the wgrad GEMM).
  const bool expert_gemm = op.part == OpPart::moe && std::holds_alternative<GemmShape>(op.shape) && op.name != "router";
  if (!expert_gemm) {
    return std::visit(timer, op.shape);
  }
  const GemmShape& g = std::get<GemmShape>(op.shape);
  const double tokens = static_cast<double>(op.pass == Pass::wgrad ? g.k : g.m);
  const double t0 = system_.efficiency.grouped_gemm_tokens;
  const double rate = system_.efficiency.grouped_gemm * tokens / (tokens + t0);
  if (groups_ == Groups::one_kernel) {
    timer.compute_rate = rate;
    return std::visit(timer, op.shape);
  }
  return std::visit(timer, op.shape) / rate;
}

double MeasuredOverrides::seconds(const Op& op) const {
  if (const auto found = measured_.find(op.key()); found != measured_.end()) {
    return found->second;
  }
  return fallback_->seconds(op);
}

std::string_view MeasuredOverrides::source(const Op& op) const {
  return measured_.contains(op.key()) ? "measured" : fallback_->source(op);
}

}  // namespace dgx::llm
