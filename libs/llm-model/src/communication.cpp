#include "dgx/llm/communication.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

double bus_factor(Collective collective, int ranks) {
  if (ranks <= 1) {
    return 0;
  }
  const double n = ranks;
  switch (collective) {
  case Collective::all_reduce: return 2.0 * (n - 1) / n;
  case Collective::all_gather:
  case Collective::reduce_scatter:
  case Collective::all_to_all: return (n - 1) / n;
  case Collective::send_recv: return 1.0;
  }
  return 1.0;
}

int latency_steps(Collective collective, int ranks) {
  if (ranks <= 1) {
    return 0;
  }
  switch (collective) {
  case Collective::all_reduce: return 2 * (ranks - 1);
  case Collective::all_gather:
  case Collective::reduce_scatter: return ranks - 1;
  case Collective::all_to_all:
  case Collective::send_recv: return 1;
  }
  return 1;
}

GroupPlacement place_group(int stride, int ranks, int domain) {
  const int per_domain = stride >= domain ? 1 : std::max(1, domain / std::max(1, stride));
  return GroupPlacement{.ranks = ranks, .ranks_per_domain = std::min(ranks, per_domain)};
}

double bus_bandwidth(const SystemProfile& system, Collective collective, GroupPlacement placement,
                     double offdomain_share, bool one_sided) {
  const Efficiency& e = system.efficiency;
  const double nvlink_ring = system.nvlink_gb_s * 1e9 * e.nvlink_bus;
  const double nvlink_p2p = system.nvlink_gb_s * 1e9 * e.nvlink_p2p;
  const double nic = system.nic_gb_s * 1e9 * e.nic;
  const bool point_to_point =
      collective == Collective::send_recv || (collective == Collective::all_to_all && one_sided);
  if (!placement.spans_domains()) {
    return point_to_point ? nvlink_p2p : nvlink_ring;
  }
  switch (collective) {
  case Collective::send_recv: return nic;
  case Collective::all_to_all: {
    // Off-domain peers over the GPU's own NIC (at the all-to-all's rate of it), on-domain peers over NVLink, at the
    // same time.
    const double n = placement.ranks;
    const double local = placement.ranks_per_domain;
    const double nic_a2a = system.nic_gb_s * 1e9 * e.nic_all_to_all;
    const double nvlink = one_sided ? nvlink_p2p : nvlink_ring;
    const double seconds_per_byte = std::max((local - 1) / n / nvlink, offdomain_share * (n - local) / n / nic_a2a);
    return (n - 1) / n / seconds_per_byte;
  }
  case Collective::all_reduce:
  case Collective::all_gather:
  case Collective::reduce_scatter: return std::min(nvlink_ring, placement.ranks_per_domain * nic);
  }
  return nic;
}

double collective_seconds(const SystemProfile& system, Collective collective, double bytes, GroupPlacement placement,
                          double offdomain_share, bool one_sided) {
  if (placement.ranks <= 1 || bytes <= 0) {
    return 0;
  }
  const double hop_us =
      placement.spans_domains() ? system.efficiency.network_hop_latency_us : system.efficiency.nvlink_hop_latency_us;
  if (collective == Collective::all_reduce && one_sided && !placement.spans_domains()) {
    // One-shot: every rank stores its buffer into each peer's (n − 1 copies out of its NVLink ports), a flag
    // barrier, then a local reduce: two hops whatever n.
    const double p2p = system.nvlink_gb_s * 1e9 * system.efficiency.nvlink_p2p;
    return 2 * hop_us * 1e-6 + bytes * (placement.ranks - 1) / p2p;
  }
  const double latency = latency_steps(collective, placement.ranks) * hop_us * 1e-6;
  return latency + bytes * bus_factor(collective, placement.ranks) /
                       bus_bandwidth(system, collective, placement, offdomain_share, one_sided);
}

double flex_offdomain_share(GroupPlacement placement, int top_k) {
  if (!placement.spans_domains() || top_k < 1) {
    return 1;
  }
  const double domains = static_cast<double>(placement.ranks) / placement.ranks_per_domain;
  const double k = top_k;
  // Of a token's k copies, k·(D − 1)/D land in other domains; the distinct remote domains among them number
  // (D − 1)·(1 − (1 − 1/D)^k) (k experts drawn uniformly, as under balanced routing).
  const double copies = k * (domains - 1) / domains;
  const double distinct = (domains - 1) * (1 - std::pow(1 - 1 / domains, k));
  return copies > 0 ? std::min(1.0, distinct / copies) : 1.0;
}

}  // namespace dgx::llm
