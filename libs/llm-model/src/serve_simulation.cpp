#include "dgx/llm/serve_simulation.hpp"

#include "dgx/llm/serve_random.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <utility>

namespace dgx::llm {

namespace {

/// Iterations a closed-loop run may take: enough for a steady state, few enough for an answer in well under a second.
constexpr double kIterationBudget = 60000;
/// Seeds the arrivals apart from the lengths, so that changing the rate keeps the requests.
constexpr std::uint64_t kArrivalStream = 0x5851f42d4c957f2dULL;

struct Request {
  int isl = 0, osl = 0;
  double sent = 0, first = -1, done = -1;
  int prefilled = 0;
  double generated = 0;  ///< output tokens so far (fractional: the mean accepted drafts per step)
};

/// The gaps between streamed chunks: each iteration's length, weighted by the requests that received a chunk.
struct Gaps {
  std::vector<std::pair<double, double>> weighted;  ///< (seconds, requests)
};

double weighted_quantile(std::vector<std::pair<double, double>> values, double p) {
  std::sort(values.begin(), values.end());
  double total = 0;
  for (const auto& v : values) {
    total += v.second;
  }
  double seen = 0;
  for (const auto& [value, weight] : values) {
    seen += weight;
    if (seen >= p * total) {
      return value;
    }
  }
  return values.empty() ? 0 : values.back().first;
}

LatencyStats stats(const std::vector<double>& values) {
  if (values.empty()) {
    return {};
  }
  const double sum = std::accumulate(values.begin(), values.end(), 0.0);
  return {.median = quantile(values, 0.5),
          .p99 = quantile(values, 0.99),
          .mean = sum / static_cast<double>(values.size()),
          .p90 = quantile(values, 0.9)};
}

LatencyStats gap_stats(const Gaps& gaps) {
  double sum = 0, weight = 0;
  for (const auto& [value, w] : gaps.weighted) {
    sum += value * w;
    weight += w;
  }
  if (weight <= 0) {
    return {};
  }
  return {.median = weighted_quantile(gaps.weighted, 0.5),
          .p99 = weighted_quantile(gaps.weighted, 0.99),
          .mean = sum / weight,
          .p90 = weighted_quantile(gaps.weighted, 0.9)};
}

/// The engine: admitted requests in admission order, a FIFO of waiting ones.
class Engine {
public:
  Engine(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& c, double kv_tokens, int limit)
      : steps_(steps), shape_(shape), budget_(c.replica_batch_tokens()), kv_tokens_(kv_tokens), limit_(limit),
        per_step_(c.speculative.tokens_per_step()), verify_(c.speculative.verify_tokens()),
        lookahead_(c.speculative.active() ? c.speculative.draft_tokens : 0) {}

  void send(Request* r) { waiting_.push_back(r); }
  [[nodiscard]] bool idle() const { return active_.empty() && waiting_.empty(); }
  [[nodiscard]] std::size_t waiting() const { return waiting_.size(); }
  [[nodiscard]] double now() const { return now_; }
  void wait_until(double t) { now_ = std::max(now_, t); }

  /// Takes waiting requests in while they fit: first come, first served (the head waits for room; alone, a drawn
  /// outlier runs anyway).
  void admit() {
    while (!waiting_.empty() && static_cast<double>(active_.size()) < std::min<double>(limit_, budget_)) {
      Request* r = waiting_.front();
      const double need = reserved(*r);
      if (reserved_ + need > kv_tokens_ && !active_.empty()) {
        break;
      }
      reserved_ += need;
      active_.push_back(r);
      waiting_.pop_front();
    }
  }

