#include "params.hpp"

#include <string>

#include "dgx/llm/framework.hpp"
#include "dgx/llm/model_catalog.hpp"
#include "dgx/llm/system_catalog.hpp"

namespace dgx::plugins::llm_pretrain {

namespace {

using dgx::sdk::Param;

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace

std::vector<Param> pretrain_params() {
  // Keys that only --mode project reads say so: explore sweeps layouts, batch splits and recompute itself.
  return {
      Param::string(key::model, "llama3.1-8b", "model to train, from the model catalog: " + listed(llm::model_names())),
      Param::string(key::system, "h100-sxm",
                    "GPU system projected for (not this machine's GPUs), from the system catalog: " +
                        listed(llm::system_names())),
      Param::string_list(key::framework, {},
                         "software release(s) whose calibrated profile the projection uses, from configs/frameworks: " +
                             listed(llm::framework_names()) +
                             "; empty: the newest; several: explore compares them (project uses the first)"),
      Param::integer(key::gpus, 8, "GPUs of the run (--mode project)", "GPUs"),
      Param::string_list(key::precision, {"bf16", "fp8"},
                         "GEMM precisions: explore sweeps them, project uses the first (mxfp8, nvfp4: Blackwell only)",
                         "bf16|fp8|mxfp8|nvfp4"),
      Param::integer(key::tp, 1,
                     "tensor-parallel GPUs per layer, with sequence parallelism, within the NVLink "
                     "domain (--mode project)"),
      Param::integer(key::pp, 1, "pipeline-parallel stages (--mode project)"),
      Param::integer(key::cp, 2, "context-parallel GPUs splitting each sequence, ring attention (--mode project)"),
      Param::integer(key::vp, 1, "virtual pipeline chunks per stage; > 1 runs interleaved 1F1B (--mode project)"),
      Param::integer(key::ep, 1, "expert-parallel GPUs, mixture-of-experts models only (--mode project)"),
      Param::boolean(key::fsdp, false,
                     "Megatron FSDP: parameters, gradients and optimizer state sharded over the data-parallel GPUs, "
                     "each layer gathered and its gradients reduce-scattered per microbatch (explore sweeps FSDP "
                     "layouts only when set)"),
      Param::string(key::pipeline_split, "auto",
                    "how layers are split over pipeline stages: even, uneven (first/last stage one layer less), "
                    "embedding-loss (the embedding and the loss count as a layer each, Megatron's "
                    "account_for_*_in_pipeline_split), custom (any layers per virtual chunk, Megatron's "
                    "pipeline_model_parallel_layout); auto: the first of even, embedding-loss, uneven that fits, "
                    "then custom (--mode project; explore sweeps the first three)",
                    "auto|even|uneven|embedding-loss|custom"),
      Param::integer(key::mbs, 1, "micro-batch size: sequences per forward/backward pass (--mode project)",
                     "sequences"),
      Param::integer(key::gbs, 128,
                     "global batch size: sequences per optimizer step (explore: see explore.gbs_per_gpu)", "sequences"),
      Param::integer(key::seq_len, 0, "sequence length; 0: the model's default (configs/models)", "tokens"),
      Param::floating(key::tokens, 1e12, "tokens to train: days, GPU-hours and cost are for this many", "tokens"),
      Param::string(key::recompute, "none",
                    "activation recompute in the backward pass (--mode project; explore sweeps all three)",
                    "none|selective|full"),
      Param::integer(key::offload_layers, -1,
                     "decoder layers per stage whose activations are offloaded to host memory (Megatron's "
                     "cpu_offloading_num_layers); -1: automatic, the fewest that make a layout fit, only on systems "
                     "whose host link hides the transfers (NVLink-C2C of Grace systems); 0: never",
                     "layers"),
      Param::boolean(key::distributed_optimizer, true,
                     "shard FP32 master weights and Adam states over the data-parallel GPUs (Megatron distributed "
                     "optimizer, ZeRO-1)"),
      Param::string(key::flops_convention, "full",
                    "model FLOPs for MFU: full attention (NVIDIA's published convention) or causal (half the "
                    "attention-score term)",
                    "full|causal"),
      Param::string(key::provider, "",
                    "price from this provider of configs/pricing (e.g. aws, aws-3yr, nebius, owned); empty: the "
                    "cheapest on-demand list price for the system"),
      Param::floating(key::usd_per_gpu_hour, 0, "an explicit price instead of the catalog's, e.g. a negotiated rate",
                      "USD/GPU-h")
          .without_default(),
      Param::int_list(key::explore_gpus, {},
                      "GPU counts to explore; empty: powers of two from explore.gpus_min to explore.gpus_max", "GPUs"),
      Param::integer(key::gpus_min, 8, "smallest GPU count of the default sweep", "GPUs"),
      Param::integer(key::gpus_max, 16384, "largest GPU count of the default sweep", "GPUs"),
      Param::integer(key::gbs_per_gpu, 16,
                     "global batch while exploring: N > 0 gives N sequences per GPU (weak scaling); 0 keeps "
                     "train.gbs at every GPU count",
                     "sequences"),
      Param::floating(key::budget_slack, 0.05,
                      "recommend the fastest configuration costing at most (1 + slack) x the cheapest"),
      Param::floating(key::deadline_days, 0, "also recommend the cheapest configuration that trains within this",
                      "days")
          .without_default(),
  };
}

}  // namespace dgx::plugins::llm_pretrain
