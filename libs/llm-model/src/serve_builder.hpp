// The builder of one serving iteration's ops on one GPU (serve_ops.hpp) that the files of each layer kind share: the
// per-rank shapes of a layout, the load this GPU's attention sees (attention DP's share, the keys a layer's window,
// chunk or top-k leaves) and the TP, EP and PP groups' placements. Private to the model library.
#pragma once

#include "dgx/llm/communication.hpp"
#include "dgx/llm/mixer_work.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/serve_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dgx::llm::detail {

using constants::kBf16;

inline std::int64_t whole(double value) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(value)));
}

/// Appends the ops of one iteration at the per-rank shapes of a layout. With attention DP the attention, norms, dense
/// MLPs and LM head see this GPU's share of the load (`local`), the MoE experts every rank's tokens (`load`).
class ServeOpsBuilder {
public:
  ServeOpsBuilder(const ModelConfig& model, const SystemProfile& system, const ServeShape& shape, const StepLoad& load)
      : model_(model), shape_(shape), load_(load), whole_(load.split(shape.layout.attention_dp_ranks())),
        local_(attended(model, whole_)), system_(system), rank_(rank_shape(model, shape.layout)),
        tp_group_(place_group(1, shape.layout.attention_tp(), system.nvlink_domain)),
        ep_group_(place_group(1, shape.layout.tp, system.nvlink_domain)),
        pp_group_(place_group(shape.layout.tp, shape.layout.pp, system.nvlink_domain)),
        dense_(serve_gemm_format(model, system, shape.precision, false)),
        expert_(serve_gemm_format(model, system, shape.precision, true)) {
    ops_.reserve(32);
  }

  std::vector<Op> take() { return std::move(ops_); }

  /// Tokens this GPU's attention and dense parts process.
  [[nodiscard]] double tokens() const { return local_.tokens(); }
  /// GPUs the attention heads and dense weights are split over (1 with attention DP).
  [[nodiscard]] double tp() const { return shape_.layout.attention_tp(); }
  [[nodiscard]] double hidden() const { return static_cast<double>(model_.hidden); }
  [[nodiscard]] const RankShape& rank() const { return rank_; }
  /// The format of the linear layers: every one but the routed experts (`dense`), or the routed experts'.
  [[nodiscard]] const GemmFormat& format(bool expert = false) const { return expert ? expert_ : dense_; }
  [[nodiscard]] const SystemProfile& system() const { return system_; }