  /// One iteration: admit, build the batch, time it, advance every request in it. Returns the finished ones.
  std::vector<Request*> iterate(SimulationResult& result, Gaps& gaps) {
    admit();
    StepLoad load;
    load.verify = verify_;
    std::vector<std::pair<Request*, int>> chunks;
    for (const Request* r : active_) {
      if (r->prefilled == r->isl) {
        load.decode_seqs += 1;
        load.decode_kv_tokens += r->isl + r->generated;
      }
    }
    double room = budget_ - load.decode_seqs * verify_;
    for (Request* r : active_) {
      if (r->prefilled < r->isl && room >= 1) {
        const int chunk = static_cast<int>(std::min<double>(r->isl - r->prefilled, room));
        chunks.emplace_back(r, chunk);
        load.prefill_tokens += chunk;
        load.prefill_pairs += chunk * (r->prefilled + 0.5 * (chunk + 1));
        load.logit_rows += r->prefilled + chunk == r->isl ? 1 : 0;
        room -= chunk;
      }
    }
    load.logit_rows += load.decode_seqs * verify_;
    const double seconds = steps_.step(shape_, load).seconds;
    now_ += seconds;
    if (load.decode_seqs > 0) {
      gaps.weighted.emplace_back(seconds, load.decode_seqs);
    }
    result.mean_decode_batch += load.decode_seqs;
    result.mean_decode_context += load.decode_kv_tokens;
    result.mean_prefill_tokens += load.prefill_tokens;
    ++result.iterations;
    return advance(chunks);
  }

private:
  [[nodiscard]] double reserved(const Request& r) const { return r.isl + r.osl + lookahead_; }

