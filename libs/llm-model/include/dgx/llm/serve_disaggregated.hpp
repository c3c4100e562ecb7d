// Disaggregated prefill and decode (DistServe, Splitwise; TensorRT-LLM's and vLLM's disaggregated serving): prefill
// workers run prompts only, in iterations of up to the token budget; decode workers run the decoding requests only;
// each request's KV cache moves from its prefill worker to a decode worker (bytes from the KV format: every layer's
// cache of the prompt), over NVLink when both sit in one NVLink domain, over the scale-out NICs otherwise (each of the
// prefill worker's GPUs sends its shard through its own NIC), and that transfer is part of TTFT.
//
// Rate matching (xPyD): a prefill worker serves R_p prompts/s, a decode worker R_d requests/s at its concurrency; x
// prefill and y decode workers serve λ = min(ρ·x·R_p, y·R_d) requests/s, the prefill workers kept at utilisation
// ρ ≤ serve_constants::kPrefillUtilisation (Poisson arrivals), and the pair (x, y) within the GPUs is the one with the
// most output tokens/s per GPU. Latency: TPOT = the decode worker's iteration / tokens per step (no prompt chunk ever
// interrupts it: the reason disaggregation wins at long prompts and tight TPOT); TTFT = the prefill iteration + the
// wait for the running one (ρ/2 iterations, as the aggregated steady state has it for a closed loop) + the KV
// transfer; with Poisson arrivals (open loop) the wait is M/D/1's, ρ/(2(1 − ρ)) iterations on average with an
// exponential tail for the p99 (conservative), and ρ is lowered until that p99 meets the TTFT SLO.
// A steady state of fixed (mean) lengths: the expected error is larger than the aggregated model's (stated with the
// rows).
#pragma once

#include "dgx/llm/expected.hpp"
#include "dgx/llm/serve_model.hpp"

#include <optional>

namespace dgx::llm {

struct DisaggConfig {
  ServeConfig decode;       ///< lengths, precisions, engine limits, speculation; layout and concurrency per worker
  ServeLayout prefill;      ///< one prefill worker's layout
  int prefill_workers = 0;  ///< 0 (with decode_workers 0): chosen by rate matching within max_gpus
  int decode_workers = 0;
  int max_gpus = 0;      ///< GPUs of the whole deployment at most (rate matching)
  double ttft_slo = 0;   ///< the prefill workers' load is kept where TTFT p99 meets it (0: kPrefillUtilisation)
  bool poisson = false;  ///< prompts arrive at random (open loop): TTFT has a queueing tail
};

/// The disaggregated deployment's projection (ServeProjection::disaggregation set; per-GPU metrics over all its
/// GPUs), or why it cannot run: an invalid or too large layout, zero workers, a decode concurrency that does not fit.
[[nodiscard]] Expected<ServeProjection> project_disaggregated(const ServeModel& model, const DisaggConfig& config,
                                                              const std::optional<Price>& price);

/// The KV cache one prompt of `isl` tokens leaves behind, bytes over all the model's layers.
[[nodiscard]] double prompt_kv_bytes(const ModelConfig& model, const ServeConfig& config, int isl);

/// Seconds to move `bytes` of KV cache from a prefill worker of `prefill_gpus` GPUs: NVLink inside a domain, the
/// NICs across (each GPU sends its shard), plus the transfer's control path.
[[nodiscard]] double kv_transfer_seconds(const SystemProfile& system, double bytes, int prefill_gpus,
                                         bool over_network);

}  // namespace dgx::llm