  void gemm(std::string_view name, double m, double n, double k, Precision precision, double groups = 1) {
    gemm(name, m, n, k, GemmFormat{.compute = precision}, groups);
  }
  void gemm(std::string_view name, double m, double n, double k, const GemmFormat& f, double groups = 1) {
    if (m <= 0 || n <= 0 || k <= 0) {
      return;
    }
    ops_.push_back(
        Op{.name = name,
           .precision = f.compute,
           .shape = GemmShape{
               .m = whole(m), .n = whole(n), .k = whole(k), .groups = whole(groups), .weight_bytes = f.weight_bytes}});
  }
  /// A chunked scan (a prompt's Mamba-2 or Gated DeltaNet layer): left out when it has nothing to do.
  void scan(std::string_view name, const ScanWork& w) {
    if (w.flops > 0) {
      ops_.push_back(Op{.name = name,
                        .shape = ScanShape{.flops = w.flops,
                                           .bytes = w.bytes,
                                           .tiles = std::max<std::int64_t>(1, static_cast<std::int64_t>(w.tiles)),
                                           .kernels = w.kernels}});
    }
  }
  void memory(std::string_view name, double bytes, int kernels = 1) {
    if (bytes > 0) {
      ops_.push_back(Op{.name = name, .shape = MemoryShape{.bytes = bytes, .kernels = kernels}});
    }
  }
  void collective(std::string_view name, CommGroup group, Collective kind, double bytes) {
    const GroupPlacement placement = group == CommGroup::pp ? pp_group_ : tp_group_;
    if (placement.ranks > 1 && bytes > 0) {
      ops_.push_back(Op{.name = name,
                        .group = group,
                        .shape = CollectiveShape{.collective = kind, .bytes = bytes, .placement = placement}});
    }
  }
  /// The TP all-reduce: the engines' one-shot kernel for small messages inside the NVLink domain when it is the
  /// faster (latency-bound decode), NCCL's ring otherwise.
  void all_reduce(std::string_view name, double bytes) {
    if (tp_group_.ranks <= 1 || bytes <= 0) {
      return;
    }
    CollectiveShape shape{.collective = Collective::all_reduce, .bytes = bytes, .placement = tp_group_};
    const bool small = bytes <= serve_constants::kOneShotAllReduceMaxBytes && !tp_group_.spans_domains();
    shape.one_sided = small && collective_seconds(system_, Collective::all_reduce, bytes, tp_group_, 1, true) <
                                   collective_seconds(system_, Collective::all_reduce, bytes, tp_group_);
    ops_.push_back(Op{.name = name, .group = CommGroup::tp, .shape = shape});
  }
  /// The MoE dispatch or combine of attention DP: every rank sends its tokens' routed copies to the experts' ranks
  /// (one-sided stores, a token sent once per remote NVLink domain and fanned out there).
  void all_to_all(std::string_view name, double bytes) {
    if (ep_group_.ranks <= 1 || bytes <= 0) {
      return;
    }
    ops_.push_back(Op{.name = name,
                      .group = CommGroup::ep,
                      .shape = CollectiveShape{.collective = Collective::all_to_all,
                                               .bytes = bytes,
                                               .placement = ep_group_,
                                               .offdomain_share = flex_offdomain_share(ep_group_, model_.top_k),
                                               .one_sided = true}});
  }
  void attention(double q_len, double kv_len, double head_dim, double kv_heads) {
    if (q_len <= 0 || kv_len <= 0) {
      return;
    }
    ops_.push_back(Op{.name = "attention",
                      .shape = AttentionShape{.batch = 1,
                                              .heads = whole(rank_.heads),
                                              .kv_heads = whole(kv_heads),
                                              .q_len = whole(q_len),
                                              .kv_len = whole(kv_len),
                                              .head_dim = whole(head_dim),
                                              .mask_fraction = 1}});
  }
  /// Residual add fused with the norm that follows it, which writes the input format of the GEMM it feeds (`next`):
  /// read x and the residual, write the new residual and the normalized tokens.
  void add_norm(std::string_view name, double rows, const GemmFormat& next) {
    memory(name, rows * hidden() * (3 * kBf16 + next.input_bytes()));
  }
  /// The MLP activation on `rows` × `width`, writing the second GEMM's input format (SwiGLU reads gate and up).
  void activation(double rows, double width, const GemmFormat& next) {
    const double in = rows * width * kBf16;
    const double out = rows * width * next.input_bytes();
    switch (model_.activation) {
    case Activation::swiglu: memory("swiglu", 2 * in + out); break;
    case Activation::gelu: memory("gelu", in + out); break;
    case Activation::squared_relu: memory("squared_relu", 2 * in + out + in, 2); break;
    }
  }

  const ModelConfig& model_;
  const ServeShape& shape_;
  const StepLoad& load_;  ///< the whole replica's load
  StepLoad whole_;        ///< this GPU's share of it (attention DP), else the same
  StepLoad local_;        ///< that share as this layer's attention sees it (attended: its window, chunk or top-k)

private:
  const SystemProfile& system_;
  RankShape rank_;
  GroupPlacement tp_group_, ep_group_, pp_group_;
  GemmFormat dense_, expert_;
  std::vector<Op> ops_;
};

/// Mamba-2 served (vLLM's and TensorRT-LLM's MambaMixer2): in_proj, the causal convolution (a prompt's tokens, and
/// each decoding sequence's convolution state), the chunked SSD scan over the prompt tokens, each decoding sequence's
/// recurrent step (reads and writes its FP32 state: memory-bound), the gated norm and out_proj (serve_scan_ops.cpp).
void serve_mamba(ServeOpsBuilder& b);

/// Gated DeltaNet served (Qwen3-Next's and Qwen3.5's linear-attention layers): in_proj, the convolution, the gates, the
/// chunked delta rule over the prompt tokens, each decoding sequence's recurrent step over its dk × dv states, the
/// gated norm and out_proj.
void serve_linear_attention(ServeOpsBuilder& b);

}  // namespace dgx::llm::detail
