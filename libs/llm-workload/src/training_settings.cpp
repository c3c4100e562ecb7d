#include "dgx/llm/workload/training_settings.hpp"

#include <algorithm>
#include <cmath>

#include <dgx/sdk/text.hpp>

#include "dgx/llm/catalog.hpp"
#include "dgx/llm/pipeline_split.hpp"
#include "dgx/llm/workload/catalog_lookup.hpp"

namespace dgx::llm::workload {

namespace {

namespace text = dgx::sdk::text;

using dgx::sdk::InvalidArgument;
using dgx::sdk::Param;

AttentionFlops read_flops_convention(const dgx::sdk::Host& host) {
  const std::string text = host.get_string(key::flops_convention);
  if (text == "full") {
    return AttentionFlops::full;
  }
  if (text == "causal") {
    return AttentionFlops::causal;
  }
  throw InvalidArgument(std::string(key::flops_convention) + ": '" + text + "' is not one of full, causal");
}

RecomputeModules read_recompute_modules(const dgx::sdk::Host& host) {
  RecomputeModules modules = 0;
  for (const std::string& name : host.get_string_list(key::recompute_modules)) {
    const auto module = parse_recompute_module(name);
    if (!module) {
      std::vector<std::string> known;
      for (const RecomputeModule m : kAllRecomputeModules) {
        known.emplace_back(to_string(m));
      }
      throw InvalidArgument(std::string(key::recompute_modules) + ": '" + name + "' is not one of " +
                            text::join(known));
    }
    modules |= module_bit(*module);
  }
  if (modules == 0) {
    throw InvalidArgument(std::string(key::recompute_modules) +
                          " is empty: name at least one submodule (the default is core_attn)");
  }
  return modules;
}

TrainConfig read_train(const dgx::sdk::Host& host, Precision precision) {
  TrainConfig t;
  t.precision = precision;
  t.layout = Layout{.tp = read_int(host, key::tp, 1),
                    .pp = read_int(host, key::pp, 1),
                    .cp = read_int(host, key::cp, 1),
                    .vp = read_int(host, key::vp, 1),
                    .ep = read_int(host, key::ep, 1),
                    .etp = read_int(host, key::etp, 0)};
  t.mbs = read_int(host, key::mbs, 1);
  t.gbs = read_int(host, key::gbs, 1);
  t.seq_len = read_int(host, key::seq_len, 0);
  const std::string recompute = host.get_string(key::recompute);
  const auto parsed = parse_recompute(recompute);
  if (!parsed) {
    throw InvalidArgument(std::string(key::recompute) + ": '" + recompute + "' is not one of none, selective, full");
  }
  t.recompute = *parsed;
  t.recompute_modules = read_recompute_modules(host);
  t.ep_overlap = host.get_bool(key::ep_overlap);
  const std::string dispatcher = host.get_string(key::moe_dispatcher);
  const auto parsed_dispatcher = parse_moe_dispatcher(dispatcher);
  if (!parsed_dispatcher) {
    throw InvalidArgument(std::string(key::moe_dispatcher) + ": '" + dispatcher + "' is not one of alltoall, flex");
  }
  t.moe_dispatcher = *parsed_dispatcher;
  t.distributed_optimizer = host.get_bool(key::distributed_optimizer);
  t.fsdp = host.get_bool(key::fsdp);
  t.offload_layers = read_int(host, key::offload_layers, kAutoOffload);
  const std::string split = host.get_string(key::pipeline_split);
  const auto parsed_split = parse_pipeline_split(split);
  if (!parsed_split) {
    throw InvalidArgument(std::string(key::pipeline_split) + ": '" + split +
                          "' is not one of auto, even, uneven, embedding-loss, custom");
  }
  t.pipeline_split = *parsed_split;
  t.flops_convention = read_flops_convention(host);
  return t;
}

void read_cost(const dgx::sdk::Host& host, TrainingSettings& s) {
  for (const std::string& name : host.get_string_list(key::provider)) {
    if (!name.empty() && std::find(s.providers.begin(), s.providers.end(), name) == s.providers.end()) {
      s.providers.push_back(name);
    }
  }
  s.provider = s.providers.empty() ? std::string() : s.providers.front();
  s.usd_per_gpu_hour = read_usd_per_gpu_hour(host, key::usd_per_gpu_hour);
  if (s.usd_per_gpu_hour && s.providers.size() > 1) {
    throw InvalidArgument(std::string(key::usd_per_gpu_hour) + " gives one price for every row, and " + key::provider +
                          " lists " + std::to_string(s.providers.size()) +
                          " providers to compare: set one or the other");
  }
}

void read_explore(const dgx::sdk::Host& host, TrainingSettings& s) {
  for (const std::int64_t g : host.get_int_list(key::explore_gpus)) {
    s.explore_gpus.push_back(bounded_int(key::explore_gpus, g, 1));
  }
  for (const std::int64_t etp : host.get_int_list(key::explore_etp)) {
    s.explore_etp.push_back(bounded_int(key::explore_etp, etp, 1));
  }
  s.gpus_min = read_int(host, key::gpus_min, 1);
  s.gpus_max = read_int(host, key::gpus_max, 1);
  if (s.gpus_min > s.gpus_max) {
    throw InvalidArgument(std::string(key::gpus_min) + " " + std::to_string(s.gpus_min) + " exceeds " + key::gpus_max +
                          " " + std::to_string(s.gpus_max));
  }
  s.gbs_per_gpu = read_int(host, key::gbs_per_gpu, 0);
  s.budget_usd = host.find_float(key::budget_usd);
  if (s.budget_usd && !(*s.budget_usd > 0)) {
    throw InvalidArgument(std::string(key::budget_usd) + " must be a positive number of dollars, got " +
                          text::fixed(*s.budget_usd, 2));
  }
  s.budget_slack = host.get_float(key::budget_slack);
  if (!(s.budget_slack >= 0) || !std::isfinite(s.budget_slack)) {
    throw InvalidArgument(std::string(key::budget_slack) + " must be a fraction >= 0 (0.05 is +5%), got " +
                          text::fixed(s.budget_slack, 3));
  }
}

}  // namespace

std::vector<Param> training_params(const TrainingDefaults& d) {
  // Keys that only --mode project reads say so: explore sweeps layouts, batch splits and recompute itself.
  return {
      Param::string(key::model, d.model,
                    "model to train, from the model catalog (" + text::join(model_names()) +
                        ") or a Hugging Face config.json: PATH/config.json or its folder"),
      Param::string(key::system, "h100-sxm", system_help()),
      Param::string_list(key::framework, {},
                         "software release(s) whose calibrated profile the projection uses, from configs/frameworks: " +
                             text::join(framework_names()) +
                             "; empty: the newest; several: explore compares them (project uses the first)"),
      Param::integer(key::gpus, d.gpus, "GPUs of the run (--mode project)", "GPUs"),
      Param::string_list(key::precision, d.precisions,
                         "GEMM precisions: explore sweeps them, project uses the first (mxfp8, nvfp4: Blackwell only)",
                         "bf16|fp8|mxfp8|nvfp4"),
      Param::integer(key::tp, d.layout.tp,
                     "tensor-parallel GPUs per layer, with sequence parallelism, within the NVLink "
                     "domain (--mode project)"),
      Param::integer(key::pp, d.layout.pp, "pipeline-parallel stages (--mode project)"),
      Param::integer(key::cp, d.layout.cp,
                     "context-parallel GPUs splitting each sequence, ring attention (--mode project)"),
      Param::integer(key::vp, d.layout.vp,
                     "virtual pipeline chunks per stage; > 1 runs interleaved 1F1B (--mode project)"),
      Param::integer(key::ep, d.layout.ep,
                     "expert-parallel GPUs, mixture-of-experts models only, folded over TP x CP x DP as Megatron's MoE "
                     "parallel folding does (--mode project)"),
      Param::integer(key::etp, 0,
                     "expert tensor parallel (MoE): each expert's GEMMs over etp ranks; 0: tp where ep x tp divides "
                     "tp x cp x dp, else the widest divisor of tp that does (--mode project; explore sweeps "
                     "explore.etp)"),
      Param::boolean(key::ep_overlap, false,
                     "MoE: hide the expert all-to-all of one microbatch behind another's compute (Megatron's "
                     "overlap_moe_expert_parallel_comm); needs pp 1 or vp > 1"),
      Param::string(key::moe_dispatcher, "alltoall",
                    "MoE token dispatcher: alltoall (Megatron's flat all-to-all) or flex (DeepEP / HybridEP: a token "
                    "crosses to each remote NVLink domain once)",
                    "alltoall|flex"),
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
      Param::integer(key::mbs, d.mbs, "micro-batch size: sequences per forward/backward pass (--mode project)",
                     "sequences"),
      Param::integer(key::gbs, d.gbs,
                     "global batch size: sequences per optimizer step (explore: see explore.gbs_per_gpu)", "sequences"),
      Param::integer(key::seq_len, d.seq_len, "sequence length; 0: the model's default (configs/models)", "tokens"),
      Param::string(key::recompute, "none",
                    "activation recompute in the backward pass (--mode project; explore sweeps all three)",
                    "none|selective|full"),
      Param::string_list(key::recompute_modules, {"core_attn"},
                         "what selective recompute reruns under Megatron (recompute_modules): core_attn, mla_up_proj, "
                         "moe_act, layernorm, mlp, moe, shared_experts (torchtitan's selective recompute is its own "
                         "per-op policy)"),
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
      Param::string_list(
          key::provider, {},
          "price from this provider of configs/pricing (e.g. aws, gcp, azure, oracle, coreweave, crusoe, "
          "nebius, lambda, aws-3yr, owned); several (aws,gcp,azure): explore compares them, a column and "
          "a series each, and the recommendation names the provider (project uses the first); empty: "
          "the cheapest on-demand list price for the system"),
      Param::floating(key::usd_per_gpu_hour, 0, "an explicit price instead of the catalog's, e.g. a negotiated rate",
                      "USD/GPU-h")
          .without_default(),
      Param::int_list(key::explore_gpus, {},
                      "GPU counts to explore; empty: powers of two from explore.gpus_min to explore.gpus_max", "GPUs"),
      Param::int_list(key::explore_etp, {},
                      "expert tensor-parallel sizes explore sweeps for MoE models; empty: 1, 2, 4, 8 within the "
                      "NVLink domain"),
      Param::integer(key::gpus_min, d.gpus_min, "smallest GPU count of the default sweep", "GPUs"),
      Param::integer(key::gpus_max, d.gpus_max, "largest GPU count of the default sweep", "GPUs"),
      Param::integer(key::gbs_per_gpu, d.gbs_per_gpu,
                     "global batch while exploring: N > 0 gives N sequences per GPU (weak scaling); 0 keeps "
                     "train.gbs at every GPU count",
                     "sequences"),
      Param::floating(key::budget_slack, 0.05,
                      "recommend the fastest configuration costing at most (1 + slack) x the cheapest"),
      Param::floating(key::budget_usd, 0,
                      "also recommend the fastest configuration costing at most this (with a deadline too: whether "
                      "one meets both)",
                      "USD")
          .without_default(),
  };
}

ExploreSpace explore_space(const TrainingSettings& s) {
  ExploreSpace space;
  space.gpu_counts = s.explore_gpus;
  space.gpus_min = s.gpus_min;
  space.gpus_max = s.gpus_max;
  space.precisions = s.precisions;
  space.batch = s.gbs_per_gpu > 0 ? BatchRule{.kind = BatchRule::Kind::per_gpu, .value = s.gbs_per_gpu}
                                  : BatchRule{.kind = BatchRule::Kind::fixed, .value = s.train.gbs};
  space.seq_len = s.train.seq_len;
  space.distributed_optimizer = s.train.distributed_optimizer;
  space.fsdp = s.train.fsdp;
  space.etp = s.explore_etp;
  space.recompute_modules = s.train.recompute_modules;
  space.ep_overlap = s.train.ep_overlap;
  space.moe_dispatcher = s.train.moe_dispatcher;
  space.pipeline_split = s.train.pipeline_split;
  space.flops_convention = s.train.flops_convention;
  return space;
}

TrainingSettings read_training_settings(const dgx::sdk::Host& host) {
  TrainingSettings s;
  s.model = host.get_string(key::model);
  s.system = system_spec(host, host.get_string(key::system));
  s.system_configured = host.is_set(key::system);
  for (const std::string& name : host.get_string_list(key::framework)) {
    if (std::find(s.frameworks.begin(), s.frameworks.end(), name) == s.frameworks.end()) {
      s.frameworks.push_back(name);
    }
  }
  s.gpus = read_int(host, key::gpus, 1);
  s.precisions = read_precisions(host);
  s.train = read_train(host, s.precisions.front());
  read_cost(host, s);
  read_explore(host, s);
  return s;
}

}  // namespace dgx::llm::workload
