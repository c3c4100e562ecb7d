#include "dgx/llm/serve_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

namespace dgx::llm {

namespace {

/// Iterations the simulation may run: enough for a steady state, few enough for an answer in well under a second.
constexpr double kIterationBudget = 60000;

struct Request {
  int isl = 0, osl = 0;
  double sent = 0, first = -1, done = -1;
  int prefilled = 0, generated = 0;
};

int draw(std::mt19937_64& rng, double mean, double stdev, int low, int high) {
  const double value = stdev > 0 ? std::normal_distribution<double>(mean, stdev)(rng) : mean;
  return std::clamp(static_cast<int>(std::lround(value)), low, std::max(low, high));
}

std::vector<Request> draw_requests(const ServeConfig& c, int count, int context, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Request> out(static_cast<std::size_t>(count));
  for (Request& r : out) {
    r.isl = draw(rng, c.isl, c.isl_stdev, 1, context - 1);
    r.osl = draw(rng, c.osl, c.osl_stdev, 1, context - r.isl);
  }
  return out;
}

LatencyStats stats(const std::vector<double>& values) {
  if (values.empty()) {
    return {};
  }
  double sum = 0;
  for (const double v : values) {
    sum += v;
  }
  return {quantile(values, 0.5), quantile(values, 0.99), sum / static_cast<double>(values.size())};
}

/// The engine: admitted requests in admission order, a FIFO of waiting ones.
class Engine {
public:
  Engine(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& c, double kv_tokens, int in_flight)
      : steps_(steps), shape_(shape), budget_(c.batch_tokens()), kv_tokens_(kv_tokens), limit_(in_flight) {}

  void send(Request* r) { waiting_.push_back(r); }
  [[nodiscard]] bool idle() const { return active_.empty() && waiting_.empty(); }

  /// One iteration: admit, build the batch, time it, advance every request in it. Returns the finished ones.
  std::vector<Request*> iterate(SimulationResult& result) {
    admit();
    StepLoad load;
    std::vector<std::pair<Request*, int>> chunks;
    for (Request* r : active_) {
      if (r->prefilled == r->isl) {
        load.decode_seqs += 1;
        load.decode_kv_tokens += r->isl + r->generated;
      }
    }
    double room = budget_ - load.decode_seqs;
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
    load.logit_rows += load.decode_seqs;
    now_ += steps_.step(shape_, load).seconds;
    result.mean_decode_batch += load.decode_seqs;
    result.mean_decode_context += load.decode_kv_tokens;
    result.mean_prefill_tokens += load.prefill_tokens;
    ++result.iterations;
    return advance(chunks);
  }

  [[nodiscard]] double now() const { return now_; }

private:
  void admit() {
    while (!waiting_.empty() && static_cast<double>(active_.size()) < std::min<double>(limit_, budget_)) {
      Request* r = waiting_.front();
      if (reserved_ + r->isl + r->osl > kv_tokens_ && !active_.empty()) {
        break;  // first come, first served: the head waits for room (alone, a drawn outlier runs anyway)
      }
      reserved_ += r->isl + r->osl;
      active_.push_back(r);
      waiting_.pop_front();
    }
  }

  std::vector<Request*> advance(const std::vector<std::pair<Request*, int>>& chunks) {
    std::vector<Request*> finished;
    for (Request* r : active_) {
      if (r->prefilled == r->isl && r->generated < r->osl) {
        ++r->generated;
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
      if (r->generated >= r->osl) {
        r->done = now_;
        reserved_ -= r->isl + r->osl;
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
  double now_ = 0, reserved_ = 0;
  std::vector<Request*> active_;
  std::deque<Request*> waiting_;
};

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

SimulationResult simulate_serving(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& config,
                                  double kv_tokens, int in_flight, int requests, std::uint64_t seed) {
  const int limit = std::max(1, in_flight);
  if (requests <= 0) {
    // Enough requests for the steady state to dominate, within the iteration budget.
    const double by_budget = kIterationBudget * limit / std::max(1, config.osl);
    requests = static_cast<int>(std::clamp(std::min(8.0 * limit, by_budget), 2.0 * limit, 20000.0));
  }
  std::vector<Request> pool = draw_requests(config, requests, steps.model().context, seed);
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
  std::vector<double> ttft, tpot, e2e;
  double first_send = -1;
  while (!engine.idle()) {
    for (Request* r : engine.iterate(result)) {
      if (r - pool.data() >= static_cast<std::ptrdiff_t>(warmup)) {
        ttft.push_back(r->first - r->sent);
        e2e.push_back(r->done - r->sent);
        if (r->osl > 1) {
          tpot.push_back((r->done - r->first) / (r->osl - 1));
        }
        result.output_tokens += r->osl;
        first_send = first_send < 0 ? r->sent : std::min(first_send, r->sent);
      }
      if (next < pool.size()) {
        pool[next].sent = engine.now();
        engine.send(&pool[next++]);
      }
    }
  }
  result.duration = engine.now() - std::max(0.0, first_send);
  const double iterations = std::max(1, result.iterations);
  result.mean_decode_context /= std::max(1.0, result.mean_decode_batch);
  result.mean_decode_batch /= iterations;
  result.mean_prefill_tokens /= iterations;
  result.mean_iteration = result.duration / iterations;
  result.ttft = stats(ttft);
  result.tpot = stats(tpot);
  result.e2e = stats(e2e);
  return result;
}

}  // namespace dgx::llm
