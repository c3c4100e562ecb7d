// The command line: NUL-separated arguments through dgxhost's and dgxhost launch's parsers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dgx/core/cli.hpp"
#include "dgx/core/launch.hpp"

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
  for (const std::string& a : args) argv.push_back(a.c_str());
  (void)dgx::parse_cli(static_cast<int>(argv.size()), argv.data());
  argv[0] = "launch";
  if (auto launch = dgx::parse_launch(static_cast<int>(argv.size()), argv.data()); launch && !launch->help)
    (void)dgx::sbatch_script(launch.value());
  return 0;
}
