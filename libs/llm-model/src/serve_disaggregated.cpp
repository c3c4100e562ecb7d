#include "dgx/llm/serve_disaggregated.hpp"

#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_kv.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/serve_precision.hpp"

#include <algorithm>
#include <cmath>

namespace dgx::llm {

namespace {

struct PrefillWorker {
  double rate = 0;       ///< prompts/s at full batches
  double iteration = 0;  ///< seconds of one prompt's prefill (all its chunks) at a full batch
  int prompts = 1;       ///< prompts per iteration
  StepCost step;
};

/// A prefill worker packs whole prompts into its token budget, or chunks a prompt longer than it; with attention DP
/// every rank does so for its own prompts (the loads are the worker's, over all its ranks).
PrefillWorker prefill_worker(const ServeModel& model, const ServeConfig& c, const ServeLayout& layout) {
  ServeShape shape = serve_shape(c);
  shape.layout = layout;
  shape.speculative = {};
  const double isl = c.isl;
  const int budget = c.batch_tokens();
  const int ranks = layout.attention_dp_ranks();
  PrefillWorker w;
  if (c.isl <= budget) {
    w.prompts = ranks * (budget / c.isl);
    const double tokens = w.prompts * isl;
    w.step = model.steps().step(
        shape,
        StepLoad{.prefill_tokens = tokens, .prefill_pairs = tokens * 0.5 * (isl + 1), .logit_rows = 1.0 * w.prompts});
    w.iteration = w.step.seconds;
    w.rate = w.prompts / w.iteration;
    return w;
  }
  const int chunks = (c.isl + budget - 1) / budget;
  const double chunk = isl / chunks;
  w.prompts = ranks;
  w.step = model.steps().step(shape, StepLoad{.prefill_tokens = ranks * chunk,
                                              .prefill_pairs = ranks * chunk * 0.5 * (isl + 1),
                                              .logit_rows = 1.0 * ranks / chunks});
  w.iteration = chunks * w.step.seconds;
  w.rate = ranks / w.iteration;
  return w;
}

/// TTFT's 99th percentile at prefill utilisation ρ: the iteration, the M/D/1 wait with an exponential tail, the
/// transfer.
double ttft_p99(double iteration, double rho, double transfer, bool poisson) {
  if (!poisson) {
    return iteration * (1 + 0.5 * rho) + transfer;
  }
  const double tail = rho > 0.01 ? iteration / (2 * (1 - rho)) * std::log(100 * rho) : 0;
  return iteration + std::max(0.0, tail) + transfer;
}

double ttft_mean(double iteration, double rho, double transfer, bool poisson) {
  return iteration * (1 + (poisson ? rho / (2 * (1 - rho)) : 0.5 * rho)) + transfer;
}

/// The highest prefill utilisation whose TTFT p99 meets `slo` (0: none), at most kPrefillUtilisation.
double prefill_utilisation(double iteration, double transfer, double slo, bool poisson) {
  const double most = serve_constants::kPrefillUtilisation;
  if (slo <= 0 || ttft_p99(iteration, most, transfer, poisson) <= slo) {
    return most;
  }
  double low = 0.01, high = most;
  if (ttft_p99(iteration, low, transfer, poisson) > slo) {
    return most;  // nothing meets it: run at the usual load, the SLO check says so
  }
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (low + high);
    (ttft_p99(iteration, mid, transfer, poisson) <= slo ? low : high) = mid;
  }
  return low;
}

/// The (x, y) within `max_gpus` with the most requests/s per GPU.
std::pair<int, int> match_rates(double prefill_rate, double decode_rate, int prefill_gpus, int decode_gpus,
                                int max_gpus) {
  std::pair<int, int> best{1, 1};
  double best_per_gpu = -1;
  for (int x = 1; x * prefill_gpus + decode_gpus <= std::max(max_gpus, prefill_gpus + decode_gpus); ++x) {
    for (int y = 1; x * prefill_gpus + y * decode_gpus <= std::max(max_gpus, prefill_gpus + decode_gpus); ++y) {
      const double rate = std::min(x * prefill_rate, y * decode_rate);
      const double per_gpu = rate / (x * prefill_gpus + y * decode_gpus);
      if (per_gpu > best_per_gpu * (1 + 1e-9)) {
        best_per_gpu = per_gpu;
        best = {x, y};
      }
    }
  }
  return best;
}

std::optional<Error> worker_error(const ServeModel& model, const DisaggConfig& c) {
  if (c.prefill_workers < 0 || c.decode_workers < 0 || (c.prefill_workers == 0) != (c.decode_workers == 0)) {
    return Error{"disaggregated serving needs at least one prefill and one decode worker, got " +
                 std::to_string(c.prefill_workers) + " prefill and " + std::to_string(c.decode_workers) +
                 " decode (0 and 0: chosen by rate matching)"};
  }
  ServeConfig prefill = c.decode;
  prefill.layout = c.prefill;
  prefill.osl = 1;
  prefill.concurrency = 0;
  prefill.speculative = {};
  if (auto capacity = model.capacity(prefill); !capacity) {
    return Error{"prefill worker: " + capacity.error().message};
  }
  return std::nullopt;
}

}  // namespace

double prompt_kv_bytes(const ModelConfig& model, const ServeConfig& config, int isl) {
  const ServeShape whole{
      .layout = {}, .precision = config.precision, .kv_precision = config.kv_precision, .speculative = {}};
  const KvFootprint kv = kv_footprint(model, whole);
  return kv.proportional() ? isl * kv.per_token : kv.bytes(isl);
}

