#include "dgx/llm/serve_model.hpp"

#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_precision.hpp"
#include "dgx/llm/serve_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace dgx::llm {

namespace {

/// The fluid steady state of B requests of fixed lengths (serve_model.hpp).
struct SteadyState {
  double decoding = 0;     ///< D
  double chunk = 0;        ///< prompt tokens of one chunk
  int chunks = 1;          ///< k chunks per prompt
  double chunk_share = 0;  ///< φ (capped at 1)
  double prefill_per_iter = 0;
  double iteration = 0;  ///< t̄: one iteration, the gap between a request's streamed tokens
  double tpot = 0;       ///< t̄ per output token: t̄ / (1 + accepted drafts)
  double ttft = 0;
  double requests_per_s = 0;
  StepCost decode_step, chunk_step;
};

class SteadyStateSolver {
public:
  SteadyStateSolver(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& c)
      : steps_(steps), shape_(shape), isl_(c.isl), osl_(c.osl), budget_(c.replica_batch_tokens()),
        per_step_(c.speculative.tokens_per_step()), verify_(c.speculative.verify_tokens()),
        decode_steps_((c.osl - 1.0) / per_step_) {}

  [[nodiscard]] SteadyState solve(double in_flight) const {
    if (osl_ <= 1) {
      return prefill_only(in_flight);
    }
    const double cap = budget_ * decode_steps_ / (isl_ + decode_steps_ * verify_);
    double decoding = std::min(in_flight, cap);
    SteadyState s;
    for (int i = 0; i < 60; ++i) {
      s = at(decoding, in_flight);
      const double e2e = s.ttft + decode_steps_ * s.iteration;
      const double next = std::min(cap, in_flight * decode_steps_ * s.iteration / e2e);
      const bool converged = std::abs(next - decoding) <= 1e-6 * std::max(1.0, decoding);
      decoding = 0.5 * (decoding + next);
      if (converged) {
        break;
      }
    }
    s = at(decoding, in_flight);
    // Little's law closes the loop: what the fluid TTFT does not cover is queueing for the prompt budget.
    s.requests_per_s = s.decoding / (decode_steps_ * s.iteration);
    s.ttft = std::max(s.ttft, in_flight / s.requests_per_s - decode_steps_ * s.iteration);
    s.tpot = s.iteration / per_step_;
    return s;
  }

  /// Output tokens one decode iteration gives a request: 1, or 1 + accepted drafts.
  [[nodiscard]] double tokens_per_step() const { return per_step_; }

private:
  /// Tokens in a decoding request's KV cache, averaged over its decode steps.
  [[nodiscard]] double decode_context() const { return isl_ + 0.5 * osl_; }

  [[nodiscard]] StepLoad load(double decoding, double prompt_tokens, double prompts_completing) const {
    // Causal attention of a chunk over its prompt: on average a prompt token attends to half the prompt.
    return StepLoad{.decode_seqs = decoding,
                    .decode_kv_tokens = decoding * decode_context(),
                    .prefill_tokens = prompt_tokens,
                    .prefill_pairs = prompt_tokens * 0.5 * (isl_ + 1.0),
                    .logit_rows = decoding * verify_ + prompts_completing,
                    .verify = static_cast<double>(verify_)};
  }

  [[nodiscard]] SteadyState at(double decoding, double in_flight) const {
    SteadyState s;
    s.decoding = decoding;
    const double room = std::max(1.0, budget_ - decoding * verify_);
    s.chunk = std::min<double>(isl_, room);
    s.chunks = static_cast<int>(std::ceil(isl_ / s.chunk - 1e-9));
    s.chunk = static_cast<double>(isl_) / s.chunks;
    s.decode_step = steps_.step(shape_, load(decoding, 0, 0));
    s.chunk_step = steps_.step(shape_, load(decoding, s.chunk, 1.0 / s.chunks));
    const double share = s.chunks * decoding / decode_steps_;
    if (share <= 1) {
      s.chunk_share = share;
      s.iteration = share * s.chunk_step.seconds + (1 - share) * s.decode_step.seconds;
      s.prefill_per_iter = share * s.chunk;
    } else {
      // More prompts than iterations: every iteration carries share/k prompts' worth of chunks, within the budget.
      s.chunk_share = 1;
      s.prefill_per_iter = std::min(share * s.chunk, room);
      const StepCost merged = steps_.step(shape_, load(decoding, s.prefill_per_iter, s.prefill_per_iter / isl_));
      s.iteration = merged.seconds;
    }
    const double wait = in_flight > 1 ? 0.5 * s.iteration : 0.0;
    s.ttft = wait + s.chunks * s.chunk_step.seconds;
    s.requests_per_s = decoding / (decode_steps_ * s.iteration);
    return s;
  }

