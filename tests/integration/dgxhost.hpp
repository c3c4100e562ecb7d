// Runs the dgxhost executable under test.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "process.hpp"

namespace dgx::testing {

/// Measured runs keep no run folder (./dgx-runs) unless a test asks for one with DGX_RUNS_DIR or --run-dir.
inline ProcessResult dgxhost(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
  env.emplace("DGX_RUNS_DIR", "off");
  return run_process(DGX_TEST_DGXHOST, args, env);
}

inline std::string fixture_dir(const char* name) {
  return (std::filesystem::path(DGX_TEST_FIXTURE_DIR) / name).string();
}

/// Keeps measured runs short; the statistics stay meaningful.
inline const std::vector<std::string> kQuick = {"--set", "runner.min_time=0.02", "--set", "runner.min_samples=5",
                                                "--set", "runner.max_time=2"};

inline std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace dgx::testing
