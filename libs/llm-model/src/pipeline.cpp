#include "dgx/llm/pipeline.hpp"

#include <algorithm>

namespace dgx::llm {

double bubble_fraction(int pp, int vp, int microbatches) {
  return static_cast<double>(pp - 1) / (static_cast<double>(vp) * microbatches);
}

double pipeline_seconds(int pp, int vp, int microbatches, double slowest_stage_s, double mean_stage_s) {
  return microbatches * slowest_stage_s + static_cast<double>(pp - 1) / vp * mean_stage_s;
}

double inflight_microbatches(int pp, int vp, int microbatches, int stage) {
  if (vp <= 1) {
    return std::min(pp - stage, microbatches);
  }
  const int warmup_chunks = 2 * (pp - stage - 1) + (vp - 1) * pp;
  return static_cast<double>(std::min(warmup_chunks + 1, microbatches * vp)) / vp;
}

}  // namespace dgx::llm
