#include "assumptions.hpp"

#include "dgx/llm/plugin/calibration_summary.hpp"

namespace dgx::plugins::llm_finetune {

llm::plugin::Assumptions resolve_finetune_assumptions(const FinetuneSettings& settings) {
  llm::plugin::Assumptions a = llm::plugin::resolve_assumptions(settings);
  a.calibration = llm::plugin::finetune_calibration_summary(a.system) + "; pretraining " + a.calibration;
  return a;
}

}  // namespace dgx::plugins::llm_finetune
