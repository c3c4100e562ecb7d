// Config layering: a TOML document and --set arguments (one per line after the first "\n--\n"), resolved
// against the runner's schema plus keys of every type. Errors are fine; crashes, hangs and leaks are not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "dgx/core/config/layered_config.hpp"
#include "dgx/core/config/runner_settings.hpp"
#include "dgx/core/config/toml_reader.hpp"
#include "fuzz_check.hpp"

namespace {

std::vector<dgx::ParamSpec> schema() {
  std::vector<dgx::ParamSpec> s = dgx::RunnerSettings::params();
  s.push_back({"w.count", dgx::ParamType::integer, dgx::json::Value(1), "", {}, "", false, "n"});
  s.push_back({"w.size", dgx::ParamType::integer, dgx::json::Value(8), "", {}, "B", false, "b"});
  s.push_back({"w.name", dgx::ParamType::string, dgx::json::Value("x"), "", {"x", "y"}, "", false, {}});
  s.push_back({"w.ratio", dgx::ParamType::floating, dgx::json::Value(0.5), "", {}, "", false, {}});
  s.push_back({"w.flag", dgx::ParamType::boolean, dgx::json::Value(false), "", {}, "", false, {}});
  s.push_back({"w.list", dgx::ParamType::string_list, std::nullopt, "", {}, "", false, {}});
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<dgx::ParamSpec> kSchema = schema();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = input.find("\n--\n");
  const std::string_view toml = input.substr(0, split);
  dgx::ConfigLayer sets{"--set", {}};
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + 4);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      auto entry = dgx::parse_set_argument(rest.substr(0, end));
      dgx::fuzz::check_rejection(entry);
      if (entry) {
        sets.entries.push_back(std::move(entry.value()));
      }
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }
  auto file = dgx::parse_toml_config(toml, "config file", "fuzz.toml");
  dgx::fuzz::check_rejection(file);
  std::vector<const dgx::ConfigLayer*> layers;
  if (file) {
    layers.push_back(&file->layer);
  }
  layers.push_back(&sets);
  const dgx::ConfigResolution resolution = dgx::resolve_config(kSchema, layers);
  if (resolution.errors.empty()) {
    (void)dgx::RunnerSettings::from(resolution.config);
    (void)dgx::json::write(resolution.config.to_json());
  }
  return 0;
}
