#include "dgx/llm/serve_explorer.hpp"

#include "dgx/llm/explorer.hpp"
#include "dgx/llm/serve_disaggregated.hpp"
#include "dgx/llm/serve_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
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

std::string verdict_without_recommendation(const std::vector<ServePoint>& all, const ServeSlo& slo, bool moe) {
  std::vector<ServePoint> points;  // those the objectives apply to: no batch job's latency says what binds
  std::copy_if(all.begin(), all.end(), std::back_inserter(points),
               [&](const ServePoint& p) { return slo.applies_to(p.projection); });
  if (points.empty()) {
    return "No configuration meets the SLOs: only offline (batch) points were explored, and a batch job is held to "
           "no latency objective.";
  }
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
  const std::string precision(to_string(p.config.precision));
  std::string speculation;
  if (p.config.speculative.active()) {
    speculation = " + " + std::string(to_string(p.config.speculative.kind)) + " " +
                  std::to_string(p.config.speculative.draft_tokens);
  }
  if (p.disaggregation) {
    const ServeDisaggregation& d = *p.disaggregation;
    return "disaggregated " + std::to_string(d.prefill_workers) + "P " + layout_label(d.prefill_layout, moe) + " + " +
           std::to_string(d.decode_workers) + "D " + layout_label(p.config.layout, moe) + " " + precision +
           speculation + ", " + std::to_string(p.in_flight) + " per decode worker (" + std::to_string(p.gpus()) +
           " GPUs)";
  }
  std::string out = layout_label(p.config.layout, moe) + " " + precision + speculation + ", ";
  if (p.open_loop) {
    char rate[48];
    std::snprintf(rate, sizeof rate, "%.3g requests/s", p.config.request_rate);
    return out + (p.config.arrival == Arrival::burst ? std::string("a burst") : std::string(rate));
  }
  if (p.offline) {
    return out + "offline (" + std::to_string(p.in_flight) + " in flight)";
  }
  out += "concurrency " + std::to_string(p.config.concurrency);
  if (p.config.concurrency > p.in_flight) {
    out += " (" + std::to_string(p.in_flight) + " fit, the rest queue)";
  }
  return out;
}

std::optional<ServeProjection> max_rate_meeting(const ServeModel& model, ServeConfig config,
                                                const ServeCapacity& capacity, const ServeSlo& slo,
                                                const std::optional<Price>& price, int requests) {
  config.concurrency = 0;
  config.arrival = config.arrival == Arrival::burst ? Arrival::poisson : config.arrival;
  config.requests = requests;
  config.request_rate = 1e-3;
  const ServeProjection trickle = model.project(config, capacity, price);
  if (!slo.met_by(trickle)) {
    return std::nullopt;
  }
  double low = 0, high = trickle.saturation_rate;
  std::optional<ServeProjection> best;
  for (int i = 0; i < 9; ++i) {
    config.request_rate = i == 0 ? high : 0.5 * (low + high);
    ServeProjection p = model.project(config, capacity, price);
    if (slo.met_by(p) && !p.saturated) {
      low = config.request_rate;
      best = std::move(p);
      if (i == 0) {
        break;
      }
    } else {
      high = config.request_rate;
    }
  }
  return best ? best : std::optional<ServeProjection>(trickle);
}

