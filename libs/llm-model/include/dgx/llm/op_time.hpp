// Where each op's time comes from. The step model asks an OpTimeProvider for every op of a layer once per
// distinct shape; a measured time for an op (keyed by Op::key()) replaces the roofline estimate for that op only.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/ops.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace dgx::llm {

class OpTimeProvider {
public:
  virtual ~OpTimeProvider() = default;
  /// Seconds one GPU spends on one execution of `op`.
  [[nodiscard]] virtual double seconds(const Op& op) const = 0;
  /// Where that time comes from: "measured" or "roofline".
  [[nodiscard]] virtual std::string_view source(const Op& op) const = 0;
};

/// Roofline of a system profile with efficiency curves:
/// - GEMM: max(FLOPs / (ceiling · peak · fill), bytes / (memory_bw · HBM)) + kernel overhead, where fill =
///   min(1, output tiles / SMs) models GEMMs too small to occupy every SM;
/// - attention: executed FLOPs (backward 2.5× forward: dQ, dK, dV, dP and the recomputed QKᵀ) at the flash
///   attention fraction of the BF16 peak, the same fill over (batch · heads · query tiles), plus one kernel
///   overhead per ring step;
/// - chunked scan (Mamba-2, Gated DeltaNet): max(FLOPs at the attention fraction of the BF16 peak with the SM fill of
///   its tiles, bytes / (memory_bw · HBM)) + kernel overhead per kernel;
/// - memory-bound: bytes / (memory_bw · HBM) + kernel overhead per kernel;
/// - collectives: the α-β model of communication.hpp.
class RooflineProvider final : public OpTimeProvider {
public:
  /// How a GEMM with fewer output tiles than SMs fills the GPU.
  /// - output_tiles: one CTA per output tile (the large GEMMs of training, the calibrated default);
  /// - split_k: the library also splits K over CTAs until the SMs are busy (at most one split per kSplitKMin of K),
  ///   as cuBLASLt's split-K / stream-K kernels and the serving engines' GEMMs do for the small-M GEMMs of
  ///   decoding, which then stream their weights at the memory roofline.
  enum class GemmFill : unsigned char { output_tiles, split_k };
  static constexpr double kSplitKMin = 128;
  /// How a grouped GEMM (the routed experts, MLA's per-head absorption) runs.
  /// - per_group: one GEMM launch per group, each with its own ramp-up and tail (Transformer Engine's per-expert
  ///   cuBLAS calls in training); the experts' few-token penalty slows the whole GEMM;
  /// - one_kernel: one grouped kernel over all groups (the serving engines' fused MoE and batched GEMMs: CUTLASS
  ///   grouped GEMM, Triton fused_moe, DeepGEMM): one launch, and few tokens per expert slow only its arithmetic,
  ///   so a decode batch that gives each expert a token or two streams the experts' weights at the memory roofline.
  enum class Groups : unsigned char { per_group, one_kernel };

  explicit RooflineProvider(SystemProfile system, GemmFill fill = GemmFill::output_tiles,
                            Groups groups = Groups::per_group)
      : system_(std::move(system)), fill_(fill), groups_(groups) {}
  [[nodiscard]] double seconds(const Op& op) const override;
  [[nodiscard]] std::string_view source(const Op&) const override { return "roofline"; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }
  [[nodiscard]] GemmFill gemm_fill() const { return fill_; }

private:
  SystemProfile system_;
  GemmFill fill_;
  Groups groups_;
};

/// Measured op times layered over a fallback provider (which must outlive this object).
class MeasuredOverrides final : public OpTimeProvider {
public:
  explicit MeasuredOverrides(const OpTimeProvider& fallback) : fallback_(&fallback) {}

  /// Records the measured time of this op (its key: name, pass, precision, exact shape).
  void set(const Op& op, double seconds) { set(op.key(), seconds); }
  void set(std::string key, double seconds) { measured_[std::move(key)] = seconds; }
  [[nodiscard]] std::size_t size() const { return measured_.size(); }

  [[nodiscard]] double seconds(const Op& op) const override;
  [[nodiscard]] std::string_view source(const Op& op) const override;

private:
  const OpTimeProvider* fallback_;
  std::unordered_map<std::string, double> measured_;
};

}  // namespace dgx::llm
