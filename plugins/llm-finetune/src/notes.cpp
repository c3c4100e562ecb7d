#include "notes.hpp"

#include "dgx/llm/finetune.hpp"
#include "dgx/llm/flops.hpp"
#include "dgx/llm/model_constants.hpp"
#include "dgx/llm/workload/training_notes.hpp"
#include "params.hpp"
#include "rows.hpp"
#include <dgx/sdk/text.hpp>

#include <cmath>

namespace dgx::plugins::llm_finetune {

namespace {

using dgx::sdk::text::fixed;
using dgx::sdk::text::grouped;
using dgx::sdk::text::si_count;

std::string percent(double fraction) { return fixed(100 * fraction, fraction < 0.01 ? 2 : 1) + "%"; }

std::string dataset_text(const Dataset& d) {
  if (d.from_tokens) {
    return si_count(d.tokens) + " sample tokens (" + key::tokens + ")";
  }
  return si_count(d.tokens) + " sample tokens (" + grouped(static_cast<long long>(d.samples)) + " samples x " +
         fixed(d.avg_tokens_per_sample, 0) + " tokens x " +
         fixed(d.epochs, d.epochs == static_cast<int>(d.epochs) ? 0 : 1) + " epochs)";
}

std::string job_line(const FinetuneSettings& s, const FinetuneJob& job) {
  const std::string layout =
      s.finetune.packed
          ? "packed into sequences of " + std::to_string(job.seq_len) + " tokens (attention within each sample; " +
                percent(job.efficiency) + " of the tokens are samples, the rest the packs' unfilled tails)"
          : "one sample per sequence of " + std::to_string(job.seq_len) + " tokens, padded (" +
                percent(1 - job.efficiency) + " of the computed tokens are padding; " + key::packed + "=true packs)";
  return "Job: " + dataset_text(s.dataset) + ", " + layout + ": " + si_count(job.processed_tokens) +
         " tokens processed, " + grouped(std::llround(job.sequences)) + " sequences, " +
         grouped(std::llround(job.steps)) + " optimizer steps of " + std::to_string(s.train.gbs) + " sequences (" +
         key::gbs + "). Loss masking (answer tokens only) changes which tokens count, not the work.";
}

std::string methods_line(const FinetuneSettings& s, const llm::ModelConfig& m) {
  const double all = llm::count_parameters(m).total;
  std::string line = "Methods: ";
  for (std::size_t i = 0; i < s.methods.size(); ++i) {
    const llm::FineTune f = finetune_of(s, s.methods[i]);
    const double trainable = llm::trainable_parameters(m, f);
    line += (i != 0 ? "; " : "") + method_label(s.methods[i], f.lora);
    line += f.lora_method() ? " (alpha " + fixed(f.lora.alpha, 0) + ", frozen base): " + si_count(trainable) +
                                  " trainable parameters, " + percent(trainable / all) + " of the model"
                            : ": all " + si_count(all) + " parameters train";
  }
  return line + (s.methods.size() > 1 ? " (" + std::string(key::method) + ": explore compares them, project takes " +
                                            std::string(llm::to_string(s.methods.front())) + ")."
                                      : ".");
}

}  // namespace

std::string assumptions_note(const FinetuneSettings& s, const llm::workload::Assumptions& a, const FinetuneJob& job) {
  return "Model: " + llm::workload::model_text(a.model) + ".\n" + job_line(s, job) + "\n" + methods_line(s, a.model) +
         "\n" + llm::workload::system_line(s, a) + "\n" + llm::workload::framework_line(s, a) + "\n" +
         llm::workload::price_line(a) + "\nPerformance model: " + llm::constants::kModelVersion +
         ", per-op rooflines of the system profile with calibrated efficiencies; fine-tuning changes the op lists, "
         "memory and optimizer of pretraining's model, nothing is fitted to fine-tuning rows; accuracy on published "
         "runs: " +
         a.calibration + ".";
}

std::string flops_note() {
  return "MFU and model TFLOP/s count the FLOPs each method executes. SFT: the pretraining formula, "
         "s*(12*L*h^2*(1 + g/a) + 6*m*L*ffn*h + 6*V*h) + 12*L*h*c*s*span per sequence, with the attention core over "
         "the sample (span = the average sample when packed, the padded sequence when not; c = 1, NVIDIA's full "
         "convention, or 1/2 with train.flops_convention=causal). LoRA: frozen weights still run their forward and "
         "data-gradient GEMMs but no weight-gradient GEMM, so 2/3 of SFT's GEMM terms; the attention core costs what "
         "it costs in SFT (its backward computes dQ, dK and dV either way); the adapters add 6*r*(in + out) per "
         "targeted layer and token. DGX Cloud Benchmarking reports LoRA MFU as SFT x 2/3 instead: JSON carries it as "
         "mfu_published.";
}

std::string trade_note(const FinetuneSettings& s, const llm::workload::Assumptions& a, const std::string& comparison) {
  const llm::FineTune lora = finetune_of(s, llm::FineTuneMethod::lora);
  const double share = llm::trainable_parameters(a.model, lora) / llm::count_parameters(a.model).total;
  return "LoRA trains " + percent(share) + " of the parameters (" +
         method_label(llm::FineTuneMethod::lora, s.finetune.lora) +
         "): no gradients or optimizer state for the frozen base, no weight-gradient GEMMs, no data-parallel "
         "gradient traffic beyond the adapters'; so it fits on fewer GPUs and steps faster than SFT" +
         (comparison.empty() ? std::string(".") : " (" + comparison + ").") +
         " Whether its adapters reach the quality of full fine-tuning on your data is not modelled: these rows "
         "compare time and cost only.";
}

std::string projection_note(const llm::workload::Assumptions& a) {
  return std::string("These numbers are projections of ") + llm::constants::kModelVersion + " for " + a.system.name +
         ", not measurements on this machine (every row says mode projected; JSON carries the provenance). To "
         "measure instead, run the same command on a GPU machine: it measures one layer of the model, with its "
         "frozen weights and LoRA adapters, at the configuration's per-rank shapes and projects the cluster from "
         "the measured op times (rows labelled measured-calibrated; --mode measure insists on it).";
}

}  // namespace dgx::plugins::llm_finetune
