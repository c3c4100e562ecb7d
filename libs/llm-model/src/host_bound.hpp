// Internal: the time the GPU waits for the host in a pass of a mixture-of-experts layer. Outside CUDA graphs every
// kernel is issued by the host (Python of Megatron and Transformer Engine, PyTorch's dispatch, the launch), and the
// dropless token dispatcher synchronises the host with the GPU in every MoE layer's forward: the host needs the
// tokens each local expert received (tokens_per_expert.tolist() in Megatron's TEGroupedMLP) to size the experts'
// grouped GEMMs, so it waits until the dispatch has run and the launch queue is empty. After that the GPU runs each
// op only once the host has issued it: where the host is slower than the kernels it issues, the GPU idles.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/layout.hpp"
#include "dgx/llm/ops.hpp"

#include <vector>

namespace dgx::llm::detail {

/// Idle GPU time of one pass of `ops` (their GPU times in `seconds`, same order), the host issuing each op outside
/// the captured `graphs` at Software::host_op_us per kernel and each captured region with one graph launch.
/// Forward: the queue is replayed from the dispatcher's synchronisation (after the EP dispatch, or the permutation
/// without EP) to the next one, the GPU starting each op when the host has issued it. Backward (no
/// synchronisation): the host runs ahead across layers, so only host work beyond the pass's GPU time is idle.
[[nodiscard]] double host_bound_seconds(const std::vector<Op>& ops, const std::vector<double>& seconds,
                                        const Software& software, GraphScopes graphs, bool forward);

}  // namespace dgx::llm::detail
