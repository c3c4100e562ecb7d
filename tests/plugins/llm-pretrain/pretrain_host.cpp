#include "pretrain_host.hpp"

#include <cstdint>
#include <stdexcept>

#include "dgx/llm/workload_preset.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_pretrain::testing {

PretrainHost::PretrainHost() : WorkloadHost(pretrain_params()) {}

void PretrainHost::use_preset(const std::string& name) {
  const auto p = llm::find_workload_preset(name);
  if (!p) throw std::runtime_error(p.error().message);
  std::vector<std::string> precisions;
  for (const llm::Precision precision : p->precisions) precisions.emplace_back(llm::to_string(precision));
  set(key::model, p->model);
  set(key::system, p->system);
  set(key::precision, precisions);
  set(key::gpus, std::int64_t{p->gpus});
  set(key::tokens, p->train.tokens);
  set(key::seq_len, std::int64_t{p->train.seq_len});
  set(key::mbs, std::int64_t{p->train.mbs});
  set(key::gbs, std::int64_t{p->train.gbs});
  set(key::recompute, std::string(llm::to_string(p->train.recompute)));
  set(key::tp, std::int64_t{p->train.layout.tp});
  set(key::pp, std::int64_t{p->train.layout.pp});
  set(key::cp, std::int64_t{p->train.layout.cp});
  set(key::vp, std::int64_t{p->train.layout.vp});
  set(key::ep, std::int64_t{p->train.layout.ep});
  set(key::gpus_min, std::int64_t{p->explore_gpus_min});
  set(key::gpus_max, std::int64_t{p->explore_gpus_max});
  set(key::gbs_per_gpu,
      std::int64_t{p->explore_batch.kind == llm::BatchRule::Kind::per_gpu ? p->explore_batch.value : 0});
}

}  // namespace dgx::plugins::llm_pretrain::testing
