// Which part of a training step an op belongs to: the one Pass of the model (dgx/llm/ops.hpp) and of the
// kernels' measurements (dgx/llm/kernels/op_timing.hpp), so a measured op and the model's op of the same pass
// compare as values, not by their names.
#pragma once

#include <cstdint>
#include <string_view>

namespace dgx::llm {

/// GEMMs split their backward into dgrad and wgrad (each with the forward's FLOPs); other ops have one backward.
enum class Pass : std::uint8_t { forward, dgrad, wgrad, backward };

[[nodiscard]] constexpr std::string_view to_string(Pass pass) {
  switch (pass) {
  case Pass::forward: return "forward";
  case Pass::dgrad: return "dgrad";
  case Pass::wgrad: return "wgrad";
  case Pass::backward: return "backward";
  }
  return "?";
}

}  // namespace dgx::llm
