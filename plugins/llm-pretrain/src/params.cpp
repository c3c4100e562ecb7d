#include "params.hpp"

#include <algorithm>
#include <string>

namespace dgx::plugins::llm_pretrain {

std::vector<dgx::sdk::Param> pretrain_params() {
  using dgx::sdk::Param;
  // The llama8b preset: Llama 3.1 8B on 8 GPUs, CP2 for its 8K sequences, GBS 128.
  llm::workload::TrainingDefaults defaults;
  defaults.layout.cp = 2;
  std::vector<Param> params = llm::workload::training_params(defaults);
  const auto after_seq_len =
      std::find_if(params.begin(), params.end(), [](const Param& p) { return p.key == key::seq_len; }) + 1;
  params.insert(
      after_seq_len,
      Param::floating(key::tokens, 1e12, "tokens to train: days, GPU-hours and cost are for this many", "tokens"));
  params.push_back(Param::floating(key::deadline_days, 0,
                                   "also recommend the cheapest configuration that trains within this", "days")
                       .without_default());
  return params;
}

}  // namespace dgx::plugins::llm_pretrain
