// Which reference a result row is held against, and on which metric (the matching rule of --baseline).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/results/document.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/verdict/reference_store.hpp"

namespace dgx {

/// A near column in which the row differs from its reference.
struct Difference {
  std::string key;        // "gpus"
  std::string value;      // the row's: "512"
  std::string reference;  // the reference's: "64"
};

struct ReferenceMatch {
  const Reference* reference = nullptr;
  std::vector<Difference> differences;
  /// Why the nearest reference is not comparable ("gpus 8192 is 128x the reference's 64"); empty when it is.
  std::string incomparable;
  [[nodiscard]] bool exact() const { return differences.empty(); }
  [[nodiscard]] bool comparable() const { return incomparable.empty(); }
  /// "gpus 512 (reference 64), train.gbs 1024 (reference 128)"; `other` names the other side.
  [[nodiscard]] std::string describe_differences(const std::string& other = "reference") const;
};

/// A nearest reference is comparable when its scale columns (the GPU count and the global batch: config keys named
/// gpus or ending in .gbs) are within this factor of the row's either way: per-GPU throughput at 64 GPUs says
/// little about 8192.
inline constexpr double kComparableScale = 4;

/// The reference of `row`: every exact constraint holds, and of those the comparable one (kComparableScale) whose
/// near columns differ least (fewest differences, then the earlier columns weighing more; the first in file order
/// on a tie); when none is comparable, the nearest with `incomparable` saying why. nullopt when no reference's exact
/// constraints hold. The one home of the matching rule: --baseline's verdicts use it.
std::optional<ReferenceMatch> find_reference(const ResultRow& row, const std::vector<Reference>& references);

/// The metric a row is judged on against its reference: the first reference value the row has, in a unit that
/// converts and with a direction of "better" (only per-GPU values when the match is not exact).
struct HeadlineComparison {
  std::string metric;
  std::string unit;      // the row's unit; `reference` is converted to it
  double value = 0;      // the row's
  double reference = 0;  // the reference's, in `unit`
  Better better = Better::none;
  double ratio = 0;  // above 1: better than the reference (goodness_ratio)
};
/// Which way a metric is better comes from `declared` (the row's workload's declarations), else from its unit.
std::optional<HeadlineComparison> headline_comparison(const ResultRow& row, const ReferenceMatch& match,
                                                      const std::vector<WorkloadDeclarations>& declared = {});

}  // namespace dgx
