#include "dgx/catalog/model_config.hpp"

#include "dgx/catalog/enum_names.hpp"

namespace dgx::catalog {

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
  return parse_by_name(text, kAll);
}

std::string_view to_string(AttentionKind kind) { return kind == AttentionKind::mla ? "mla" : "gqa"; }

std::optional<AttentionKind> parse_attention_kind(std::string_view text) {
  constexpr AttentionKind kAll[] = {AttentionKind::gqa, AttentionKind::mla};
  return parse_by_name(text, kAll);
}

}  // namespace dgx::catalog
