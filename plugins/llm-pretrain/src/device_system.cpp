#include "device_system.hpp"

namespace dgx::pretrain {

std::optional<std::string> system_for_device(std::string_view device_name) {
  // Most specific first: "GB200" contains "B200", "GH200" contains "H200".
  struct Entry {
    std::string_view marker;
    std::string_view system;
  };
  static constexpr Entry table[] = {
      {"GB300", "gb300-nvl72"}, {"GB200", "gb200-nvl72"}, {"B200", "b200"},         {"GH200", ""},
      {"H200", "h200-sxm"},     {"H100", "h100-sxm"},     {"A100", "a100-sxm-80gb"}};
  for (const Entry& e : table) {
    if (device_name.find(e.marker) == std::string_view::npos) continue;
    if (e.system.empty()) return std::nullopt;
    return std::string(e.system);
  }
  return std::nullopt;
}

}  // namespace dgx::pretrain