  std::vector<Request*> advance(const std::vector<std::pair<Request*, int>>& chunks) {
    std::vector<Request*> finished;
    for (Request* r : active_) {
      if (r->prefilled == r->isl && r->generated < r->osl) {
        r->generated = std::min<double>(r->osl, r->generated + per_step_);
      }
    }
    for (const auto& [r, chunk] : chunks) {
      r->prefilled += chunk;
      if (r->prefilled == r->isl) {
        r->first = now_;
        r->generated = 1;
      }
    }
    for (auto it = active_.begin(); it != active_.end();) {
      Request* r = *it;
      if (r->generated >= r->osl - 1e-9) {
        r->done = now_;
        reserved_ -= reserved(*r);
        finished.push_back(r);
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    return finished;
  }

  const ServeStepModel& steps_;
  ServeShape shape_;
  double budget_, kv_tokens_;
  int limit_;
  double per_step_;
  int verify_, lookahead_;
  double now_ = 0, reserved_ = 0;
  std::vector<Request*> active_;
  std::deque<Request*> waiting_;
};

/// What a finished request adds to the statistics.
struct Collector {
  std::vector<double> ttft, tpot, e2e;
  double output_tokens = 0;
  double first_send = -1;

  void add(const Request& r) {
    ttft.push_back(r.first - r.sent);
    e2e.push_back(r.done - r.sent);
    if (r.osl > 1) {
      tpot.push_back((r.done - r.first) / (r.osl - 1));
    }
    output_tokens += r.osl;
    first_send = first_send < 0 ? r.sent : std::min(first_send, r.sent);
  }

  void finish(SimulationResult& result, const Gaps& gaps, double end) const {
    result.duration = end - std::max(0.0, first_send);
    result.output_tokens = output_tokens;
    const double iterations = std::max(1, result.iterations);
    result.mean_decode_context /= std::max(1.0, result.mean_decode_batch);
    result.mean_decode_batch /= iterations;
    result.mean_prefill_tokens /= iterations;
    result.mean_iteration = end / iterations;
    result.ttft = stats(ttft);
    result.tpot = stats(tpot);
    result.e2e = stats(e2e);
    result.itl = gap_stats(gaps);
  }
};

std::vector<Request> make_requests(const ServeConfig& config, int count, int context, std::uint64_t seed) {
  std::vector<Request> pool;
  pool.reserve(static_cast<std::size_t>(count));
  for (const RequestLengths& l : draw_lengths(config, count, context, seed)) {
    pool.push_back(Request{.isl = l.isl, .osl = l.osl});
  }
  return pool;
}

}  // namespace

double quantile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(values.size() - 1, below + 1);
  return values[below] + (rank - static_cast<double>(below)) * (values[above] - values[below]);
}

std::vector<RequestLengths> draw_lengths(const ServeConfig& c, int count, int context, std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<RequestLengths> out(static_cast<std::size_t>(std::max(0, count)));
  if (c.lengths && !c.lengths->rows.empty()) {
    const std::vector<RequestLengths>& rows = c.lengths->rows;
    std::vector<double> cumulative;
    cumulative.reserve(rows.size());
    double total = 0;
    for (const RequestLengths& r : rows) {
      total += r.weight;
      cumulative.push_back(total);
    }
    for (RequestLengths& r : out) {
      const double u = rng.uniform() * total;
      const auto it = std::lower_bound(cumulative.begin(), cumulative.end(), u);
      const RequestLengths& row = rows[std::min<std::size_t>(rows.size() - 1, it - cumulative.begin())];
      r = RequestLengths{.isl = row.isl, .osl = row.osl};
    }
    return out;
  }
  const auto draw = [&](double mean, double stdev, int low, int high) {
    const double value = stdev > 0 ? rng.normal(mean, stdev) : mean;
    return std::clamp(static_cast<int>(std::lround(value)), low, std::max(low, high));
  };
  for (RequestLengths& r : out) {
    r.isl = draw(c.isl, c.isl_stdev, 1, context - 1);
    r.osl = draw(c.osl, c.osl_stdev, 1, context - r.isl);
  }
  return out;
}

std::vector<double> arrival_times(const ServeConfig& c, int count, std::uint64_t seed) {
  std::vector<double> out(static_cast<std::size_t>(std::max(0, count)), 0.0);
  if (c.arrival == Arrival::burst || c.request_rate <= 0) {
    return out;
  }
  SplitMix64 rng(seed ^ kArrivalStream);
  for (std::size_t i = 1; i < out.size(); ++i) {
    const double gap = c.arrival == Arrival::constant ? 1.0 / c.request_rate : rng.exponential(c.request_rate);
    out[i] = out[i - 1] + gap;
  }
  return out;
}

SimulationResult simulate_serving(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& config,
                                  double kv_tokens, int in_flight, int requests, std::uint64_t seed) {
  const int limit = std::max(1, in_flight);
  if (requests <= 0) {
    // Enough requests for the steady state to dominate, within the iteration budget.
    const double by_budget = kIterationBudget * limit / std::max(1, config.osl);
    requests = static_cast<int>(std::clamp(std::min(8.0 * limit, by_budget), 2.0 * limit, 20000.0));
  }
  std::vector<Request> pool = make_requests(config, requests, steps.model().context, seed);
  Engine engine(steps, shape, config, kv_tokens, limit);
  // The first `limit` requests arrive together, a burst no steady state has: they warm the engine up and are left
  // out of the statistics (AIPerf's warm-up requests), and the duration starts when the first measured one is sent.
  std::size_t next = 0;
  for (; next < std::min<std::size_t>(pool.size(), limit); ++next) {
    engine.send(&pool[next]);
  }
  const std::size_t warmup = std::min<std::size_t>(limit, pool.size() / 4);
  SimulationResult result;
  result.requests = static_cast<int>(pool.size() - warmup);
  Collector collect;
  Gaps gaps;
  while (!engine.idle()) {
    for (Request* r : engine.iterate(result, gaps)) {
      if (r - pool.data() >= static_cast<std::ptrdiff_t>(warmup)) {
        collect.add(*r);
      }
      if (next < pool.size()) {
        pool[next].sent = engine.now();
        engine.send(&pool[next++]);
      }
    }
  }
  collect.finish(result, gaps, engine.now());
  return result;
}

SimulationResult simulate_open_loop(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& config,
                                    double kv_tokens, int engine_limit, int requests, std::uint64_t seed) {
  const int count = requests > 0 ? requests : kDefaultOpenLoopRequests;
  std::vector<Request> pool = make_requests(config, count, steps.model().context, seed);
  const std::vector<double> arrivals = arrival_times(config, count, seed);
  Engine engine(steps, shape, config, kv_tokens, std::max(1, engine_limit));
  SimulationResult result;
  result.requests = count;
  if (count > 1 && arrivals.back() > 0) {
    result.offered_rate = (count - 1) / arrivals.back();
  }
  Collector collect;
  Gaps gaps;
  std::size_t next = 0;
  while (next < pool.size() || !engine.idle()) {
    if (engine.idle()) {
      engine.wait_until(arrivals[next]);
    }
    const bool before_last = next < pool.size();
    for (; next < pool.size() && arrivals[next] <= engine.now(); ++next) {
      pool[next].sent = arrivals[next];
      engine.send(&pool[next]);
    }
    if (before_last && next == pool.size()) {
      engine.admit();
      result.queued_at_last_arrival = static_cast<int>(engine.waiting());
    }
    for (const Request* r : engine.iterate(result, gaps)) {
      collect.add(*r);
    }
  }
  collect.finish(result, gaps, engine.now());
  return result;
}

}  // namespace dgx::llm
