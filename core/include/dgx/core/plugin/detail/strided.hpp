// Private helper: reading arrays a plugin hands over. Their stride is the struct_size of their elements (ABI rule),
// which lets a plugin built against a later minor version append fields without breaking this host.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dgx::detail {

template <typename T> const T& strided_element(const T* base, std::uint32_t index) {
  return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(base) + std::size_t{index} * base->struct_size);
}

/// Whether an array of `count` elements at `base` can be read: empty, or non-NULL with a stride of at least the
/// struct the host reads (and not absurdly more), a multiple of its alignment as every C sizeof is (another stride
/// would make the host read misaligned fields), and a count no honest plugin reaches.
template <typename T> bool readable_array(const T* base, std::uint32_t count) {
  constexpr std::uint32_t kMaxCount = 1u << 20, kMaxStride = 64u * 1024u;
  if (count == 0) {
    return true;
  }
  return base != nullptr && count <= kMaxCount && base->struct_size >= sizeof(T) && base->struct_size <= kMaxStride &&
         base->struct_size % alignof(T) == 0;
}

}  // namespace dgx::detail
