#include "params.hpp"

namespace dgx::plugins::llm_finetune {

std::vector<dgx::sdk::Param> finetune_params() {
  using dgx::sdk::Param;
  // The llama8b-lora preset: Llama 3.1 8B on one 8-GPU node, packed 4K sequences, GBS 32, 1 to 256 GPUs explored.
  llm::workload::TrainingDefaults defaults;
  defaults.gbs = 32;
  defaults.seq_len = 4096;
  defaults.gpus_min = 1;
  defaults.gpus_max = 256;
  defaults.gbs_per_gpu = 0;
  std::vector<Param> params = llm::workload::training_params(defaults);
  for (Param& p : params) {
    if (p.key == key::flops_convention) {
      p.help = "model FLOPs for MFU and model TFLOP/s count what is executed: SFT s*(12*L*h^2*(1+g/a) + "
               "12*L*h*c*span + 6*m*L*ffn*h + 6*V*h) per sequence of s tokens, the attention core over the sample "
               "(span = finetune.avg_tokens_per_sample when packed, the padded sequence when not); LoRA 2/3 of the "
               "GEMM terms (frozen weights run forward and dgrad GEMMs, no wgrad), the attention core whole, plus "
               "6*r*(in+out) per adapter and token; c = 1 (full, NVIDIA's convention) or 1/2 (causal). JSON adds "
               "mfu_published: DGX Cloud Benchmarking's LoRA convention, SFT x 2/3";
    }
  }
  const std::vector<Param> own = {
      Param::string_list(key::method, {"lora", "sft"},
                         "fine-tuning methods: explore compares them, project uses the first. sft trains every "
                         "weight; lora trains rank-r adapters on a frozen base",
                         "sft|lora"),
      Param::integer(key::lora_rank, 16, "LoRA rank r of each adapter (1 to the hidden size)"),
      Param::floating(key::lora_alpha, 32, "LoRA alpha: the adapter output is scaled by alpha / rank"),
      Param::string_list(key::lora_targets, {"qkv"}, "linear layers that get an adapter (NVIDIA's recipes: qkv only)",
                         "qkv|proj|fc1|fc2"),
      Param::boolean(key::packed, true,
                     "pack samples into sequences of train.seq_len (attention within each sample); false pads "
                     "every sample to the sequence, and the padding is computed too"),
      Param::floating(key::tokens, 0,
                      "sample tokens of the whole job (all epochs); 0: finetune.samples x "
                      "finetune.avg_tokens_per_sample x finetune.epochs",
                      "tokens"),
      Param::integer(key::samples, 100000, "samples in the data set", "samples"),
      Param::floating(key::avg_tokens_per_sample, 512,
                      "average tokens per sample, prompt and answer (packing waste, padding, attention span)",
                      "tokens"),
      Param::floating(key::epochs, 3, "passes over the data set", "epochs"),
      // The job's fixed time (fixed_cost.hpp): estimates, documented as such in the explore note.
      Param::floating(key::startup_minutes, 10,
                      "fixed time of each job before its first step: scheduling, container start, NCCL initialisation "
                      "(an estimate; 0: none)",
                      "min"),
      Param::floating(key::eval_minutes, 5, "fixed time of each job to evaluate the result once (0: none)", "min"),
      Param::floating(key::storage_gb_s, 0.25,
                      "checkpoint bandwidth per GPU: loading the base weights each GPU holds and saving the result "
                      "(0.25: 2 GB/s of shared storage per 8-GPU node)",
                      "GB/s"),
      Param::floating(key::min_billing_minutes, 1,
                      "the least time each GPU of a job is billed for (1: per-second billing with a one-minute "
                      "minimum; 60 for hourly billing)",
                      "min"),
      Param::floating(key::deadline_hours, 0, "also recommend the cheapest configuration that fine-tunes within this",
                      "hours")
          .without_default(),
  };
  params.insert(params.end(), own.begin(), own.end());
  return params;
}

}  // namespace dgx::plugins::llm_finetune
