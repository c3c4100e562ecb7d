// The serving explorer: sweep the replica's layout (TP × PP × EP, attention DP for MoE models), precision and
// concurrency with the serving model, and disaggregated deployments (a prefill layout, a decode layout and its
// concurrency, xPyD by rate matching within the GPUs), drop what does not fit, mark one throughput–latency Pareto
// front over both (output tokens/s per GPU against tokens/s per user, both maximized) and recommend the cheapest
// configuration per million output tokens that meets the latency SLOs, saying whether aggregated or disaggregated
// serving wins and why — or say that none meets them and which SLO binds. With an open-loop load (a request rate)
// each aggregated configuration is searched for the highest request rate whose simulated p99 TTFT and TPOT meet the
// SLOs (Vidur's capacity search), and priced at that rate.
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_model.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dgx::llm {

/// The space to sweep. Empty candidate lists take the defaults: TP powers of two up to the NVLink domain (and
/// the heads), PP 1, 2, 4, 8 (up to the layers), EP every divisor of TP that divides the experts (1 for dense),
/// concurrency powers of two up to the most that fit plus that most (offline).
struct ServeSpace {
  ServeConfig base;                   ///< lengths, KV precision, budget, fraction; the layout and load are swept
  std::vector<Precision> precisions;  ///< precisions the system lacks are skipped with a note
  bool auto_kv = false;               ///< each precision with its auto_kv_precision (else base.kv_precision)
  std::vector<int> tp, pp, ep, concurrency;
  int max_gpus = 0;                ///< GPUs per replica at most (the fleet); 0: no limit
  bool attention_dp = true;        ///< MoE models: also attention-DP layouts (DEP over the TP group)
  bool disaggregated = false;      ///< also disaggregated deployments, rate matched within max_gpus
  bool sweep_speculation = false;  ///< base.speculative set: every point with it and without it
  int capacity_requests = 200;     ///< requests per simulation of the capacity search (open loop)
};

/// Latency objectives on the 99th percentile (MLPerf Inference's convention; with fixed lengths p99 = median).
/// 0: none.
struct ServeSlo {
  double ttft = 0;
  double tpot = 0;
  [[nodiscard]] bool any() const { return ttft > 0 || tpot > 0; }
  /// Whether `p` can be held to objectives at all: an offline point is a batch job, its latencies the steady state
  /// of a full engine (no benchmark's: every request of a batch is sent at once), so it meets none.
  [[nodiscard]] bool applies_to(const ServeProjection& p) const { return !p.offline; }
  [[nodiscard]] bool met_by(const ServeProjection& p) const {
    return !any() || (applies_to(p) && (ttft <= 0 || p.ttft.p99 <= ttft) && (tpot <= 0 || p.tpot.p99 <= tpot));
  }
};

struct ServePoint {
  ServeProjection projection;
  bool pareto = false;
  bool meets_slo = false;
};

struct ServeExploreResult {
  std::vector<ServePoint> points;          ///< every feasible configuration, by layout, precision, concurrency
  std::optional<std::size_t> recommended;  ///< cheapest per million output tokens meeting the SLOs
  std::string verdict;                     ///< the recommendation, or why there is none and which SLO binds
  std::string mode_verdict;                ///< aggregated or disaggregated: which wins and why (empty: one mode)
  bool capacity_search = false;            ///< open loop: each point is its configuration's highest SLO rate
  std::vector<std::string> notes;          ///< precisions skipped, layouts that do not fit (one line each)
  std::uint64_t evaluated = 0;             ///< configurations projected
  std::uint64_t infeasible = 0;            ///< (layout, precision) pairs that do not fit or are invalid
};

/// An error only when nothing at all is feasible (naming why, e.g. the leanest layout's memory).
[[nodiscard]] Expected<ServeExploreResult> explore_serving(const ServeModel& model, const ServeSpace& space,
                                                           const ServeSlo& slo, const std::optional<Price>& price);

/// The highest request rate at which `config` (open loop) meets `slo` in simulation, found by bisection between 0
/// and the replica's saturation rate; nullopt when not even a trickle meets it. `requests` per simulation.
[[nodiscard]] std::optional<ServeProjection> max_rate_meeting(const ServeModel& model, ServeConfig config,
                                                              const ServeCapacity& capacity, const ServeSlo& slo,
                                                              const std::optional<Price>& price, int requests);

/// A fleet that carries a request rate: whole replicas (or disaggregated deployments) of one explored point, each at
/// the rate its point serves within the SLOs (closed loop: its requests/s at its concurrency; open loop: the highest
/// rate that meets the SLOs). The fleet's requests are assumed spread evenly over its replicas.
struct ServeFleet {
  std::size_t point = 0;               ///< into ServeExploreResult::points
  int replicas = 0;                    ///< ceil(rate / per_replica)
  int gpus = 0;                        ///< replicas × the point's GPUs
  double rate = 0;                     ///< requests/s the fleet must carry
  double per_replica = 0;              ///< requests/s one replica serves within the SLOs
  std::optional<double> usd_per_hour;  ///< the fleet's GPUs at the point's price
};

/// The point meeting the SLOs whose fleet for `rate` requests/s takes the fewest GPUs (ties: the cheaper per million
/// tokens); an error naming the GPUs the best one needs when that exceeds `max_gpus` (0: no limit), or saying that no
/// point meets the SLOs.
[[nodiscard]] Expected<ServeFleet> size_fleet(const ServeExploreResult& result, double rate, int max_gpus);

/// "TP2 PP1 fp8 at 64 in flight" / "... offline (512 in flight)": a point in words.
[[nodiscard]] std::string describe_serve_point(const ServeProjection& p, bool moe);

}  // namespace dgx::llm