  /// One output token per request: every iteration is prompts only.
  [[nodiscard]] SteadyState prefill_only(double in_flight) const {
    SteadyState s;
    const double tokens = std::min<double>(budget_, in_flight * isl_);
    s.chunk = std::min<double>(isl_, budget_);
    s.chunks = static_cast<int>(std::ceil(isl_ / s.chunk - 1e-9));
    s.prefill_per_iter = tokens;
    s.chunk_step = steps_.step(shape_, load(0, tokens, tokens / isl_));
    s.decode_step = s.chunk_step;
    s.iteration = s.chunk_step.seconds;
    s.requests_per_s = tokens / isl_ / s.iteration;
    s.ttft = std::max(s.chunks * s.iteration, in_flight / s.requests_per_s);
    return s;
  }

  const ServeStepModel& steps_;
  ServeShape shape_;
  int isl_, osl_;
  double budget_;
  double per_step_;      ///< output tokens per decode step of a request
  int verify_;           ///< positions a decoding request puts through the model per step
  double decode_steps_;  ///< decode iterations a request takes: (osl − 1) / per_step
};

/// The gaps between a request's streamed chunks in the steady state: a share φ of iterations carries a prompt chunk
/// (longer), the rest decode only; the percentiles of that two-valued distribution.
LatencyStats stream_gaps(const SteadyState& s) {
  const double short_gap = s.decode_step.seconds;
  const double long_gap = std::max(short_gap, s.chunk_step.seconds);
  const double phi = std::clamp(s.chunk_share, 0.0, 1.0);
  const auto at = [&](double q) { return q >= 1 - phi ? long_gap : short_gap; };
  if (phi >= 1) {
    return LatencyStats::constant(s.iteration);
  }
  return LatencyStats{.median = at(0.5), .p99 = at(0.99), .mean = s.iteration, .p90 = at(0.9)};
}

double bandwidth_utilisation(const StepCost& decode, double tpot, const SystemProfile& system) {
  return tpot > 0 ? (decode.weight_bytes + decode.kv_bytes) / tpot / system.hbm_bytes_per_s() : 0;
}

/// MFU of one prompt's prefill on the idle replica.
double prefill_mfu(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& c) {
  const double chunk = std::min(c.isl, c.batch_tokens());
  const int chunks = static_cast<int>(std::ceil(c.isl / chunk - 1e-9));
  const double tokens = static_cast<double>(c.isl) / chunks;
  const StepLoad one{
      .prefill_tokens = tokens, .prefill_pairs = tokens * 0.5 * (c.isl + 1.0), .logit_rows = 1.0 / chunks};
  const StepCost cost = steps.step(shape, one);
  const double peak =
      steps.system().dense_peak_flops(gemm_precision(shape.precision, steps.system())) * shape.layout.gpus();
  return peak > 0 ? cost.flops / cost.seconds / peak : 0;
}

std::string provenance(const SystemProfile& system, const StepCost& decode, const StepCost& chunk) {
  const int measured = decode.measured_ops + chunk.measured_ops;
  const std::string ops = measured == 0 ? std::string("roofline (efficiencies of configs/systems, iteration overheads "
                                                      "derived, checked on configs/baselines/inference.toml)")
                                        : std::to_string(measured) + " of " + std::to_string(decode.ops + chunk.ops) +
                                              " ops measured, the rest roofline";
  return std::string("projected: ") + serve_constants::kModelVersion + ", system " + system.name + ", op times: " + ops;
}

/// W: the time to prefill `in_flight` prompts once in iterations of the token budget (prompt-only iterations).
double prefill_wave(const ServeStepModel& steps, const ServeShape& shape, const ServeConfig& c, int in_flight) {
  if (in_flight < 1 || c.isl < 1) {
    return 0;
  }
  const double prompts = static_cast<double>(in_flight) * c.isl;
  const double tokens = std::min<double>(c.replica_batch_tokens(), prompts);
  const double span = std::min<double>(c.isl, tokens);  // a prompt's tokens in one iteration
  const StepLoad full{
      .prefill_tokens = tokens, .prefill_pairs = tokens * 0.5 * (span + 1.0), .logit_rows = tokens / c.isl};
  return prompts * steps.step(shape, full).seconds / tokens;
}

}  // namespace