namespace {

/// The layouts of one precision: TP × PP × EP, and for MoE models attention DP over the TP group (DEP), whose
/// all-to-all may cross NVLink domains (up to the fleet and the experts).
std::vector<ServeLayout> layouts(const ModelConfig& m, const SystemProfile& s, const ServeSpace& space) {
  std::vector<ServeLayout> out;
  for (const int tp : space.tp.empty() ? default_tp(m, s) : space.tp) {
    for (const int pp : space.pp.empty() ? default_pp(m) : space.pp) {
      if (space.max_gpus > 0 && tp * pp > space.max_gpus) {
        continue;
      }
      for (const int ep : space.ep.empty() ? default_ep(m, tp) : space.ep) {
        out.push_back(ServeLayout{.tp = tp, .pp = pp, .ep = ep});
      }
    }
  }
  if (m.moe() && space.attention_dp) {
    const int most = space.max_gpus > 0 ? std::min(space.max_gpus, m.experts) : std::min(s.nvlink_domain, m.experts);
    for (const int tp : powers_of_two(2, most)) {
      if (m.experts % tp == 0) {
        out.push_back(ServeLayout{.tp = tp, .pp = 1, .ep = tp, .attention_dp = true});
      }
    }
  }
  return out;
}

class ServeSweep {
public:
  ServeSweep(const ServeModel& model, const ServeSpace& space, const ServeSlo& slo, const std::optional<Price>& price,
             ServeExploreResult& result)
      : model_(model), space_(space), slo_(slo), price_(price), r_(result) {}

  /// Every layout of `config`'s precision, each with and without speculation when swept.
  void aggregated(ServeConfig config) {
    for (const ServeLayout& layout : layouts(model_.model(), model_.system(), space_)) {
      config.layout = layout;
      for (const SpeculativeConfig& speculative : speculations()) {
        config.speculative = speculative;
        one_layout(config);
      }
    }
  }

  /// Prefill layout × decode layout × decode concurrency, each rate matched within the fleet.
  void disaggregated(ServeConfig config) {
    const std::vector<ServeLayout> all = layouts(model_.model(), model_.system(), space_);
    for (const ServeLayout& prefill : all) {
      if (prefill.pp > 1) {
        continue;  // prefill workers: one stage, TP with EP inside it or attention DP over it (DEP)
      }
      for (const ServeLayout& decode : all) {
        if (decode.pp > 1 || (space_.max_gpus > 0 && prefill.gpus() + decode.gpus() > space_.max_gpus)) {
          continue;
        }
        config.layout = decode;
        for (const SpeculativeConfig& speculative : speculations()) {
          config.speculative = speculative;
          one_pair(config, prefill);
        }
      }
    }
  }

  [[nodiscard]] const std::string& first_reason() const { return first_reason_; }

private:
  [[nodiscard]] std::vector<SpeculativeConfig> speculations() const {
    if (space_.sweep_speculation && space_.base.speculative.active()) {
      return {SpeculativeConfig{}, space_.base.speculative};
    }
    return {space_.base.speculative};
  }

  std::optional<ServeCapacity> fits(const ServeConfig& config) {
    auto capacity = model_.capacity(config);
    if (!capacity) {
      ++r_.infeasible;
      if (first_reason_.empty()) {
        first_reason_ = capacity.error().message;
      }
      return std::nullopt;
    }
    return *capacity;
  }

  void add(ServeProjection projection) {
    r_.points.push_back(ServePoint{.projection = std::move(projection)});
    ++r_.evaluated;
  }

  void one_layout(ServeConfig config) {
    config.concurrency = 0;
    const bool open_loop = config.open_loop();
    config.request_rate = 0;
    config.arrival = Arrival::poisson;
    const auto capacity = fits(config);
    if (!capacity) {
      return;
    }
    if (open_loop) {
      if (auto best = max_rate_meeting(model_, config, *capacity, slo_, price_, space_.capacity_requests)) {
        add(std::move(*best));
      }
      ++r_.evaluated;
      return;
    }
    for (const int c : concurrencies(space_.concurrency, capacity->max_concurrency)) {
      config.concurrency = c;
      add(model_.project(config, *capacity, price_));
    }
  }

  void one_pair(ServeConfig config, const ServeLayout& prefill) {
    config.request_rate = 0;
    config.concurrency = 0;
    const auto capacity = fits(config);
    if (!capacity) {
      return;
    }
    for (const int c : concurrencies(space_.concurrency, capacity->max_concurrency)) {
      config.concurrency = c == 0 ? capacity->max_concurrency : c;
      const DisaggConfig d{.decode = config,
                           .prefill = prefill,
                           .max_gpus = space_.max_gpus,
                           .ttft_slo = slo_.ttft,
                           .poisson = r_.capacity_search};
      auto p = project_disaggregated(model_, d, price_);
      if (p) {
        add(std::move(*p));
      } else {
        ++r_.infeasible;
      }
    }
  }

