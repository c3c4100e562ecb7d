// Private helper: reading arrays a plugin hands over. Their stride is the struct_size of their elements (ABI rule),
// which lets a plugin built against a later minor version append fields without breaking this host.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dgx::detail {

template <typename T> const T& strided_element(const T* base, std::uint32_t index) {
  return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(base) + std::size_t{index} * base->struct_size);
}

}  // namespace dgx::detail
