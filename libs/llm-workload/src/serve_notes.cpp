#include "dgx/llm/workload/serve_notes.hpp"

#include <algorithm>

#include <dgx/sdk/text.hpp>

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

}  // namespace

std::string serve_point_summary(const ServeProjection& p, bool moe) {
  std::string out = describe_serve_point(p, moe) + ": " + text::fixed(p.output_tokens_per_s_per_gpu, 0) +
                    " tok/s/GPU, " + text::fixed(p.output_tokens_per_s_per_user, 1) + " tok/s/user, TTFT " +
                    text::duration(p.ttft.p99) + ", TPOT " + text::duration(p.tpot.p99);
  if (p.usd_per_million_output_tokens) {
    out += ", $" + text::fixed(*p.usd_per_million_output_tokens, 3) + "/Mtok";
  }
  return out;
}

std::vector<std::size_t> front_by_user_speed(const ServeExploreResult& r) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    if (r.points[i].pareto) {
      front.push_back(i);
    }
  }
  std::sort(front.begin(), front.end(), [&](std::size_t x, std::size_t y) {
    return r.points[x].projection.output_tokens_per_s_per_user > r.points[y].projection.output_tokens_per_s_per_user;
  });
  return front;
}

std::string serve_pareto_note(const ServeExploreResult& r, const std::vector<std::size_t>& front, bool moe) {
  std::string out = "Marked * in the pareto column: no other configuration gives both more output tokens/s per GPU "
                    "and more tokens/s per user. Fastest per user first:";
  for (const std::size_t i : front) {
    out += "\n" + serve_point_summary(r.points[i].projection, moe);
  }
  return out;
}

std::string serve_recommendation_note(const ServeExploreResult& r, bool priced) {
  if (!r.recommended) {
    return r.verdict;
  }
  const auto meeting = std::count_if(r.points.begin(), r.points.end(), [](const auto& p) { return p.meets_slo; });
  std::string out = r.verdict + " (recommended = yes): the cheapest per million output tokens of the " +
                    text::grouped(static_cast<long long>(meeting)) + " configurations that meet the SLOs.";
  if (!priced) {
    out += " No price is known, so cost is compared in GPU-seconds per token.";
  }
  return out;
}

std::string serve_dropped_note(const ServeExploreResult& r) {
  std::string out;
  if (r.infeasible > 0) {
    out = std::to_string(r.infeasible) +
          " (layout, precision) pairs cannot run: invalid for the model (heads, KV heads, experts), beyond the NVLink "
          "domain, or the weights leave no room for one request's KV cache.";
  }
  for (const std::string& note : r.notes) {
    out += (out.empty() ? "" : "\n") + note + ".";
  }
  return out;
}

}  // namespace dgx::llm::workload
