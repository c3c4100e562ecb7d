#include "dgx/llm/serve_explorer.hpp"

#include "dgx/llm/explorer.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

namespace dgx::llm {

namespace {

std::string seconds_text(double s) {
  char text[32];
  if (s < 1) {
    std::snprintf(text, sizeof text, "%.1f ms", s * 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.2f s", s);
  }
  return text;
}

std::vector<int> powers_of_two(int first, int last) {
  std::vector<int> out;
  for (long long v = first; v <= last; v *= 2) {
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<int> default_tp(const ModelConfig& m, const SystemProfile& s) {
  return powers_of_two(1, std::min(s.nvlink_domain, m.heads));
}

std::vector<int> default_pp(const ModelConfig& m) { return powers_of_two(1, std::min(8, m.layers)); }

std::vector<int> default_ep(const ModelConfig& m, int tp) {
  std::vector<int> out;
  for (int ep = 1; ep <= tp; ++ep) {
    if (tp % ep == 0 && m.experts % ep == 0 && (ep == 1 || m.moe())) {
      out.push_back(ep);
    }
  }
  return out;
}

/// Concurrencies to evaluate for a replica that holds `most` requests: the space's list (those that fit, and the
/// rest as queueing points), else powers of two below `most`; always `most` itself, run offline.
std::vector<int> concurrencies(const std::vector<int>& given, int most) {
  std::set<int> out;
  if (given.empty()) {
    for (const int c : powers_of_two(1, most)) {
      out.insert(c);
    }
  } else {
    out.insert(given.begin(), given.end());
  }
  out.erase(most);
  out.erase(0);
  std::vector<int> list(out.begin(), out.end());
  list.push_back(0);  // offline
  return list;
}

std::string verdict_without_recommendation(const std::vector<ServePoint>& points, const ServeSlo& slo, bool moe) {
  const auto best = [&](auto key) {
    return std::min_element(points.begin(), points.end(),
                            [&](const ServePoint& a, const ServePoint& b) { return key(a) < key(b); });
  };
  const auto ttft_of = [](const ServePoint& p) { return p.projection.ttft.p99; };
  const auto tpot_of = [](const ServePoint& p) { return p.projection.tpot.p99; };
  const auto lowest_ttft = best(ttft_of);
  const auto lowest_tpot = best(tpot_of);
  const bool ttft_possible = slo.ttft <= 0 || ttft_of(*lowest_ttft) <= slo.ttft;
  const bool tpot_possible = slo.tpot <= 0 || tpot_of(*lowest_tpot) <= slo.tpot;
  const std::string ttft_line = "the lowest TTFT is " + seconds_text(ttft_of(*lowest_ttft)) + " (" +
                                describe_serve_point(lowest_ttft->projection, moe) + ")";
  const std::string tpot_line = "the lowest TPOT is " + seconds_text(tpot_of(*lowest_tpot)) + " (" +
                                describe_serve_point(lowest_tpot->projection, moe) + ")";
  if (!ttft_possible && !tpot_possible) {
    return "No configuration meets the SLOs; both bind: " + ttft_line + ", " + tpot_line + ".";
  }
  if (!ttft_possible) {
    return "No configuration meets the SLOs; TTFT <= " + seconds_text(slo.ttft) + " binds: " + ttft_line + ".";
  }
  if (!tpot_possible) {
    return "No configuration meets the SLOs; TPOT <= " + seconds_text(slo.tpot) + " binds: " + tpot_line + ".";
  }
  // Each is reachable alone, never together: the TTFT-compliant point with the lowest TPOT says how far off it is.
  const ServePoint* closest = nullptr;
  for (const ServePoint& p : points) {
    if (ttft_of(p) <= slo.ttft && (closest == nullptr || tpot_of(p) < tpot_of(*closest))) {
      closest = &p;
    }
  }
  return "No configuration meets both SLOs at once; together they bind: within TTFT <= " + seconds_text(slo.ttft) +
         " the lowest TPOT is " + seconds_text(tpot_of(*closest)) + " (" +
         describe_serve_point(closest->projection, moe) + "), above the " + seconds_text(slo.tpot) + " TPOT SLO.";
}

void mark_front_and_recommend(ServeExploreResult& r, const ServeSlo& slo, bool moe) {
  std::vector<CostPoint> costs;
  costs.reserve(r.points.size());
  for (const ServePoint& p : r.points) {
    // Both minimized: the per-token gap a user sees, and GPU-seconds per output token.
    costs.push_back({p.projection.tpot.median, 1.0 / std::max(1e-12, p.projection.output_tokens_per_s_per_gpu)});
  }
  const std::vector<bool> front = pareto_front(costs);
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    r.points[i].pareto = front[i];
    r.points[i].meets_slo = slo.met_by(r.points[i].projection);
    if (!r.points[i].meets_slo) {
      continue;
    }
    const ServeProjection& p = r.points[i].projection;
    if (!r.recommended) {
      r.recommended = i;
      continue;
    }
    const ServeProjection& q = r.points[*r.recommended].projection;
    // Cheapest per million output tokens (= most tokens/s per GPU at one price); ties go to the faster for users.
    const bool cheaper = p.output_tokens_per_s_per_gpu > q.output_tokens_per_s_per_gpu * (1 + 1e-9);
    const bool tie = !cheaper && p.output_tokens_per_s_per_gpu >= q.output_tokens_per_s_per_gpu * (1 - 1e-9);
    if (cheaper || (tie && p.tpot.median < q.tpot.median)) {
      r.recommended = i;
    }
  }
  if (!r.recommended) {
    r.verdict = verdict_without_recommendation(r.points, slo, moe);
    return;
  }
  const ServeProjection& p = r.points[*r.recommended].projection;
  char text[160];
  std::snprintf(text, sizeof text, ": %.0f output tokens/s per GPU, %.1f tokens/s per user",
                p.output_tokens_per_s_per_gpu, p.output_tokens_per_s_per_user);
  r.verdict =
      describe_serve_point(p, moe) + text + ", TTFT " + seconds_text(p.ttft.p99) + ", TPOT " + seconds_text(p.tpot.p99);
  if (p.usd_per_million_output_tokens) {
    std::snprintf(text, sizeof text, ", $%.3f per million output tokens", *p.usd_per_million_output_tokens);
    r.verdict += text;
  }
}

}  // namespace

std::string describe_serve_point(const ServeProjection& p, bool moe) {
  std::string out = layout_label(p.config.layout, moe) + " " + std::string(to_string(p.config.precision)) + ", ";
  if (p.offline) {
    return out + "offline (" + std::to_string(p.in_flight) + " in flight)";
  }
  out += "concurrency " + std::to_string(p.config.concurrency);
  if (p.config.concurrency > p.in_flight) {
    out += " (" + std::to_string(p.in_flight) + " fit, the rest queue)";
  }
  return out;
}

Expected<ServeExploreResult> explore_serving(const ServeModel& model, const ServeSpace& space, const ServeSlo& slo,
                                             const std::optional<Price>& price) {
  const ModelConfig& m = model.model();
  const SystemProfile& s = model.system();
  ServeExploreResult r;
  if (auto error = serve_request_error(m, space.base)) {
    return *error;
  }
  std::string first_reason;
  ServeConfig config = space.base;
  config.isl_stdev = 0;  // the sweep projects the steady state of the mean lengths
  config.osl_stdev = 0;
  for (const Precision precision : space.precisions) {
    if (!s.supports(precision)) {
      ServeConfig probe = config;
      probe.layout = ServeLayout{};
      probe.precision = precision;
      const auto why = serve_config_error(m, s, probe);
      r.notes.push_back(std::string(to_string(precision)) + " skipped: " + (why ? why->message : "unsupported"));
      continue;
    }
    config.precision = precision;
    if (space.auto_kv) {
      config.kv_precision = auto_kv_precision(precision);
    }
    for (const int tp : space.tp.empty() ? default_tp(m, s) : space.tp) {
      for (const int pp : space.pp.empty() ? default_pp(m) : space.pp) {
        if (space.max_gpus > 0 && tp * pp > space.max_gpus) {
          continue;
        }
        for (const int ep : space.ep.empty() ? default_ep(m, tp) : space.ep) {
          config.layout = ServeLayout{.tp = tp, .pp = pp, .ep = ep};
          config.concurrency = 0;
          const auto capacity = model.capacity(config);
          if (!capacity) {
            ++r.infeasible;
            if (first_reason.empty()) {
              first_reason = capacity.error().message;
            }
            continue;
          }
          for (const int c : concurrencies(space.concurrency, capacity->max_concurrency)) {
            config.concurrency = c;
            r.points.push_back(ServePoint{.projection = model.project(config, *capacity, price)});
            ++r.evaluated;
          }
        }
      }
    }
  }
  if (r.points.empty()) {
    std::string why;
    for (const std::string& note : r.notes) {
      why += (why.empty() ? "" : "; ") + note;
    }
    return Error{"no configuration of the sweep can serve " + m.name + " on " + s.name + ": " +
                 (first_reason.empty() ? why : "e.g. " + first_reason)};
  }
  mark_front_and_recommend(r, slo, m.moe());
  return r;
}

}  // namespace dgx::llm