double kv_transfer_seconds(const SystemProfile& system, double bytes, int prefill_gpus, bool over_network) {
  const Efficiency& e = system.efficiency;
  const double per_gpu = over_network ? system.nic_gb_s * 1e9 * e.nic : system.nvlink_gb_s * 1e9 * e.nvlink_p2p;
  const double hop = (over_network ? e.network_hop_latency_us : e.nvlink_hop_latency_us) * 1e-6;
  return serve_constants::kKvTransferSetupS + hop + bytes / (std::max(1, prefill_gpus) * per_gpu);
}

Expected<ServeProjection> project_disaggregated(const ServeModel& model, const DisaggConfig& c,
                                                const std::optional<Price>& price) {
  if (auto error = worker_error(model, c)) {
    return *error;
  }
  ServeConfig decode = c.decode;
  auto capacity = model.capacity(decode);
  if (!capacity) {
    return Error{"decode worker: " + capacity.error().message};
  }
  const int in_flight =
      decode.concurrency > 0 ? std::min(decode.concurrency, capacity->max_concurrency) : capacity->max_concurrency;
  const ServeShape shape = serve_shape(decode);
  const double verify = decode.speculative.verify_tokens();
  const StepCost decode_step =
      model.steps().step(shape, StepLoad{.decode_seqs = 1.0 * in_flight,
                                         .decode_kv_tokens = in_flight * (decode.isl + 0.5 * decode.osl),
                                         .logit_rows = in_flight * verify,
                                         .verify = verify});
  const double per_step = decode.speculative.tokens_per_step();
  const double tpot = decode_step.seconds / per_step;
  const double decode_rate = in_flight / (std::max(1.0, (decode.osl - 1.0) / per_step) * decode_step.seconds);
  const PrefillWorker prefill = prefill_worker(model, decode, c.prefill);

  ServeDisaggregation d{.prefill_layout = c.prefill};
  d.kv_bytes_per_request = prompt_kv_bytes(model.model(), decode, decode.isl);
  const int gp = c.prefill.gpus();
  const int gd = decode.layout.gpus();
  const double ttft_slo = c.ttft_slo;
  const double transfer_nvlink = kv_transfer_seconds(model.system(), d.kv_bytes_per_request, gp, false);
  const double rho = prefill_utilisation(prefill.iteration, transfer_nvlink, ttft_slo, c.poisson);
  const auto [x, y] = c.prefill_workers > 0 ? std::pair{c.prefill_workers, c.decode_workers}
                                            : match_rates(rho * prefill.rate, decode_rate, gp, gd, c.max_gpus);
  d.prefill_workers = x;
  d.decode_workers = y;
  d.kv_over_network = x * gp + y * gd > model.system().nvlink_domain;
  d.kv_transfer = kv_transfer_seconds(model.system(), d.kv_bytes_per_request, gp, d.kv_over_network);
  d.prefill_requests_per_s = prefill.rate;
  d.decode_requests_per_s = decode_rate;
  d.prefill_iteration = prefill.iteration;
  d.prompts_per_iteration = prefill.prompts;
  const double rate = std::min(rho * x * prefill.rate, y * decode_rate);
  d.prefill_utilisation = rate / (x * prefill.rate);

  ServeProjection p;
  p.config = decode;
  p.config.concurrency = in_flight;
  p.capacity = *capacity;
  p.in_flight = in_flight;
  p.decode_batch = in_flight;
  p.decode_step = decode_step;
  p.chunk_step = prefill.step;
  p.chunk_tokens = std::min(decode.isl, decode.batch_tokens());
  p.requests_per_s = rate;
  p.output_tokens_per_s = rate * decode.osl;
  const double u = d.prefill_utilisation;
  const double mean = ttft_mean(prefill.iteration, u, d.kv_transfer, c.poisson);
  p.ttft = LatencyStats{
      .median = mean, .p99 = ttft_p99(prefill.iteration, u, d.kv_transfer, c.poisson), .mean = mean, .p90 = mean};
  p.tpot = LatencyStats::constant(decode.osl > 1 ? tpot : 0);
  p.itl = LatencyStats::constant(decode_step.seconds);
  p.e2e = p.ttft;
  p.e2e.shift((decode.osl - 1.0) * tpot);
  p.disaggregation = d;
  p.open_loop = c.poisson;
  // W: the deployment's in-flight prompts prefilled once over the prefill workers.
  p.prefill_wave =
      prefill.prompts > 0 ? static_cast<double>(in_flight) * y * prefill.iteration / prefill.prompts / x : 0.0;
  apply_engine_calibration(p);
  p.output_tokens_per_s_per_gpu = p.output_tokens_per_s / p.gpus();
  p.output_tokens_per_s_per_user = p.tpot.median > 0 ? 1 / p.tpot.median : 0;
  p.mbu = tpot > 0 ? (decode_step.weight_bytes + decode_step.kv_bytes) / decode_step.seconds /
                         model.system().hbm_bytes_per_s()
                   : 0;
  const double peak = model.system().dense_peak_flops(gemm_precision(decode.precision, model.system())) * gp;
  p.mfu = peak > 0 ? prefill.step.flops / prefill.step.seconds / peak : 0;
  if (price && p.output_tokens_per_s > 0) {
    p.usd_per_million_output_tokens = price->usd_per_gpu_hour * p.gpus() / 3600.0 / p.output_tokens_per_s * 1e6;
  }
  p.price_label = price ? price->label : "no price";
  p.provenance = std::string("projected: ") + serve_constants::kModelVersion + ", system " + model.system().name +
                 ", op times: roofline; disaggregated: rate-matched steady state of the mean lengths";
  return p;
}

}  // namespace dgx::llm
