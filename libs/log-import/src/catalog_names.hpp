// Private to log-import/: the names a row's model and system take, those of the catalog (libs/catalog, which searches
// the folders the command was given), from the names the tools print.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dgx/catalog/model_catalog.hpp"

namespace dgx::logs {

/// The catalog's name of a model as a tool prints it (MLPerf's benchmark name, a Hugging Face repository); empty when
/// the catalog knows no model, alias or checkpoint by that name.
std::optional<std::string> catalog_model(std::string_view printed);

/// The catalog's model names.
std::vector<std::string> catalog_models();

/// The catalog's system names.
std::vector<std::string> catalog_systems();

/// The system whose device_names match a CUDA device name ("NVIDIA H100 80GB HBM3"), by the catalog's rule (whole
/// words, ignoring case, the longest pattern wins); empty when none or two match.
std::optional<std::string> system_of_device(std::string_view device);

/// Whether catalog system `system` answers to the CUDA device name `device` (catalog::system_answers_to_device).
bool system_answers_to(const std::string& system, std::string_view device);

/// What a log says of a model's architecture; 0: not said.
using Architecture = catalog::PrintedArchitecture;

/// The catalog models whose architecture agrees with every field `printed` states.
std::vector<std::string> models_of_architecture(const Architecture& printed);

/// "a, b, c" for messages.
std::string joined(const std::vector<std::string>& names);

}  // namespace dgx::logs
