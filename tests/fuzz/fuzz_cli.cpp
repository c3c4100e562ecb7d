// The command line: NUL-separated arguments through dgxhost's and dgxhost launch's parsers; a rejection must
// carry a documented exit code and a message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dgx/core/app/mpijob_manifest.hpp"
#include "dgx/core/app/slurm_script.hpp"
#include "dgx/core/config/cli.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"dgxhost"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  args.push_back(current);
  std::vector<const char*> argv;
  for (const std::string& a : args) {
    argv.push_back(a.c_str());
  }
  dgx::fuzz::check_rejection(dgx::parse_cli(static_cast<int>(argv.size()), argv.data()));
  argv[0] = "launch";
  auto launch = dgx::parse_launch(static_cast<int>(argv.size()), argv.data());
  dgx::fuzz::check_rejection(launch);
  if (launch && !launch->help) {
    const bool slurm = launch->scheduler == dgx::Scheduler::slurm;
    (void)(slurm ? dgx::sbatch_script(launch.value()) : dgx::mpijob_yaml(launch.value()));
  }
  return 0;
}
