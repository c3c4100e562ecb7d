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
  [[nodiscard]] bool exact() const { return differences.empty(); }
  /// "gpus 512 (reference 64), train.gbs 1024 (reference 128)"; `other` names the other side.
  [[nodiscard]] std::string describe_differences(const std::string& other = "reference") const;
};

/// The reference of `row`: every exact constraint holds, and of those the one whose near columns differ least
/// (fewest differences, then the earlier columns weighing more; the first in file order on a tie). nullopt when
/// no reference's exact constraints hold.
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
std::optional<HeadlineComparison> headline_comparison(const ResultRow& row, const ReferenceMatch& match);

}  // namespace dgx