void apply_engine_calibration(ServeProjection& p) {
  p.model_ttft = p.ttft.mean;
  p.model_tpot = p.tpot.mean;
  const EngineProfile* engine = engine_profile(p.config.engine);
  if (engine == nullptr) {
    return;
  }
  p.engine =
      engine->display + " " + (p.config.engine_version.empty() ? engine->newest().version : p.config.engine_version);
  const EngineCalibration& c = engine->calibration;
  if (!p.config.engine_calibration || p.offline || !c.fitted()) {
    return;
  }
  // Open loop: the simulation's queueing is the TTFT; the closed-loop TTFT correction (the wave of requests sent
  // together, the request path) is not fitted to it, so only the service time, TPOT, is corrected.
  // I: the physical decode iteration (the mean TPOT times the tokens a step emits).
  const double iteration = p.model_tpot * p.config.speculative.tokens_per_step();
  const auto ttft = [&](double x) {
    return p.open_loop
               ? x
               : c.ttft_scale * x + c.ttft_wave * p.prefill_wave + c.ttft_iterations * iteration + c.ttft_offset;
  };
  const double kernels = c.tpot_per_kernel * p.decode_step.kernels / p.config.speculative.tokens_per_step();
  const auto tpot = [&](double x) { return c.tpot_scale * x + kernels + c.tpot_offset; };
  const double decode_tokens = std::max(0, p.config.osl - 1);
  for (auto [t, g, i, e] : {std::tuple{&p.ttft.mean, &p.tpot.mean, &p.itl.mean, &p.e2e.mean},
                            std::tuple{&p.ttft.median, &p.tpot.median, &p.itl.median, &p.e2e.median},
                            std::tuple{&p.ttft.p90, &p.tpot.p90, &p.itl.p90, &p.e2e.p90},
                            std::tuple{&p.ttft.p99, &p.tpot.p99, &p.itl.p99, &p.e2e.p99}}) {
    *t = ttft(*t);
    *g = p.config.osl > 1 ? tpot(*g) : 0.0;
    *i = p.config.osl > 1 ? tpot(*i) : 0.0;
    *e = *t + decode_tokens * *g;
  }
  if (!p.open_loop && p.e2e.mean > 0) {
    // Closed loop: the requests in flight cycle once per E2E (Little's law), on every decode worker.
    const int replicas = p.disaggregation ? p.disaggregation->decode_workers : 1;
    p.requests_per_s = replicas * p.in_flight / p.e2e.mean;
    p.output_tokens_per_s = p.requests_per_s * p.config.osl;
  }
  p.calibration = c;
}

/// A simulation's distributions and means in place of the steady state's.
void ServeModel::apply_simulation(ServeProjection& p, const SimulationResult& sim, const ServeShape& shape) const {
  p.simulated = true;
  p.simulated_requests = sim.requests;
  p.ttft = sim.ttft;
  p.tpot = sim.tpot;
  p.itl = sim.itl;
  p.e2e = sim.e2e;
  p.output_tokens_per_s = sim.duration > 0 ? sim.output_tokens / sim.duration : 0;
  p.requests_per_s = sim.duration > 0 ? sim.requests / sim.duration : 0;
  p.decode_batch = sim.mean_decode_batch;
  p.prefill_tokens_per_iter = sim.mean_prefill_tokens;
  const double verify = p.config.speculative.verify_tokens();
  p.decode_step = steps_.step(shape, StepLoad{.decode_seqs = sim.mean_decode_batch,
                                              .decode_kv_tokens = sim.mean_decode_batch * sim.mean_decode_context,
                                              .logit_rows = sim.mean_decode_batch * verify,
                                              .verify = verify});
}

ServeModel::ServeModel(ModelConfig model, SystemProfile system, const OpTimeProvider* provider)
    : steps_(std::move(model), std::move(system), provider) {}

