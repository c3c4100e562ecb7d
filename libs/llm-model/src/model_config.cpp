#include "dgx/llm/model_config.hpp"

#include "enum_names.hpp"

namespace dgx::llm {

std::string_view to_string(Activation activation) {
  switch (activation) {
  case Activation::swiglu: return "swiglu";
  case Activation::gelu: return "gelu";
  case Activation::squared_relu: return "squared-relu";
  }
  return "?";
}

std::optional<Activation> parse_activation(std::string_view text) {
  constexpr Activation kAll[] = {Activation::swiglu, Activation::gelu, Activation::squared_relu};
  return detail::parse_by_name(text, kAll);
}

}  // namespace dgx::llm
