#include "catalog_names.hpp"

#include "dgx/catalog/system_catalog.hpp"

namespace dgx::logs {

std::optional<std::string> catalog_model(std::string_view printed) { return catalog::model_for_printed_name(printed); }

std::vector<std::string> catalog_models() { return catalog::model_names(); }

std::vector<std::string> catalog_systems() { return catalog::system_names(); }

std::optional<std::string> system_of_device(std::string_view device) {
  auto system = catalog::find_system_for_device(device);
  return system ? std::optional<std::string>(system->name) : std::nullopt;
}

bool system_answers_to(const std::string& system, std::string_view device) {
  return catalog::system_answers_to_device(system, device);
}

std::vector<std::string> models_of_architecture(const Architecture& printed) {
  return catalog::models_with_architecture(printed);
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace dgx::logs
