// One operation of a training step on one GPU, at its exact per-rank shape: the unit an OpTimeProvider times
// and a measurement overrides.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/pass.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace dgx::llm {

/// C = A·B with A m×k and B k×n, `groups` independent GEMMs of that shape (grouped GEMM of MoE experts).
/// accumulate: C is read and written in `accumulate_bytes` per element (wgrad into the main-grad buffer).
/// weight_bytes: bytes per element of B where the weights are stored narrower than the op's precision runs (a
/// mixed-input GEMM: MXFP4 weights dequantized in the main loop under BF16 or MXFP8 activations); 0: the precision's.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t groups = 1;
  double accumulate_bytes = 0;
  double weight_bytes = 0;
};

/// Kernels a context-parallel ring step launches beside its partial attention (Transformer Engine's
/// AttnFuncWithCPAndKVP2P): the P2P send/recv of the next K/V block, the selection of the load-balanced halves, and
/// the merge of the partial result (forward: the softmax-statistics and output corrections; backward: the dQ and
/// dK/dV accumulations). Each costs a kernel's fixed time whatever the block size: with small blocks (a few hundred
/// tokens per rank, MLPerf's LoRA at CP 8) they weigh as much as the attention itself.
inline constexpr int kCpRingStepExtraKernels = 4;

/// Flash attention over `batch` sequences: `heads` query heads (and `kv_heads` key/value heads) of `head_dim`,
/// q_len queries against kv_len keys of which `mask_fraction` are computed (causal ≈ 1/2), executed in `steps`
/// context-parallel ring steps.
struct AttentionShape {
  std::int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  double mask_fraction = 1;
  int steps = 1;
  /// Kernel launches: one attention kernel per ring step, and a ring's per-step exchange and merge kernels.
  [[nodiscard]] int kernels() const { return steps > 1 ? steps * (1 + kCpRingStepExtraKernels) : steps; }
};

/// The chunked scan of a state-space or linear-attention mixer (Mamba-2's SSD, Gated DeltaNet's delta rule:
/// mixer_work.hpp): `flops` on the tensor cores in small per-chunk matmuls, `bytes` read and written, `tiles`
/// independent blocks (sequences × chunks × heads), `kernels` launches.
struct ScanShape {
  double flops = 0;
  double bytes = 0;
  std::int64_t tiles = 1;
  int kernels = 1;
};

/// A memory-bound op: `bytes` read + written in `kernels` launches.
struct MemoryShape {
  double bytes = 0;
  int kernels = 1;
};

/// nccl-tests conventions: bytes is the buffer size nccl-tests reports (the full gathered / reduced buffer
/// for all_gather / reduce_scatter / all_reduce, the send buffer of one rank for all_to_all, the message for
/// send_recv), and time = latency + bytes × bus factor / bus bandwidth.
enum class Collective : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };

[[nodiscard]] std::string_view to_string(Collective collective);

/// Where a group's ranks sit: `ranks` in all, `ranks_per_domain` of them inside each NVLink domain.
struct GroupPlacement {
  int ranks = 1;
  int ranks_per_domain = 1;
  [[nodiscard]] bool spans_domains() const { return ranks > ranks_per_domain; }
};

struct CollectiveShape {
  Collective collective = Collective::all_gather;
  double bytes = 0;
  GroupPlacement placement;
  /// all_to_all only: the share of the off-domain bytes that cross the NICs (1: every copy; a hierarchical
  /// dispatcher that sends a token once per remote domain and fans it out over NVLink there sends less).
  double offdomain_share = 1;
  /// all_to_all: the tokens are written straight into the peers' buffers (DeepEP / HybridEP kernels: one-sided
  /// NVLink stores), so the NVLink part runs at the point-to-point rate instead of NCCL's ring rate. all_reduce
  /// inside one NVLink domain: the serving engines' one-shot all-reduce (each rank stores its buffer into every
  /// peer's, two hops of latency instead of the ring's 2 (n − 1)).
  bool one_sided = false;
};

/// The parallel group a communication runs on (none for compute). etp: the expert tensor-parallel group of MoE
/// layers (Layout::etp), which Transformer Engine's TP overlap does not cover.
enum class CommGroup : std::uint8_t { none, tp, cp, ep, pp, dp, etp };

/// The part of a decoder layer an op belongs to: what selective recompute chooses by (layout.hpp RecomputeModule).
enum class OpPart : std::uint8_t { other, norm, attention_core, mla_up, dense_mlp, moe, moe_act, shared_experts };

/// The submodule of a decoder layer a CUDA graph can capture (Megatron's cuda_graph_scope with Transformer Engine's
/// make_graphed_callables, forward and backward): attn the attention block (input norm, attention, output
/// projection, residual), mlp a dense layer's MLP block, moe_router the pre-MLP norm and the router, moe_preprocess
/// the token dispatcher's preprocessing and permutation; none what stays eager (the all-to-all, the experts, the
/// combine, which the dropless dispatcher's host synchronisation keeps out of graphs).
enum class GraphScope : std::uint8_t { none, attn, mlp, moe_router, moe_preprocess };

using OpShape = std::variant<GemmShape, AttentionShape, ScanShape, MemoryShape, CollectiveShape>;

struct Op {
  std::string_view name;  ///< stable name, e.g. "fc1", "attention", "tp_all_gather_fc1" (static storage)
  Pass pass = Pass::forward;
  Precision precision = Precision::bf16;
  CommGroup group = CommGroup::none;
  OpShape shape;
  bool recompute = false;  ///< a forward op rerun in the backward pass (same key as the original)
  OpPart part = OpPart::other;
  GraphScope scope = GraphScope::none;  ///< the CUDA-graph scope it belongs to (launched eagerly when not captured)

  [[nodiscard]] bool is_communication() const { return std::holds_alternative<CollectiveShape>(shape); }

  /// Canonical key of the op for measured overrides: name, pass, precision and exact shape, e.g.
  /// "fc1.wgrad fp8 m=28672 n=4096 k=8192", "attention.forward bf16 b=1 h=8 kv=2 q=4096 k=8192 d=128 mask=0.508
  /// steps=2", "swiglu.forward bytes=1.1e+08 kernels=1", "tp_all_gather_fc1 all_gather bytes=6.7e+07 ranks=4
  /// local=4".
  [[nodiscard]] std::string key() const;
};

}  // namespace dgx::llm
