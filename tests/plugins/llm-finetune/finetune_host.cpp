#include "finetune_host.hpp"

#include <stdexcept>

#include "config_error.hpp"
#include "dgx/llm/embedded_configs.hpp"
#include "finetune_workload.hpp"
#include "params.hpp"

namespace dgx::plugins::llm_finetune::testing {

FinetuneHost::FinetuneHost() : WorkloadHost(finetune_params()) {}

void FinetuneHost::use_preset(const std::string& name) {
  const auto text = llm::embedded_config("workloads/" + name + ".toml");
  if (!text) throw std::runtime_error("no embedded preset " + name);
  use_preset_text(*text);
}

std::string FinetuneHost::run(const char* mode) {
  dgx::sdk::Host host(api());
  return dgx::testing::config_error_of([&] {
    FinetuneWorkload workload(host);
    workload.project(std::string(mode) == "explore" ? dgx::sdk::Mode::explore : dgx::sdk::Mode::project);
  });
}

double FinetuneHost::metric(std::size_t index, const std::string& name) const {
  return rows.at(index).metrics.at(name).first;
}

}  // namespace dgx::plugins::llm_finetune::testing
