#include "assumptions.hpp"

#include "dgx/llm/workload/calibration_summary.hpp"

namespace dgx::plugins::llm_finetune {

llm::workload::Assumptions resolve_finetune_assumptions(const FinetuneSettings& settings) {
  llm::workload::Assumptions a = llm::workload::resolve_assumptions(settings);
  a.calibration = llm::workload::finetune_calibration_summary(a.system) + "; pretraining " + a.calibration;
  return a;
}

}  // namespace dgx::plugins::llm_finetune
