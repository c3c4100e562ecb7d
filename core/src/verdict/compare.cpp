#include "dgx/core/verdict/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "dgx/core/results/document_reader.hpp"
#include "dgx/core/support/mann_whitney.hpp"
#include "dgx/core/support/quantity.hpp"
#include "dgx/core/support/text.hpp"
#include "dgx/core/verdict/baseline.hpp"
#include "dgx/core/verdict/reference_match.hpp"

namespace dgx {

namespace {

// What the rows mean: B's declarations, then A's for workloads B's file does not describe.
using Declared = std::vector<WorkloadDeclarations>;

// Spread, extremes and the outlier-prone mean of the host's timing move from run to run without anything getting
// slower: the median stands for the timed samples (the U test compares the samples themselves). Never judged, nor
// the verdict's own ratio; every other metric as its workload declares it (or, undeclared, by its unit).
bool judged(const Declared& declared, const ResultRow& row, const Metric& m) {
  static const std::set<std::string> kSpread{"time.mean", "time.stdev",    "time.cv",       "time.min",
                                             "time.max",  "time.rank_min", "time.rank_max", "ratio_to_reference"};
  return kSpread.count(m.name) == 0 && better_of(declared, row, m.name, m.unit) != Better::none;
}

struct Counts {
  int compared = 0, regressions = 0, improvements = 0;
  std::vector<std::string> regressed;
};

struct Pair {
  const ResultRow* a = nullptr;
  const ResultRow* b = nullptr;
  std::string differences;    // config keys in which A's row differs (a nearest match), or empty
  std::optional<UTest> test;  // both rows have at least two samples
};

// Whether metric `m` of B's row names its case: a declared identity metric (a message size); where the workload
// declares no identity, a size in bytes (the rule of files written before ABI 1.1).
bool names_case(const WorkloadDeclarations* declared, const Metric& m) {
  if (declared == nullptr || !declared->identity_keys) {
    return m.unit == "B";
  }
  const auto& keys = *declared->identity_keys;
  return std::find(keys.begin(), keys.end(), m.name) != keys.end();
}

// A case-naming metric as its identity column: a declared one (a message size) exactly, as nccl-tests prints it; one
// that names the case only by the rule of undeclared workloads (a size in bytes, such as a projection's memory per
// GPU) scaled to a readable unit, "85.90 GB" rather than 85899345920.
json::Value case_value(const WorkloadDeclarations* declared, const Metric& m) {
  if (declared == nullptr || !declared->identity_keys) {
    return format_quantity(m.value, m.unit);
  }
  return m.value == std::floor(m.value) ? json::Value(static_cast<long long>(m.value)) : json::Value(m.value);
}

// The row's identity in the compare tables: its configuration, plus the metrics that name its case where they are
// the same on both sides (a message size is a metric of a comm row, yet names its case).
json::Object identity(const Declared& declared, const Pair& p) {
  json::Object config;
  for (const auto& [key, value] : p.b->config) {
    if (!text::starts_with(key, "verdict.")) {
      config.set(key, value);
    }
  }
  const WorkloadDeclarations* d = declarations_for(declared, *p.b);
  for (const Metric& m : p.b->metrics) {
    if (names_case(d, m)) {
      if (const Metric* other = p.a->find_metric(m.name); other != nullptr && other->value == m.value) {
        config.set(m.name, case_value(d, m));
      }
    }
  }
  return config;
}

std::string verdict_of(double goodness, const std::optional<UTest>& test, const CompareOptions& o, std::string& why) {
  const double change = goodness - 1;
  if (std::abs(change) <= o.threshold) {
    why = "change within the threshold of " + text::format_number(100 * o.threshold, 3) + "%";
    return "no significant difference";
  }
  if (test && test->p_value >= o.alpha) {
    why = "U test p = " + text::format_number(test->p_value, 3) + " >= alpha " + text::format_number(o.alpha, 3) +
          ": the change is within the noise of the samples";
    return "no significant difference";
  }
  why = test ? "U test p = " + text::format_number(test->p_value, 3) + " < alpha " + text::format_number(o.alpha, 3)
             : "no samples on both sides: the threshold alone decides";
  return change < 0 ? "regression" : "improvement";
}

std::string test_text(const UTest& t) {
  return "Mann-Whitney U = " + text::format_number(t.u, 6) + ", p = " + text::format_number(t.p_value, 3) + " (" +
         std::to_string(t.n1) + " and " + std::to_string(t.n2) + " samples, " +
         (t.exact ? "exact" : "normal approximation") + ")" +
         (std::min(t.n1, t.n2) < 9 ? "; 9 or more samples per side give the test its power" : "");
}

ResultRow compare_row(const Declared& declared, const Pair& p, const Metric& mb, const Metric& ma_in_b_unit,
                      const CompareOptions& o, Counts& counts) {
  const Better better = better_of(declared, *p.b, mb.name, mb.unit);
  const double goodness = goodness_ratio(better, mb.value, ma_in_b_unit.value).value_or(1);
  std::string why;
  const std::string verdict = verdict_of(goodness, p.test, o, why);
  ResultRow row;
  row.workload = p.b->workload;
  row.plugin = p.b->plugin;
  row.mode = p.b->mode;
  row.table = "compare " + mb.name + " (" + std::string(to_string(better)) + ")";
  row.label = p.b->label;
  row.config = identity(declared, p);
  row.add_metric({"a", ma_in_b_unit.value, mb.unit, false, "A"});
  row.add_metric({"b", mb.value, mb.unit, false, "B"});
  // One ratio in the table, the HTML chart and the verdict: B relative to A, above 1 when B is better (A/B for a
  // time, B/A for a throughput). The raw B/A stays in JSON for scripts.
  row.add_metric({"ratio", ma_in_b_unit.value != 0 ? mb.value / ma_in_b_unit.value : NAN, "1", true, "B/A"});
  row.add_metric({"relative", goodness, "1", false, "B vs A"});
  row.add_metric({"change", 100 * (goodness - 1), "%", false, "better by %"});
  if (p.test) {
    row.add_metric({"p_value", p.test->p_value, "1", false, "p"});
  }
  row.add_field({"verdict", verdict, false});
  row.add_field({"why", why, true});
  row.add_field({"metric", mb.name, true});
  row.add_field({"better", std::string(to_string(better)), true});
  if (p.test) {
    row.add_field({"test", test_text(*p.test), true});
  }
  if (!p.differences.empty()) {
    row.add_field({"matched", "nearest row of A: " + p.differences, false});
  }
  ++counts.compared;
  if (verdict == "improvement") {
    ++counts.improvements;
  }
  if (verdict == "regression") {
    ++counts.regressions;
    counts.regressed.push_back(p.b->workload + (p.b->label.empty() ? "" : " " + p.b->label) + " " + mb.name + ": " +
                               text::format_number(100 * (goodness - 1), 3) + "% (" + why + ")");
  }
  return row;
}

// The row of A that `row` pairs with: the first of A's rows of the same configuration not paired yet (an explore
// writes several rows of one configuration, told apart by their fields: a rerun pairs them in order), else the
// nearest of all. An exact match leaves `unpaired`.
std::optional<ReferenceMatch> pair_of(const ResultRow& row, const std::vector<Reference>& refs,
                                      std::vector<Reference>& unpaired) {
  if (auto exact = find_reference(row, unpaired); exact && exact->exact()) {
    const std::size_t index = exact->reference->row;
    const auto it = std::find_if(refs.begin(), refs.end(), [&](const Reference& r) { return r.row == index; });
    unpaired.erase(unpaired.begin() + (exact->reference - unpaired.data()));
    return ReferenceMatch{&*it, {}, exact->incomparable};
  }
  return find_reference(row, refs);
}

std::vector<Pair> pair_rows(const Report& a, const std::string& a_name, const Report& b, std::vector<bool>& a_used) {
  const std::vector<Reference> refs = references_from_run(a, a_name);
  std::vector<Reference> unpaired = refs;
  std::vector<Pair> pairs;
  a_used.assign(a.rows.size(), false);
  for (const ResultRow& row : b.rows) {
    if (row.mode == ResultMode::reference) {
      continue;
    }
    const auto match = pair_of(row, refs, unpaired);
    if (!match) {
      continue;
    }
    Pair p{&a.rows[match->reference->row], &row, match->describe_differences("A"), std::nullopt};
    a_used[match->reference->row] = true;
    if (p.a->sample_times.size() >= 2 && row.sample_times.size() >= 2) {
      p.test = mann_whitney_u(p.a->sample_times, row.sample_times);
    }
    pairs.push_back(std::move(p));
  }
  return pairs;
}

std::string summary(const Counts& c, const CompareOptions& o, int unmatched_a, int unmatched_b) {
  std::string out;
  if (c.regressions == 0 && c.improvements == 0) {
    out = "no significant difference: ";
  } else {
    out = std::to_string(c.regressions) + " significant regression(s), " + std::to_string(c.improvements) +
          " improvement(s): ";
  }
  out += std::to_string(c.compared) + " metric(s) compared; a change counts when B is more than " +
         text::format_number(100 * o.threshold, 3) + "% better or worse than A (--threshold) and, where both rows " +
         "carry their timed samples, a Mann-Whitney U test puts it beyond noise (p < " +
         text::format_number(o.alpha, 3) +
         ", --alpha). B vs A is B relative to A, turned so that above 1 means B "
         "is better (A/B for a time, B/A for a throughput); better by % = 100 x (B vs A - 1); the HTML chart shows "
         "the same ratio (JSON keeps the raw B/A as metric ratio).";
  for (const std::string& r : c.regressed) {
    out += "\nregression: " + r;
  }
  if (unmatched_a > 0) {
    out += "\n" + std::to_string(unmatched_a) + " row(s) of A have no counterpart in B";
  }
  if (unmatched_b > 0) {
    out += "\n" + std::to_string(unmatched_b) + " row(s) of B have no counterpart in A";
  }
  return out;
}

}  // namespace

Report compare_runs(const Report& a, const std::string& a_name, const Report& b, const std::string& b_name,
                    const CompareOptions& options) {
  Report out;
  Declared declared = b.workloads;
  for (const WorkloadDeclarations& d : a.workloads) {
    add_declarations(declared, d);
  }
  std::vector<bool> a_used;
  const std::vector<Pair> pairs = pair_rows(a, a_name, b, a_used);
  Counts counts;
  for (const Pair& p : pairs) {
    for (const Metric& mb : p.b->metrics) {
      const Metric* ma = p.a->find_metric(mb.name);
      if (ma == nullptr || !judged(declared, *p.b, mb)) {
        continue;
      }
      const auto value = convert(ma->value, ma->unit, mb.unit);
      if (!value) {
        continue;
      }
      out.rows.push_back(compare_row(declared, p, mb, Metric{ma->name, *value, mb.unit, false, {}}, options, counts));
    }
  }
  const int unmatched_a = static_cast<int>(std::count_if(a.rows.begin(), a.rows.end(), [&](const ResultRow& r) {
    return r.mode != ResultMode::reference && !a_used[static_cast<std::size_t>(&r - a.rows.data())];
  }));
  const int b_rows = static_cast<int>(
      std::count_if(b.rows.begin(), b.rows.end(), [](const ResultRow& r) { return r.mode != ResultMode::reference; }));
  out.notes.push_back(
      {true, "Runs", "A: " + a_name + ", " + describe_run(a) + "\nB: " + b_name + ", " + describe_run(b)});
  out.notes.push_back(
      {false, "Comparison", summary(counts, options, unmatched_a, b_rows - static_cast<int>(pairs.size()))});
  if (counts.regressions > 0) {
    out.exit_code = to_int(ExitCode::check_failed);
    out.error = std::to_string(counts.regressions) + " significant regression(s) of B against A";
  }
  return out;
}

}  // namespace dgx