Expected<ServeCapacity> ServeModel::capacity(const ServeConfig& config) const {
  if (auto error = serve_config_error(model(), system(), config)) {
    return *error;
  }
  const ServeShape shape = serve_shape(config);
  auto memory = serve_memory(model(), system(), shape, config.replica_batch_tokens(), config.replica_batch_size(),
                             config.kv_fraction());
  if (!memory) {
    return memory.error();
  }
  const int tokens = config.reserved_tokens();
  ServeCapacity c{.memory = *memory, .kv_tokens = memory->kv_tokens(tokens)};
  c.max_concurrency = std::min(config.replica_batch_size(), memory->max_requests(tokens));
  if (c.max_concurrency < 1) {
    return Error{"one request of " + std::to_string(tokens) + " tokens (ISL + OSL) does not fit the KV cache of " +
                 std::to_string(static_cast<long long>(c.kv_tokens)) + " tokens left on " + system().name + " at " +
                 layout_label(config.layout, model().moe()) + " in " + std::string(to_string(config.precision))};
  }
  return c;
}

Expected<ServeProjection> ServeModel::project(const ServeConfig& config, const std::optional<Price>& price) const {
  auto c = capacity(config);
  if (!c) {
    return c.error();
  }
  return project(config, *c, price);
}

ServeProjection ServeModel::project(const ServeConfig& config, const ServeCapacity& capacity,
                                    const std::optional<Price>& price) const {
  ServeProjection p;
  p.config = config;
  p.capacity = capacity;
  p.open_loop = config.open_loop();
  p.offline = config.concurrency == 0 && !p.open_loop;
  p.in_flight =
      p.offline || p.open_loop ? capacity.max_concurrency : std::min(config.concurrency, capacity.max_concurrency);
  const ServeShape shape = serve_shape(config);
  const SteadyState s = SteadyStateSolver(steps_, shape, config).solve(p.in_flight);
  p.decode_batch = s.decoding;
  p.prefill_tokens_per_iter = s.prefill_per_iter;
  p.chunk_tokens = s.chunk;
  p.decode_step = s.decode_step;
  p.chunk_step = s.chunk_step;
  p.requests_per_s = s.requests_per_s;
  p.output_tokens_per_s = s.requests_per_s * config.osl;
  p.ttft = LatencyStats::constant(s.ttft);
  p.tpot = LatencyStats::constant(config.osl > 1 ? s.tpot : 0.0);
  p.itl = config.osl > 1 ? stream_gaps(s) : LatencyStats{};
  p.e2e = LatencyStats::constant(s.ttft + (config.osl - 1.0) * s.tpot);
  if (p.open_loop) {
    // The steady state at the most that fit is the replica's capacity: beyond that rate the queue grows.
    p.saturation_rate = s.requests_per_s;
    const SimulationResult sim =
        simulate_open_loop(steps_, shape, config, capacity.kv_tokens, capacity.max_concurrency, config.requests);
    apply_simulation(p, sim, shape);
    const int backlog = std::max(8, sim.requests / 20);
    p.saturated = config.arrival == Arrival::burst || config.request_rate > p.saturation_rate ||
                  sim.queued_at_last_arrival > backlog;
  } else if (config.has_spread()) {
    apply_simulation(p, simulate_serving(steps_, shape, config, capacity.kv_tokens, p.in_flight, config.requests),
                     shape);
  }
  p.prefill_wave = prefill_wave(steps_, shape, config, p.in_flight);
  apply_engine_calibration(p);
  // Requests beyond what fits wait for a slot (closed loop: Little's law over the waiting line).
  if (!p.offline && config.concurrency > p.in_flight && p.requests_per_s > 0) {
    p.queue_wait = (config.concurrency - p.in_flight) / p.requests_per_s;
    p.ttft.shift(p.queue_wait);
    p.e2e.shift(p.queue_wait);
  }
  p.output_tokens_per_s_per_gpu = p.output_tokens_per_s / config.layout.gpus();
  p.output_tokens_per_s_per_user = p.tpot.median > 0 ? 1.0 / p.tpot.median : 0;
  p.mbu = bandwidth_utilisation(p.decode_step, p.tpot.median, system());
  p.mfu = prefill_mfu(steps_, shape, config);
  if (price && p.output_tokens_per_s > 0) {
    p.usd_per_million_output_tokens =
        price->usd_per_gpu_hour * config.layout.gpus() / 3600.0 / p.output_tokens_per_s * 1e6;
  }
  p.price_label = price ? price->label : "no price";
  p.provenance = provenance(system(), p.decode_step, p.chunk_step);
  return p;
}

}  // namespace dgx::llm
