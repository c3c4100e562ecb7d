// Pipeline schedules: 1F1B (vp = 1) and interleaved 1F1B with vp virtual chunks per stage (Narayanan et al.,
// SC'21, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM").
#pragma once

namespace dgx::llm {

/// Idle fraction of a pipeline relative to its busy time: (p − 1) / (v · m) for m microbatches per pipeline.
[[nodiscard]] double bubble_fraction(int pp, int vp, int microbatches);

/// Step time of the pipeline: every stage runs m microbatches at the pace of the slowest stage, plus the
/// warm-up / cool-down bubble, (p − 1)/v average stage-microbatch times:
///   m · t_slowest + (p − 1)/v · t_mean.
/// Balanced stages give (m + (p − 1)/v) · t, i.e. the bubble fraction above.
[[nodiscard]] double pipeline_seconds(int pp, int vp, int microbatches, double slowest_stage_s, double mean_stage_s);

/// Microbatches whose activations pipeline stage `stage` (0 = first) holds at its peak, in units of "all of
/// the stage's layers for one microbatch" (Megatron's schedules): 1F1B warms up p − stage − 1 microbatches, so
/// min(m, p − stage); interleaved warms up 2(p − stage − 1) + (v − 1)p chunks, so
/// min(2(p − stage − 1) + (v − 1)p + 1, m·v) / v. For the first stage with m ≥ p that is p·(1 + (p − 1)/(p·v)),
/// Korthikanti et al., MLSys'23, "Reducing Activation Recomputation in Large Transformer Models", section 4.2.3.
[[nodiscard]] double inflight_microbatches(int pp, int vp, int microbatches, int stage);

}  // namespace dgx::llm
