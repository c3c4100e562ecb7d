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

std::string_view to_string(Mixer mixer) {
  switch (mixer) {
  case Mixer::attention: return "attention";
  case Mixer::linear_attention: return "linear-attention";
  case Mixer::mamba2: return "mamba2";
  case Mixer::none: return "none";
  }
  return "?";
}

std::optional<Mixer> parse_mixer(std::string_view text) {
  constexpr Mixer kAll[] = {Mixer::attention, Mixer::linear_attention, Mixer::mamba2, Mixer::none};
  return parse_by_name(text, kAll);
}

std::string_view to_string(Mlp mlp) {
  switch (mlp) {
  case Mlp::dense: return "dense";
  case Mlp::moe: return "moe";
  case Mlp::none: return "none";
  }
  return "?";
}

std::optional<Mlp> parse_mlp(std::string_view text) {
  constexpr Mlp kAll[] = {Mlp::dense, Mlp::moe, Mlp::none};
  return parse_by_name(text, kAll);
}

std::string_view to_string(WeightFormat format) {
  switch (format) {
  case WeightFormat::bf16: return "bf16";
  case WeightFormat::fp8: return "fp8";
  case WeightFormat::fp8_block: return "fp8-block";
  case WeightFormat::mxfp4: return "mxfp4";
  case WeightFormat::nvfp4: return "nvfp4";
  case WeightFormat::int4: return "int4";
  }
  return "?";
}

std::optional<WeightFormat> parse_weight_format(std::string_view text) {
  constexpr WeightFormat kAll[] = {WeightFormat::bf16,  WeightFormat::fp8,   WeightFormat::fp8_block,
                                   WeightFormat::mxfp4, WeightFormat::nvfp4, WeightFormat::int4};
  return parse_by_name(text, kAll);
}

std::string_view to_string(QuantizedPart part) {
  switch (part) {
  case QuantizedPart::all: return "all";
  case QuantizedPart::mlp: return "mlp";
  case QuantizedPart::experts: return "experts";
  }
  return "?";
}

std::optional<QuantizedPart> parse_quantized_part(std::string_view text) {
  constexpr QuantizedPart kAll[] = {QuantizedPart::all, QuantizedPart::mlp, QuantizedPart::experts};
  return parse_by_name(text, kAll);
}

std::vector<LayerGroup> ModelConfig::layer_mix() const {
  if (grouped()) {
    return layer_groups;
  }
  return {LayerGroup{.count = layers,
                     .mixer = mixer,
                     .window = sliding_window_layers >= 1 ? sliding_window : 0,
                     .chunk = attention_chunk,
                     .kv_groups = 0,
                     .mlp = mlp_free ? Mlp::none
                            : moe()  ? Mlp::moe
                                     : Mlp::dense,
                     .ffn = 0}};
}

ModelConfig ModelConfig::layer_view(const LayerGroup& group) const {
  ModelConfig view = *this;
  view.layers = group.count;
  if (!grouped()) {
    return view;  // one kind of layer: the model's own (its leading dense layers and MTP module included)
  }
  view.layer_groups.clear();
  view.mixer = group.mixer;
  view.sliding_window = group.window;
  view.sliding_window_layers = group.window > 0 ? 1.0 : 0.0;
  view.attention_chunk = group.chunk;
  if (group.kv_groups > 0) {
    view.kv_groups = group.kv_groups;
  }
  view.mlp_free = group.mlp == Mlp::none;
  if (group.mlp != Mlp::moe) {
    view.ffn = group.mlp == Mlp::dense ? (group.ffn > 0 ? group.ffn : dense_mlp_ffn()) : 0;
    view.experts = 1;
    view.top_k = 1;
    view.shared_experts = 0;
  }
  view.dense_layers = 0;
  view.dense_ffn = 0;
  view.mtp_layers = 0;
  return view;
}

}  // namespace dgx::catalog