  const ServeModel& model_;
  const ServeSpace& space_;
  const ServeSlo& slo_;
  const std::optional<Price>& price_;
  ServeExploreResult& r_;
  std::string first_reason_;
};

/// The cheapest SLO-meeting point of one mode.
const ServePoint* best_of(const ServeExploreResult& r, bool disaggregated) {
  if (r.recommended && r.points[*r.recommended].projection.disaggregation.has_value() == disaggregated) {
    return &r.points[*r.recommended];
  }
  const ServePoint* best = nullptr;
  for (const ServePoint& p : r.points) {
    if (p.meets_slo && p.projection.disaggregation.has_value() == disaggregated &&
        (best == nullptr || p.projection.output_tokens_per_s_per_gpu > best->projection.output_tokens_per_s_per_gpu)) {
      best = &p;
    }
  }
  return best;
}

std::string fixed(double value, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

/// Which mode wins and why, from the two best points' numbers.
std::string mode_verdict(const ServeExploreResult& r, const ServeSlo& slo, bool moe) {
  const ServePoint* agg = best_of(r, false);
  const ServePoint* dis = best_of(r, true);
  const bool any_disaggregated =
      std::any_of(r.points.begin(), r.points.end(), [](const ServePoint& p) { return p.projection.disaggregation; });
  if (!any_disaggregated || (agg == nullptr && dis == nullptr)) {
    return {};
  }
  if (dis == nullptr) {
    return "Aggregated wins: no disaggregated deployment meets the SLOs within the GPUs (the prefill and decode "
           "workers' GPUs split a small fleet, and the KV transfer adds to TTFT).";
  }
  const ServeProjection& d = dis->projection;
  const ServeDisaggregation& x = *d.disaggregation;
  const std::string transfer = "KV transfers of " + fixed(x.kv_bytes_per_request / 1e6, 0) + " MB per request (" +
                               seconds_text(x.kv_transfer) + " of TTFT, " +
                               (x.kv_over_network ? "over the scale-out network" : "over NVLink") + ")";
  if (agg == nullptr) {
    return "Disaggregated wins: no aggregated configuration meets the SLOs, since prompt chunks stall its decode "
           "iterations; separate decode workers never see a prompt (TPOT " +
           seconds_text(d.tpot.p99) + "), at the price of " + transfer + ".";
  }
  const ServeProjection& a = agg->projection;
  const double ratio = d.output_tokens_per_s_per_gpu / a.output_tokens_per_s_per_gpu;
  const std::string numbers = fixed(d.output_tokens_per_s_per_gpu, 0) + " against " +
                              fixed(a.output_tokens_per_s_per_gpu, 0) + " output tokens/s per GPU";
  const std::string stall = "an aggregated iteration with a prompt chunk of " + fixed(a.chunk_tokens, 0) +
                            " tokens takes " + seconds_text(a.chunk_step.seconds) + " against " +
                            seconds_text(a.decode_step.seconds) + " without";
  if (ratio > 1) {
    return "Disaggregated wins (" + numbers + ", " + describe_serve_point(d, moe) + " against " +
           describe_serve_point(a, moe) + "): " + stall + ", so holding TPOT <= " + seconds_text(slo.tpot) +
           " keeps aggregated batches small; dedicated decode workers run full batches at TPOT " +
           seconds_text(d.tpot.p99) + ", at the price of " + transfer + ".";
  }
  return "Aggregated wins (" + fixed(a.output_tokens_per_s_per_gpu, 0) + " against " +
         fixed(d.output_tokens_per_s_per_gpu, 0) + " output tokens/s per GPU for the best disaggregated, " +
         describe_serve_point(d, moe) + "): " + stall +
         ", a cost the SLOs tolerate here, while disaggregation splits the GPUs into workers whose rates match only "
         "in whole numbers and adds " +
         transfer + ".";
}

}  // namespace

Expected<ServeExploreResult> explore_serving(const ServeModel& model, const ServeSpace& space, const ServeSlo& slo,
                                             const std::optional<Price>& price) {
  const ModelConfig& m = model.model();
  const SystemProfile& s = model.system();
  ServeExploreResult r;
  if (auto error = serve_request_error(m, space.base)) {
    return *error;
  }
  r.capacity_search = space.base.open_loop();
  ServeConfig config = space.base;
  if (!r.capacity_search) {
    config.isl_stdev = 0;  // the sweep projects the steady state of the mean lengths
    config.osl_stdev = 0;
    config.lengths = nullptr;
  }
  ServeSweep sweep(model, space, slo, price, r);
  for (const Precision precision : space.precisions) {
    if (!s.supports(gemm_precision(precision, s))) {
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
    sweep.aggregated(config);
    if (space.disaggregated) {
      ServeConfig fixed_lengths = config;
      fixed_lengths.isl_stdev = fixed_lengths.osl_stdev = 0;
      fixed_lengths.lengths = nullptr;
      sweep.disaggregated(fixed_lengths);
    }
  }
  if (r.points.empty()) {
    std::string why;
    for (const std::string& note : r.notes) {
      why += (why.empty() ? "" : "; ") + note;
    }
    if (why.empty() && sweep.first_reason().empty() && r.capacity_search) {
      why = "no configuration meets the SLOs even at a trickle of requests";
    }
    return Error{"no configuration of the sweep can serve " + m.name + " on " + s.name + ": " +
                 (sweep.first_reason().empty() ? why : "e.g. " + sweep.first_reason())};
  }
  mark_front_and_recommend(r, slo, m.moe());
  r.mode_verdict = mode_verdict(r, slo, m.moe());
  return r;
}

Expected<ServeFleet> size_fleet(const ServeExploreResult& result, double rate, int max_gpus) {
  if (!(rate > 0)) {
    return Error{"a fleet needs a request rate > 0 requests/s"};
  }
  std::optional<ServeFleet> best;
  for (std::size_t i = 0; i < result.points.size(); ++i) {
    const ServePoint& point = result.points[i];
    const ServeProjection& p = point.projection;
    if (!point.meets_slo || !(p.requests_per_s > 0)) {
      continue;
    }
    const int replicas = static_cast<int>(std::ceil(rate / p.requests_per_s - 1e-9));
    ServeFleet fleet{.point = i,
                     .replicas = replicas,
                     .gpus = replicas * p.gpus(),
                     .rate = rate,
                     .per_replica = p.requests_per_s,
                     .usd_per_hour = std::nullopt};
    if (p.usd_per_million_output_tokens) {
      fleet.usd_per_hour = fleet.replicas * *p.usd_per_million_output_tokens * p.output_tokens_per_s * 3600 / 1e6;
    }
    const auto cheaper = [&](const ServeFleet& other) {
      const auto usd = [&](const ServeFleet& f) {
        return result.points[f.point].projection.usd_per_million_output_tokens.value_or(0);
      };
      return fleet.gpus < other.gpus || (fleet.gpus == other.gpus && usd(fleet) < usd(other));
    };
    if (!best || cheaper(*best)) {
      best = fleet;
    }
  }
  if (!best) {
    return Error{"no explored configuration meets the SLOs, so no fleet of them carries " + fixed(rate, 2) +
                 " requests/s"};
  }
  if (max_gpus > 0 && best->gpus > max_gpus) {
    const ServeProjection& p = result.points[best->point].projection;
    return Error{fixed(rate, 2) + " requests/s within the SLOs needs " + std::to_string(best->gpus) +
                 " GPUs at best (" + std::to_string(best->replicas) + " x " + describe_serve_point(p, false) + ", " +
                 fixed(best->per_replica, 2) + " requests/s each), more than the fleet's " + std::to_string(max_gpus)};
  }
  return *best;
}

}  // namespace dgx::llm
