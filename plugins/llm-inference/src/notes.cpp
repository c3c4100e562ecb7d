#include "notes.hpp"

#include "dgx/llm/flops.hpp"
#include "dgx/llm/serve_constants.hpp"
#include "dgx/llm/serve_ops.hpp"
#include "dgx/llm/system_catalog.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"
#include "params.hpp"
#include <dgx/sdk/text.hpp>

namespace dgx::plugins::llm_inference {

namespace {

using dgx::sdk::text::fixed;
using dgx::sdk::text::gib;
using dgx::sdk::text::join;
using dgx::sdk::text::si_count;

std::string model_line(const Assumptions& a) {
  const llm::ModelConfig& m = a.model;
  const llm::ParameterCount params = llm::count_parameters(m);
  std::string line = "Model: " + m.display + " (" + m.name + "): " + std::to_string(m.layers) + " layers, hidden " +
                     std::to_string(m.hidden) + ", " + std::to_string(m.heads) + " heads / " +
                     std::to_string(m.kv_groups) + " KV heads, " + si_count(params.total) + " parameters";
  if (m.moe()) {
    line += " (" + si_count(params.active) + " active: " + std::to_string(m.top_k) + " of " +
            std::to_string(m.experts) + " experts)";
  }
  const double kv = 2.0 * m.layers * m.kv_groups * static_cast<double>(m.head_dim());
  return line + ", context " + std::to_string(m.context) + " tokens; KV cache " + si_count(kv) +
         " elements per token. Linear layers in the precision of each row; embedding and LM head BF16 (as quantized "
         "checkpoints keep them).";
}

std::string system_line(const InferenceSettings& s, const Assumptions& a) {
  const llm::SystemProfile& sys = a.system;
  const std::string peaks = llm::workload::peaks_text(sys);
  return "System: " + sys.name + ", " + sys.display + "; " +
         (s.system_configured ? "the configuration names it" : "the workload's default") +
         ". A projection for that system, not for this machine's GPUs: " + peaks + " per GPU, " + gib(sys.hbm_bytes()) +
         " HBM at " + fixed(sys.hbm_tb_s, 2) + " TB/s, NVLink " + fixed(sys.nvlink_gb_s, 0) + " GB/s in a domain of " +
         std::to_string(sys.nvlink_domain) + " GPUs; a fleet of " + std::to_string(s.gpus) + " GPUs (" + key::gpus +
         "). Other systems: --set system=NAME (" + join(llm::workload::other_systems(sys.name)) + ").";
}

}  // namespace

std::string assumptions_note(const InferenceSettings& settings, const Assumptions& assumptions) {
  return model_line(assumptions) + "\n" + system_line(settings, assumptions) + "\n" +
         llm::workload::price_line(assumptions.price_reason, assumptions.providers) +
         "\nServing model: " + llm::serve_constants::kModelVersion +
         ": per-op rooflines of the system profile (the training model's efficiencies; decode GEMMs split K and "
         "stream their weights) plus the engine's per-iteration overhead, composed into in-flight batching (prompt "
         "chunks and one token per decoding request per iteration, TensorRT-LLM's scheduling and defaults); "
         "accuracy on published runs: " +
         assumptions.calibration + ".";
}

std::string definitions_note() {
  return "TTFT = time of the first output token - send time; E2E = time of the last token - send time; TPOT = "
         "(E2E - TTFT) / (output tokens - 1), as trtllm-bench (TPOT) and AIPerf (ITL) define it (vLLM's 'ITL' is "
         "the gap between streamed chunks, a different number); tokens/s/user = 1 / TPOT. Output tokens/s = output "
         "tokens / duration of the replica (first send to last response), per GPU / (TP x PP); requests/s likewise. "
         "MBU = (weight bytes + KV bytes read per decode iteration) / TPOT / HBM peak, per GPU; MFU = model FLOPs "
         "(2 per active parameter per token + attention) of one prompt's prefill / its time on the idle replica / "
         "GPUs / dense peak of the precision. $/Mtok = replica GPUs x USD/GPU-h / 3600 / output tokens/s x 1e6. "
         "Offline = as many requests in flight as fit (each reserves its prompt + output in the KV cache); its TTFT "
         "is the time inside the engine, without the queue an all-at-once benchmark adds.";
}

std::string projection_note(const Assumptions& assumptions) {
  return std::string("These numbers are projections of ") + llm::serve_constants::kModelVersion + " for " +
         assumptions.system.name +
         ", not measurements on this machine (every row says mode projected; JSON carries the provenance). On a GPU "
         "machine the same command measures instead: one layer's prefill and decode at the replica's per-rank shapes "
         "with a KV cache, whose op times replace the model's (rows labelled measured-calibrated; --mode measure "
         "insists on it); dgxhost --plugin llm-inference:llm-decode runs a whole model's decode loop.";
}

std::string slo_text(const llm::ServeSlo& slo, const llm::ServeProjection& p) {
  std::vector<std::string> parts;
  std::vector<std::string> missed;
  if (slo.ttft > 0) {
    const bool ok = p.ttft.p99 <= slo.ttft;
    parts.push_back("TTFT p99 " + dgx::sdk::text::duration(p.ttft.p99) + (ok ? " <= " : " > ") +
                    dgx::sdk::text::duration(slo.ttft));
    if (!ok) {
      missed.emplace_back("TTFT");
    }
  }
  if (slo.tpot > 0) {
    const bool ok = p.tpot.p99 <= slo.tpot;
    parts.push_back("TPOT p99 " + dgx::sdk::text::duration(p.tpot.p99) + (ok ? " <= " : " > ") +
                    dgx::sdk::text::duration(slo.tpot));
    if (!ok) {
      missed.emplace_back("TPOT");
    }
  }
  if (parts.empty()) {
    return "no SLO given";
  }
  return (missed.empty() ? "meets the SLOs (" : "misses " + join(missed) + " (") + join(parts) + "; " + key::slo_ttft +
         ", " + key::slo_tpot + ")";
}

}  // namespace dgx::plugins::llm_inference
