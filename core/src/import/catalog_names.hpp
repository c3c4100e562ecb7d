// Private to import/: the names a row's model and system take, those of the catalog (configs/models/*.toml,
// configs/systems/*.toml), from the names the tools print.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::detail {

/// The catalog's name of a model as a tool prints it ("llama31_405b", "llama3 8B", "meta-llama/Meta-Llama-3.1-70B"),
/// through one small table; empty when the table does not know it.
std::optional<std::string> catalog_model(std::string_view printed);

/// The catalog's model names, from the configs folder (empty when none is found).
std::vector<std::string> catalog_models();

/// The catalog's system names, from the configs folder (empty when none is found).
std::vector<std::string> catalog_systems();

/// The system whose device_names match a CUDA device name ("NVIDIA H100 80GB HBM3"), by the catalog's rule
/// (whole words, ignoring case, the longest pattern wins); empty when none or two match.
std::optional<std::string> system_of_device(std::string_view device);

/// Whether catalog system `system` answers to the CUDA device name `device` by its own device_names or, for a
/// variant without names of its own, its parent's: a log that names an H100 may be said, by --set, to have run on
/// an H100 variant (h100-sxm-96gb-hbm2e-500w), not on a B200.
bool system_answers_to(const std::string& system, std::string_view device);

/// What a log says of a model's architecture; 0: not said.
struct Architecture {
  long layers = 0;
  long hidden = 0;
  long ffn = 0;
  long heads = 0;
  long kv_groups = 0;
  long experts = 0;
};

/// The catalog models (configs/models/*.toml) whose architecture agrees with every field `printed` states.
std::vector<std::string> models_of_architecture(const Architecture& printed);

/// "a, b, c" for messages.
std::string joined(const std::vector<std::string>& names);

}  // namespace dgx::detail
