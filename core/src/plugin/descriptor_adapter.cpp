#include "dgx/core/plugin/descriptor_adapter.hpp"

namespace dgx {

DescriptorAdapter descriptor_adapter(std::uint32_t major) {
  switch (major) {
  case 1: return &lift_descriptor_v1;
  default: return nullptr;
  }
}

}  // namespace dgx
