// dgxhost --plugin platform-check: a fixed sequence of short runs (configs/checks/platform-check.toml: GEMM,
// HBM copy, NCCL collectives, one transformer layer, one training step end to end), each held against its published
// references, merged into one report with one verdict. Without a GPU it is a plan: what each step would run and which
// references would judge it on each system of the catalog ("no reference for SYSTEM" where none would), and exit
// code 4. The steps are data; platform_check_command.cpp runs them through the ordinary run path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/verdict/reference_store.hpp"
#include "dgx/json/json.hpp"

namespace dgx {

inline constexpr std::string_view kPlatformCheck = "platform-check";

/// [step.on.SYSTEM]: what a step adds to its sets when the GPUs present are that system.
struct SystemSets {
  std::string system;             // "h200-sxm"
  std::vector<std::string> sets;  // KEY=VALUE, after the step's own (a later one wins)
};

struct CheckStep {
  std::string name;               // "GEMM BF16 and FP8, 8192 x 8192 x 8192"
  std::string why;                // what the step tells about the platform
  std::string workload;           // what --plugin would name
  std::vector<std::string> sets;  // KEY=VALUE, as --set takes them
  std::vector<SystemSets> on;     // per system, sorted by name
  /// The sets on `system`: the step's own, then those of its [step.on.SYSTEM] (none when `system` is empty).
  [[nodiscard]] std::vector<std::string> sets_on(std::string_view system) const;
  /// "dgxhost --plugin gemm --set ... --baseline published", with the sets on `system`.
  [[nodiscard]] std::string command(std::string_view system = {}) const;
};

struct PlatformCheck {
  std::string origin;     // the file it was read from
  bool needs_gpu = true;  // requires = "gpu" (the default) or "none": a check of CPU workloads (tests use one)
  std::vector<CheckStep> steps;
};

/// Parses a check file through the catalog's TOML front door; `name` names it in errors (a usage failure naming
/// file:line:col and the key for a step without name or workload, a `set` entry that is not KEY=VALUE, an unknown
/// key).
Expected<PlatformCheck> parse_platform_check(std::string_view toml_text, const std::string& name);

/// checks/platform-check.toml by the catalog's search order (--config-dir, DGX_CONFIG_PATH, the install's configs,
/// the compiled-in copy).
Expected<PlatformCheck> load_platform_check();

/// The steps, one a line with what each tells and its command: `dgxhost --plugin platform-check --describe`, and
/// the plan's note.
std::string describe_steps(const PlatformCheck& check);

/// The reference rows a step's results would be held against on `system` (empty: a system not known), before
/// anything ran: every reference whose constraints on what the step's configuration says (workload, config keys,
/// the system) hold; the constraints only a measurement can settle (the measured size, the world size) are listed
/// in the row's "applies when" field. Where the configuration settles every constraint, only the reference the run
/// would pick (find_reference: the nearest) is listed, and a nearest one with the values it would compare (the
/// per-GPU ones). Each row has mode reference and the reference's values as metrics.
std::vector<ResultRow> planned_references(const CheckStep& step, const std::vector<Reference>& references,
                                          std::string_view system = {});

/// The plan of the check, for a machine without a GPU: per step, the reference rows on each of `systems` (the
/// systems sharing the same references in one row, field "systems"), a row "no reference for SYSTEM, ..." for those
/// without any, a note listing the steps with their commands and references per system, and exit code 4 with
/// `why_not` (no GPU: the probe's words) as the error. With no systems, the references of a system not known.
Report platform_check_plan(const PlatformCheck& check, const std::vector<Reference>& references,
                           const std::vector<std::string>& systems, const std::string& why_not);

/// The system the GPUs present are, as the rows of the steps that ran so far name it (field "system": the GPU's
/// profile of configs/systems the plugins matched); empty when no row names one.
std::string system_of(const std::vector<Report>& steps);

/// One report from the steps' reports: every row (tables stay per workload), each step's notes under the step's
/// name, the Verdict notes summed into one (with "STEP: no reference for SYSTEM" per step whose rows found none),
/// the first step's context with the check's steps added, and the worst exit code (5 when a row failed its
/// reference, else a step's own failure).
Report merge_check_reports(const PlatformCheck& check, std::vector<Report> steps);

}  // namespace dgx
