// Synchronous training runs at the pace of its slowest GPU. GPUs of one model differ in sustained speed (power
// and thermal management, silicon; Sinha et al., SC'22, "Not All GPUs Are Created Equal"), so a step over n GPUs
// takes the expected slowest of n: with per-GPU speeds spread normally with coefficient of variation cv, the
// compute-paced part of the step grows by cv · E[max of n standard normals].
#pragma once

namespace dgx::llm {

/// E[max of n independent standard normal variables] (Blom's approximation, Φ⁻¹((n − 0.375)/(n + 0.25)),
/// within 1% for n ≥ 2); 0 for n ≤ 1.
[[nodiscard]] double expected_max_standard_normal(int n);

/// Fraction added to the compute-paced part of a step on `gpus` GPUs: cv · E[max of n].
[[nodiscard]] double straggler_fraction(double cv, int gpus);

}  // namespace dgx::llm
