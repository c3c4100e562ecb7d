// --baseline: every measured or projected row held against a reference — the published one of the same workload,
// system, precision, layout and scale (configs/baselines, reference_store.hpp), or the matching row of an earlier
// run (a results file) — with ratio_to_reference and a verdict: pass at >= verdict.threshold, fail below, "no
// reference" where none applies. Any fail makes the run exit 5.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/verdict/reference_store.hpp"

namespace dgx {

inline constexpr double kDefaultVerdictThreshold = 0.95;

/// The verdict.* keys a run with --baseline accepts.
std::vector<ParamSpec> verdict_params();

/// verdict.threshold from a resolved configuration (the default when the key is absent); a usage failure when
/// it is not in (0, 10].
Expected<double> verdict_threshold(const ResolvedConfig& config);

/// The references of --baseline SPEC: "published" (configs/baselines) or a results file of an earlier run.
struct Baseline {
  std::string description;  // "published references (configs/baselines)", "baseline run a.json: spin on ..."
  std::vector<Reference> references;
};
Expected<Baseline> load_baseline(const std::string& spec);

/// The measured and projected rows of an earlier run as references: the same workload and table must match,
/// the config keys are ranked for the nearest row, every judged metric is comparable.
std::vector<Reference> references_from_run(const Report& run, const std::string& name);

/// What a run with --baseline needs, read before it runs (a missing file fails at once, not after the run).
struct BaselineRun {
  Baseline baseline;
  double threshold = kDefaultVerdictThreshold;
};
/// nullopt without --baseline (`spec` empty).
Expected<std::optional<BaselineRun>> prepare_baseline(const std::string& spec, const ResolvedConfig& config);

struct VerdictCounts {
  int pass = 0;
  int fail = 0;
  int none = 0;
};

/// Holds every measured and projected row of `report` against `baseline`: inserts each reference row used
/// (mode reference) before the first row it judges, adds ratio_to_reference and the verdict to each row, a
/// "Verdict" note, and exit code 5 (unless the run already failed) when a row fails.
VerdictCounts apply_baseline(Report& report, const Baseline& baseline, double threshold);

}  // namespace dgx
