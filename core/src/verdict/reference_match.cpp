#include "dgx/core/verdict/reference_match.hpp"

#include <algorithm>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "dgx/core/support/text.hpp"

namespace dgx {

namespace {

std::string value_text(const json::Value& v) {
  if (v.is_null()) {
    return "(none)";
  }
  return v.is_string() ? v.as_string() : to_toml_literal(v);
}

// Differences in rank order; `mask` has a bit per near column, the first column the most significant.
struct Distance {
  std::size_t count = 0;
  std::vector<bool> mask;
  friend bool operator<(const Distance& a, const Distance& b) {
    if (a.count != b.count) {
      return a.count < b.count;
    }
    return a.mask < b.mask;  // lexicographic: a difference in an earlier column weighs more
  }
};

bool exact_holds(const ResultRow& row, const Reference& ref) {
  return std::all_of(ref.exact.begin(), ref.exact.end(),
                     [&](const Constraint& c) { return c.accepts(c.key.read(row)); });
}

Distance distance(const ResultRow& row, const Reference& ref, std::vector<Difference>* differences) {
  Distance d;
  for (const Constraint& c : ref.near) {
    const json::Value value = c.key.read(row);
    const bool differs = !c.accepts(value);
    d.mask.push_back(differs);
    if (!differs) {
      continue;
    }
    ++d.count;
    if (differences != nullptr) {
      differences->push_back({c.key.path, value_text(value), c.describe()});
    }
  }
  return d;
}

bool scale_column(const RowKey& key) {
  const std::string& p = key.path;
  return p == "gpus" || p == "gbs" || (p.size() > 4 && p.compare(p.size() - 4, 4, ".gbs") == 0);
}

// Why `ref` is not comparable with `row`: the first scale column beyond kComparableScale either way; empty if none.
std::string incomparable(const ResultRow& row, const Reference& ref) {
  for (const Constraint& c : ref.near) {
    const json::Value value = c.key.read(row);
    if (!scale_column(c.key) || !value.is_number() || !c.expected.is_number() || c.accepts(value)) {
      continue;
    }
    const double have = value.as_number();
    const double want = c.expected.as_number();
    if (have <= 0 || want <= 0) {
      continue;
    }
    const double factor = std::max(have / want, want / have);
    if (factor > kComparableScale) {
      return c.key.path + " " + value_text(value) + " is " + text::format_number(have / want, 3) +
             "x the reference's " + c.describe() + " (comparable within " + text::format_number(kComparableScale, 3) +
             "x)";
    }
  }
  return {};
}

}  // namespace

std::string ReferenceMatch::describe_differences(const std::string& other) const {
  std::vector<std::string> parts;
  for (const Difference& d : differences) {
    parts.push_back(d.key + " " + d.value + " (" + other + " " + d.reference + ")");
  }
  return text::join(parts, ", ");
}

std::optional<ReferenceMatch> find_reference(const ResultRow& row, const std::vector<Reference>& references) {
  const Reference* best = nullptr;
  Distance best_distance;
  bool best_comparable = false;
  for (const Reference& ref : references) {
    if (!exact_holds(row, ref)) {
      continue;
    }
    const Distance d = distance(row, ref, nullptr);
    const bool comparable = incomparable(row, ref).empty();  // a comparable reference beats any that is not
    if (best == nullptr || (comparable && !best_comparable) || (comparable == best_comparable && d < best_distance)) {
      best = &ref;
      best_distance = d;
      best_comparable = comparable;
    }
  }
  if (best == nullptr) {
    return std::nullopt;
  }
  ReferenceMatch match{best, {}, incomparable(row, *best)};
  distance(row, *best, &match.differences);
  return match;
}

std::optional<HeadlineComparison> headline_comparison(const ResultRow& row, const ReferenceMatch& match,
                                                      const std::vector<WorkloadDeclarations>& declared) {
  for (const ReferenceValue& v : match.reference->values) {
    if (!match.exact() && !v.per_gpu) {
      continue;
    }
    const Metric* m = row.find_metric(v.metric);
    if (m == nullptr) {
      continue;
    }
    const auto reference = convert(v.value, v.unit, m->unit);
    const Better better = better_of(declared, row, m->name, m->unit);
    if (!reference) {
      continue;
    }
    const auto ratio = goodness_ratio(better, m->value, *reference);
    if (!ratio) {
      continue;
    }
    return HeadlineComparison{m->name, m->unit, m->value, *reference, better, *ratio};
  }
  return std::nullopt;
}

}  // namespace dgx
