// The α-β cost of collectives on the system's links, with the nccl-tests bus-bandwidth conventions.
//
// Placement: a group whose ranks are `stride` apart in the rank order (TP innermost) has
// min(ranks, domain / stride) ranks inside each NVLink domain. A group inside one domain runs at the NVLink
// bus bandwidth. A ring that spans domains is limited by the NICs: with one NIC per GPU and NCCL running one
// ring per local rank, the bus bandwidth is ranks_per_domain × NIC bandwidth (capped by NVLink) — the measured
// ~390 GB/s of 8×400 Gb/s nodes and ~47 GB/s of one NIC (nccl-tests all_reduce_perf figures from the
// project's research notes, which are not in this repository; dgxhost --plugin all_reduce re-measures them). An
// all-to-all sends the off-domain share of its buffer over the GPU's own NIC and the rest over NVLink, concurrently.
#pragma once

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/ops.hpp"

namespace dgx::llm {

/// nccl-tests bus factor: all_reduce 2(n−1)/n; all_gather, reduce_scatter, all_to_all (n−1)/n; send_recv 1.
[[nodiscard]] double bus_factor(Collective collective, int ranks);

/// Sequential latency-bound steps: ring all_reduce 2(n−1), ring all_gather / reduce_scatter n−1,
/// all_to_all and send_recv 1 (all peers at once).
[[nodiscard]] int latency_steps(Collective collective, int ranks);

/// Placement of a group of `ranks` ranks spaced `stride` apart on a system whose NVLink domain has `domain` GPUs.
[[nodiscard]] GroupPlacement place_group(int stride, int ranks, int domain);

/// Bus bandwidth in bytes/s of a collective on a placed group; an all_to_all sends `offdomain_share` of its
/// off-domain bytes over the NICs (CollectiveShape::offdomain_share), and its NVLink part runs at the ring's rate or,
/// `one_sided` (CollectiveShape::one_sided), at the point-to-point rate.
[[nodiscard]] double bus_bandwidth(const SystemProfile& system, Collective collective, GroupPlacement placement,
                                   double offdomain_share = 1, bool one_sided = false);

/// Seconds of one collective: latency_steps × hop latency + bytes × bus_factor / bus_bandwidth.
[[nodiscard]] double collective_seconds(const SystemProfile& system, Collective collective, double bytes,
                                        GroupPlacement placement, double offdomain_share = 1, bool one_sided = false);

/// The share of an MoE all-to-all's off-domain copies a hierarchical dispatcher (DeepEP, HybridEP: Megatron's
/// flex dispatcher) sends over the NICs: it ships a token once to each remote NVLink domain holding one of its
/// top_k experts and fans it out over NVLink there, so (D − 1)(1 − (1 − 1/D)^k) transfers replace the k(D − 1)/D
/// copies of a flat all-to-all over D domains (1 within one domain).
[[nodiscard]] double flex_offdomain_share(GroupPlacement placement, int top_k);

}  // namespace dgx::llm
