// Test helper: a platform check (checks/platform-check.toml) written into a test's config directory, for the tests
// that run one through dgxhost.
#pragma once

#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace dgx::testing {

/// One step of a platform check: a workload run with one `--set` override (a plain string, no quotes in it).
struct CheckStep {
  std::string name;
  std::string workload;
  std::string set;
};

/// Writes config_dir/checks/platform-check.toml with `steps` in order. It asks for no GPU (requires = "none"), so
/// that steps of CPU workloads run on any machine.
inline void write_platform_check(const TempDir& config_dir, const std::vector<CheckStep>& steps) {
  std::string toml = "requires = \"none\"\n";
  for (const CheckStep& step : steps) {
    toml += "\n[[step]]\nname = \"" + step.name + "\"\nworkload = \"" + step.workload + "\"\nset = [\"" + step.set +
            "\"]\n";
  }
  (void)config_dir.write("checks/platform-check.toml", toml);
}

}  // namespace dgx::testing
