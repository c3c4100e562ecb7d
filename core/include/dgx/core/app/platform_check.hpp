// dgxhost --plugin platform-check: a fixed sequence of short runs (configs/checks/platform-check.toml: GEMM,
// HBM copy, NCCL collectives, one transformer layer), each held against its published references, merged into one
// report with one verdict. Without a GPU it is a plan: what each step would run and which references would judge
// it, and exit code 4. The steps are data; platform_check_command.cpp runs them through the ordinary run path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgx/core/config/search_paths.hpp"
#include "dgx/core/results/document.hpp"
#include "dgx/core/support/expected.hpp"
#include "dgx/core/support/json.hpp"
#include "dgx/core/verdict/reference_store.hpp"

namespace dgx {

inline constexpr std::string_view kPlatformCheck = "platform-check";

struct CheckStep {
  std::string name;                           // "GEMM BF16 and FP8, 8192 x 8192 x 8192"
  std::string why;                            // what the step tells about the platform
  std::string workload;                       // what --plugin would name
  std::vector<std::string> sets;              // KEY=VALUE, as --set takes them
  [[nodiscard]] std::string command() const;  // "dgxhost --plugin gemm --set ... --baseline published"
};

struct PlatformCheck {
  std::string origin;     // the file it was read from
  bool needs_gpu = true;  // requires = "gpu" (the default) or "none": a check of CPU workloads (tests use one)
  std::vector<CheckStep> steps;
};

/// Parses a check file; `name` names it in errors (a usage failure for a step without name or workload, or a
/// `set` entry that is not KEY=VALUE).
Expected<PlatformCheck> parse_platform_check(std::string_view toml_text, const std::string& name);

/// configs/checks/platform-check.toml under the first config directory that has it.
Expected<PlatformCheck> load_platform_check(const std::vector<SearchPath>& config_paths);

/// The steps, one a line with what each tells and its command: `dgxhost --plugin platform-check --describe`, and
/// the plan's note.
std::string describe_steps(const PlatformCheck& check);

/// The reference rows a step's results would be held against, before anything ran: every reference whose
/// constraints on what the step's configuration says (workload, config keys) hold; the constraints only a
/// measurement can settle (the GPU's system, the measured size, the world size) are listed in the row's
/// "applies when" field. Each row has mode reference and the reference's values as metrics.
std::vector<ResultRow> planned_references(const CheckStep& step, const std::vector<Reference>& references);

/// The plan of the check, for a machine without a GPU: the reference rows of every step, a note listing the
/// steps with their commands, and exit code 4 with `why_not` (no GPU: the probe's words) as the error.
Report platform_check_plan(const PlatformCheck& check, const std::vector<Reference>& references,
                           const std::string& why_not);

/// One report from the steps' reports: every row (tables stay per workload), each step's notes under the step's
/// name, the Verdict notes summed into one, the first step's context with the check's steps added, and the worst
/// exit code (5 when a row failed its reference, else a step's own failure).
Report merge_check_reports(const PlatformCheck& check, std::vector<Report> steps);

}  // namespace dgx
