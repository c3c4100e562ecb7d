#include "explore_mode.hpp"

#include <algorithm>

#include <dgx/sdk/error.hpp>

#include "notes.hpp"
#include "params.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::NotePlacement;
using dgx::sdk::text::duration;
using dgx::sdk::text::fixed;
using dgx::sdk::text::grouped;

std::string precision_list(const InferenceSettings& s) {
  std::string out;
  for (const llm::Precision p : s.precisions) {
    out += (out.empty() ? "" : ", ") + std::string(llm::to_string(p)) + " (KV " +
           std::string(llm::to_string(s.kv_precision_for(p))) + ")";
  }
  return out;
}

std::string sweep_note(const InferenceSettings& s, const Assumptions& a) {
  const llm::ServeConfig& c = s.config;
  std::string concurrency =
      "powers of two up to the most that fit, and offline (" + std::string(key::explore_concurrency) + " lists others)";
  if (!s.explore_concurrency.empty()) {
    concurrency.clear();
    for (const int v : s.explore_concurrency) {
      concurrency += (concurrency.empty() ? "" : ", ") + std::to_string(v);
    }
    concurrency += " (" + std::string(key::explore_concurrency) + ") and offline";
  }
  std::string out = "Layouts: TP 1-" + std::to_string(std::min(a.system.nvlink_domain, a.model.heads)) +
                    " (powers of two) x PP 1, 2, 4, 8" + (a.model.moe() ? " x EP dividing TP and the experts" : "") +
                    ", at most the fleet's " + std::to_string(s.gpus) + " GPUs per replica (" + key::gpus +
                    "); parallel.* only set --mode project's configuration.\nPrecisions: " + precision_list(s) +
                    ".\nConcurrency per replica: " + concurrency + ".\nRequests: ISL " + std::to_string(c.isl) +
                    " / OSL " + std::to_string(c.osl) + " tokens";
  if (c.has_spread()) {
    out += " (the sweep projects the steady state of these means; --mode project simulates the spread)";
  }
  out +=
      "; token budget " + std::to_string(c.batch_tokens()) + ", max batch size " + std::to_string(c.batch_size()) +
      ", KV fraction " + fixed(c.kv_fraction(), 2) + ".\nSLOs (p99): TTFT <= " + dgx::sdk::text::duration(s.slo.ttft) +
      ", TPOT <= " + dgx::sdk::text::duration(s.slo.tpot) + " (" + key::slo_ttft + ", " + key::slo_tpot + "; 0: none).";
  return out;
}

std::string point_line(const llm::ServeProjection& p, bool moe) {
  std::string out = llm::describe_serve_point(p, moe) + ": " + fixed(p.output_tokens_per_s_per_gpu, 0) +
                    " tok/s/GPU, " + fixed(p.output_tokens_per_s_per_user, 1) + " tok/s/user, TTFT " +
                    dgx::sdk::text::duration(p.ttft.p99) + ", TPOT " + dgx::sdk::text::duration(p.tpot.p99);
  if (p.usd_per_million_output_tokens) {
    out += ", $" + fixed(*p.usd_per_million_output_tokens, 3) + "/Mtok";
  }
  return out;
}

std::vector<std::size_t> front_by_user_speed(const llm::ServeExploreResult& r) {
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

std::string pareto_note(const llm::ServeExploreResult& r, const std::vector<std::size_t>& front, bool moe) {
  std::string out = "Marked * in the pareto column: no other configuration gives both more output tokens/s per GPU "
                    "and more tokens/s per user. Fastest per user first:";
  for (const std::size_t i : front) {
    out += "\n" + point_line(r.points[i].projection, moe);
  }
  return out;
}

std::string recommendation_note(const llm::ServeExploreResult& r, const Assumptions& a) {
  if (!r.recommended) {
    return r.verdict;
  }
  std::string out = r.verdict + " (recommended = yes): the cheapest per million output tokens of the " +
                    grouped(static_cast<long long>(
                        std::count_if(r.points.begin(), r.points.end(), [](const auto& p) { return p.meets_slo; }))) +
                    " configurations that meet the SLOs.";
  if (!a.price) {
    out += " No price is known, so cost is compared in GPU-seconds per token.";
  }
  return out;
}

std::string dropped_note(const llm::ServeExploreResult& r) {
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

}  // namespace

llm::ServeSpace explore_space(const InferenceSettings& s) {
  llm::ServeSpace space;
  space.base = s.config;
  space.precisions = s.precisions;
  space.auto_kv = !s.kv_precision;
  space.concurrency = s.explore_concurrency;
  space.max_gpus = s.gpus;
  return space;
}

void run_explore(const dgx::sdk::Host& host, const InferenceSettings& settings, const Assumptions& assumptions) {
  const llm::ServeModel model(assumptions.model, assumptions.system);
  const double start = host.now();
  const auto explored = llm::explore_serving(model, explore_space(settings), settings.slo, assumptions.price);
  if (!explored) {
    const std::string& why = explored.error().message;
    const bool memory = why.find("GiB") != std::string::npos || why.find("does not fit") != std::string::npos;
    throw dgx::sdk::InvalidArgument(why + (memory ? " (more GPUs per replica: --set " + std::string(key::gpus) +
                                                        "=N, a narrower precision or a system with more HBM may fit)"
                                                  : ""));
  }
  const llm::ServeExploreResult& result = *explored;
  const double elapsed = host.now() - start;

  host.note(NotePlacement::before, "Assumptions", assumptions_note(settings, assumptions));
  host.note(NotePlacement::before, "Sweep", sweep_note(settings, assumptions));
  const std::vector<std::size_t> front = front_by_user_speed(result);
  std::vector<std::size_t> shown = front;
  if (settings.explore_all_rows) {
    shown.resize(result.points.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
      shown[i] = i;
    }
  } else if (result.recommended && !result.points[*result.recommended].pareto) {
    shown.push_back(*result.recommended);
  }
  for (const std::size_t i : shown) {
    const llm::ServePoint& p = result.points[i];
    dgx::sdk::Row row = serve_row("explore", RowView::explore, assumptions, settings, p.projection);
    row.field("pareto", p.pareto ? "*" : "").field("recommended", result.recommended == i ? "yes" : "");
    host.emit(row);
  }
  host.note(NotePlacement::after, "Pareto front (tokens/s per GPU vs per user)",
            pareto_note(result, front, assumptions.model.moe()));
  host.note(NotePlacement::after, "Recommendation", recommendation_note(result, assumptions));
  if (const std::string dropped = dropped_note(result); !dropped.empty()) {
    host.note(NotePlacement::after, "Dropped", dropped);
  }
  host.note(NotePlacement::after, "Definitions", definitions_note());
  host.note(NotePlacement::after, "Projection",
            projection_note(assumptions) + " This sweep projected " +
                grouped(static_cast<long long>(result.evaluated)) + " configurations in " + duration(elapsed) + ".");
}

}  // namespace dgx::plugins::llm_inference
