#include "dgx/llm/communication.hpp"

#include "catalog_fixtures.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace dgx::llm;
using dgx::llm::testing::catalog_system;

TEST_CASE("bus factors follow the nccl-tests conventions") {
  CHECK(bus_factor(Collective::all_reduce, 8) == doctest::Approx(2.0 * 7 / 8));
  CHECK(bus_factor(Collective::all_gather, 8) == doctest::Approx(7.0 / 8));
  CHECK(bus_factor(Collective::reduce_scatter, 4) == doctest::Approx(3.0 / 4));
  CHECK(bus_factor(Collective::all_to_all, 2) == doctest::Approx(0.5));
  CHECK(bus_factor(Collective::send_recv, 2) == 1);
  CHECK(bus_factor(Collective::all_gather, 1) == 0);
}

TEST_CASE("groups are placed by their stride in the TP-CP-DP-PP rank order") {
  const GroupPlacement tp = place_group(1, 8, 8);
  CHECK(tp.ranks_per_domain == 8);
  CHECK_FALSE(tp.spans_domains());
  const GroupPlacement dp_after_tp8 = place_group(8, 16, 8);
  CHECK(dp_after_tp8.ranks_per_domain == 1);
  CHECK(dp_after_tp8.spans_domains());
  const GroupPlacement dp_after_tp2 = place_group(2, 64, 8);
  CHECK(dp_after_tp2.ranks_per_domain == 4);
  CHECK(place_group(2, 4, 72).ranks_per_domain == 4);
}

TEST_CASE("bus bandwidth: NVLink inside a domain, the local ranks' NICs across domains") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const double nvlink = 450e9 * h100.efficiency.nvlink_bus;
  const double nic = 50e9 * h100.efficiency.nic;
  CHECK(bus_bandwidth(h100, Collective::all_gather, place_group(1, 8, 8)) == doctest::Approx(nvlink));
  CHECK(bus_bandwidth(h100, Collective::reduce_scatter, place_group(8, 16, 8)) == doctest::Approx(nic));
  CHECK(bus_bandwidth(h100, Collective::reduce_scatter, place_group(2, 64, 8)) == doctest::Approx(4 * nic));
  // Eight local ranks with eight NICs: ~8 × 47 GB/s, the measured ~390 GB/s multi-node ring.
  CHECK(bus_bandwidth(h100, Collective::all_reduce, place_group(1, 64, 8)) ==
        doctest::Approx(std::min(nvlink, 8 * nic)));
  CHECK(bus_bandwidth(h100, Collective::send_recv, place_group(1, 2, 8)) ==
        doctest::Approx(450e9 * h100.efficiency.nvlink_p2p));
}

TEST_CASE("an all-to-all across domains is limited by the off-domain share over the NIC") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const double inside = collective_seconds(h100, Collective::all_to_all, 1e9, place_group(1, 8, 8));
  const double across = collective_seconds(h100, Collective::all_to_all, 1e9, place_group(1, 16, 8));
  CHECK(across > 4 * inside);
}

TEST_CASE("collective time is latency plus bytes times bus factor over bus bandwidth") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const GroupPlacement p = place_group(1, 8, 8);
  const double expected =
      7 * h100.efficiency.nvlink_hop_latency_us * 1e-6 + 1e9 * 7.0 / 8 / bus_bandwidth(h100, Collective::all_gather, p);
  CHECK(collective_seconds(h100, Collective::all_gather, 1e9, p) == doctest::Approx(expected));
  CHECK(collective_seconds(h100, Collective::all_gather, 1e9, place_group(1, 1, 8)) == 0);
  // Small messages are latency bound: more ranks, more time.
  CHECK(collective_seconds(h100, Collective::reduce_scatter, 1e3, place_group(1, 256, 8)) >
        collective_seconds(h100, Collective::reduce_scatter, 1e3, place_group(1, 16, 8)));
}

TEST_CASE("an EP all-to-all stays on NVLink inside an NVL72 rack and goes over the NICs across 8-GPU nodes") {
  const SystemProfile gb200 = catalog_system("gb200-nvl72");
  const SystemProfile b200 = catalog_system("b200");
  const GroupPlacement rack = place_group(1, 64, gb200.nvlink_domain);
  const GroupPlacement nodes = place_group(1, 64, b200.nvlink_domain);
  CHECK_FALSE(rack.spans_domains());
  CHECK(nodes.spans_domains());
  CHECK(nodes.ranks_per_domain == 8);
  const double bytes = 1e9;
  const double nvl72 = collective_seconds(gb200, Collective::all_to_all, bytes, rack);
  const double ib = collective_seconds(b200, Collective::all_to_all, bytes, nodes);
  CHECK(ib > 10 * nvl72);  // 7/8 of the buffer over a 400 Gb/s NIC instead of NVLink 5
}

TEST_CASE("a flex dispatcher sends a token once per remote NVLink domain") {
  // 32 EP ranks over 4 nodes of 8, top-8: 6 of a token's 8 copies leave the node, to 2.7 distinct nodes.
  const GroupPlacement four_nodes{.ranks = 32, .ranks_per_domain = 8};
  CHECK(flex_offdomain_share(four_nodes, 8) == doctest::Approx(3 * (1 - std::pow(0.75, 8)) / 6));
  CHECK(flex_offdomain_share(GroupPlacement{.ranks = 64, .ranks_per_domain = 64}, 8) == 1);  // one NVL72 rack
  CHECK(flex_offdomain_share(four_nodes, 1) == 1);  // one copy per token: nothing to deduplicate
  const SystemProfile h100 = dgx::llm::testing::catalog_system("h100-sxm");
  const double flat = collective_seconds(h100, Collective::all_to_all, 1e9, four_nodes);
  const double flex =
      collective_seconds(h100, Collective::all_to_all, 1e9, four_nodes, flex_offdomain_share(four_nodes, 8));
  CHECK(flex < 0.5 * flat);
}

TEST_CASE("a one-sided all-to-all (DeepEP, HybridEP) runs its NVLink part at the point-to-point rate") {
  const SystemProfile h100 = catalog_system("h100-sxm");
  const GroupPlacement node = place_group(1, 8, 8);
  const double ring = bus_bandwidth(h100, Collective::all_to_all, node);
  const double one_sided = bus_bandwidth(h100, Collective::all_to_all, node, 1, true);
  CHECK(one_sided == doctest::Approx(ring * h100.efficiency.nvlink_p2p / h100.efficiency.nvlink_bus));
  // Across nodes the NICs bind (at the all-to-all's rate of them), whoever writes the NVLink part.
  const GroupPlacement nodes = place_group(1, 32, 8);
  CHECK(bus_bandwidth(h100, Collective::all_to_all, nodes, 1, true) ==
        doctest::Approx(bus_bandwidth(h100, Collective::all_to_all, nodes)));
  CHECK(h100.efficiency.nic_all_to_all < h100.efficiency.nic);
}
