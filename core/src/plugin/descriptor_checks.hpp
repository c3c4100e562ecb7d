// Private to the ABI 1.x adapter (descriptor_adapter_v1.cpp, descriptor_declarations_v1.cpp): the checks every
// struct and array a plugin hands over passes before the host reads it, and how a plugin's text is quoted in a
// reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <dgx/plugin.h>

#include "dgx/core/plugin/plugin_loader.hpp"
#include "dgx/core/support/printable.hpp"

namespace dgx::detail {

// Counts and strides beyond these are garbage, not a plugin: reading them would walk off into memory.
inline constexpr std::uint32_t kMaxStructSize = 64 * 1024;

// "expected ... found ..." for a struct that is too short, absurdly long, or not a multiple of its alignment: the
// size is the stride of its array, and any C compiler's sizeof is such a multiple, so another one is garbage (and
// would make the host read misaligned fields, undefined behaviour). `least` is the size of ABI 1.0's struct: a
// struct that grew in a minor version is read up to its own struct_size.
template <typename T>
std::optional<std::string> check_size(const std::string& what, std::uint32_t found, std::size_t least = sizeof(T)) {
  if (found >= least && found <= kMaxStructSize && found % alignof(T) == 0) {
    return std::nullopt;
  }
  return what + " is " + std::to_string(found) + " bytes (struct_size), ABI " + abi_version_string(DGX_ABI_V1_0) +
         " requires " + std::to_string(least) + " to " + std::to_string(kMaxStructSize) + ", a multiple of " +
         std::to_string(alignof(T));
}

// An array the descriptor points to: NULL only when empty, and of a plausible length.
inline std::optional<std::string> check_array(const std::string& what, const void* array, std::uint32_t count,
                                              std::uint32_t max) {
  if (count > max) {
    return what + " count is " + std::to_string(count) + " (expected at most " + std::to_string(max) + ")";
  }
  if (count > 0 && array == nullptr) {
    return what + " array is NULL but its count is " + std::to_string(count) + " (expected an array)";
  }
  return std::nullopt;
}

inline std::string shown(const char* s) { return "'" + printable(s) + "'"; }

}  // namespace dgx::detail
