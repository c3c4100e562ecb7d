#include "resume_command.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dgx/core/run/run_folder.hpp"

namespace dgx {

Expected<CliOptions> parse_or_resume(int argc, const char* const* argv) {
  auto options = parse_cli(argc, argv);
  if (!options || options->resume.empty() || !options->plugin.empty()) {
    return options;
  }
  if (!options->config_files.empty() || !options->sets.empty() || !options->aliases.empty()) {
    return Failure{ExitCode::usage, "--resume DIR without --plugin repeats the journal's command line; give the "
                                    "whole command line (with --plugin) to change it"};
  }
  std::vector<std::pair<std::string, std::string>> fresh;  // option, value ("" for switches)
  if (options->format != "table") {
    fresh.emplace_back("--format", options->format);
  }
  if (!options->output.empty()) {
    fresh.emplace_back("--output", options->output);
  }
  if (options->quiet) {
    fresh.emplace_back("--quiet", "");
  }
  auto stored = resumed_argv(options->resume, {"--format", "--output", "-o", "--quiet", "-q"});
  if (!stored) {
    return stored.error();
  }
  for (const auto& [option, value] : fresh) {
    stored->push_back(option);
    if (!value.empty()) {
      stored->push_back(value);
    }
  }
  std::vector<const char*> pointers;
  for (const std::string& a : stored.value()) {
    pointers.push_back(a.c_str());
  }
  auto resumed = parse_cli(static_cast<int>(pointers.size()), pointers.data());
  if (resumed) {
    resumed->verbose = std::max(resumed->verbose, options->verbose);
  }
  return resumed;
}

}  // namespace dgx
