// The explore texts of a serving workload, the serving counterparts of training_notes.hpp: the throughput-latency
// Pareto front (output tokens/s per GPU against tokens/s per user), the recommendation within the SLOs and what
// the sweep dropped.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dgx/llm/serve_explorer.hpp"
#include "dgx/llm/serve_model.hpp"

namespace dgx::llm::workload {

/// "TP2 PP1 fp8, offline: 1234 tok/s/GPU, 12.3 tok/s/user, TTFT 850 ms, TPOT 45.0 ms, $0.123/Mtok".
[[nodiscard]] std::string serve_point_summary(const ServeProjection& projection, bool moe);

/// The indices of the Pareto front's points, fastest per user first.
[[nodiscard]] std::vector<std::size_t> front_by_user_speed(const ServeExploreResult& result);

/// One line per point of `front` (front_by_user_speed), after what the front means.
[[nodiscard]] std::string serve_pareto_note(const ServeExploreResult& result, const std::vector<std::size_t>& front,
                                            bool moe);

/// The explorer's verdict: the cheapest per million output tokens that meets the SLOs ("(recommended = yes)"), or
/// why none does and which SLO binds; `priced`: a price is known (else cost is GPU-seconds per token).
[[nodiscard]] std::string serve_recommendation_note(const ServeExploreResult& result, bool priced);

/// The (layout, precision) pairs that cannot run and the explorer's remarks; empty when nothing was dropped.
[[nodiscard]] std::string serve_dropped_note(const ServeExploreResult& result);

}  // namespace dgx::llm::workload
