// Private to the Hugging Face reader: the architectures it understands (config.json's `architectures`), one reader
// each, and what they share. A reader fills the model from the config's fields and says, in notes, what it
// understood but does not model (attention sinks, partial rotary embeddings, ...) and which of two readings it took
// (the context of a YaRN-extended model). hf_config.cpp adds the name, the sequence lengths and the checkpoint format.
#pragma once

#include "dgx/catalog/model_config.hpp"

#include "json_fields.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dgx::catalog::hf {

/// What a reader makes of a config.json.
struct HfModel {
  ModelConfig model;
  std::vector<std::string> notes;
  /// The context the model was pretrained at, where the config states it (rope_scaling's
  /// original_max_position_embeddings, gpt-oss's initial_context_length); 0: not stated.
  int native_context = 0;
};

/// Reads `root` (the whole config.json) into `out`; throws HfError naming the field.
using ArchitectureReader = void (*)(const JsonFields& root, HfModel& out);

struct Architecture {
  std::string_view name;  ///< as config.json's `architectures` names it
  ArchitectureReader read;
};

/// Every architecture the reader understands, in the order the documentation lists them.
[[nodiscard]] std::span<const Architecture> architectures();

// The readers (one file per family).
void read_llama(const JsonFields& root, HfModel& out);       // LlamaForCausalLM, MixtralForCausalLM
void read_qwen3(const JsonFields& root, HfModel& out);       // Qwen3ForCausalLM, Qwen3MoeForCausalLM
void read_minimax_m2(const JsonFields& root, HfModel& out);  // MiniMaxM2ForCausalLM
void read_deepseek(const JsonFields& root, HfModel& out);    // DeepSeek-V3/V3.2, Kimi K2 (K2.5's text_config), GLM-5
void read_kimi_k25(const JsonFields& root, HfModel& out);    // KimiK25ForConditionalGeneration: the above + vision
void read_llama4(const JsonFields& root, HfModel& out);      // Llama4ForConditionalGeneration
void read_gpt_oss(const JsonFields& root, HfModel& out);     // GptOssForCausalLM
void read_qwen3_5(const JsonFields& root, HfModel& out);     // Qwen3_5(Moe)ForConditionalGeneration
void read_nemotron_h(const JsonFields& root, HfModel& out);  // NemotronHForCausalLM
void read_decilm(const JsonFields& root, HfModel& out);      // DeciLMForCausalLM (Llama-Nemotron NAS)

// What the readers share (decoder.cpp).

/// The language model's fields: `text_config` of a multimodal config, else the config itself.
[[nodiscard]] JsonFields text_config(const JsonFields& root);

/// Layers, hidden size, heads, vocab, tied embeddings (the text config's, else the root's), context
/// (max_position_embeddings) and what rope_scaling or rope_parameters say of it (native context, YaRN: a note),
/// partial rotary embeddings (a note).
void read_sizes(const JsonFields& text, const JsonFields& root, HfModel& out);

/// read_sizes, then key/value heads (absent: as many as heads; they must divide the heads) and head_dim (absent:
/// hidden / heads, which must divide).
void read_attention_basics(const JsonFields& text, const JsonFields& root, HfModel& out);

/// read_attention_basics and a gated SiLU MLP (gated_silu): what the grouped-query decoders begin with.
ModelConfig& read_gated_decoder(const JsonFields& text, const JsonFields& root, HfModel& out);

/// A number as a note prints it: "16", "0.25", "7".
[[nodiscard]] std::string plain_number(double value);

/// A gated MLP's activation: silu (SwiGLU); anything else is an error naming `key`.
[[nodiscard]] Activation gated_silu(const JsonFields& text, std::string_view key = "hidden_act");

/// The experts per token and experts per layer under the given field names; experts ≥ top-k.
void read_experts(const JsonFields& text, std::string_view experts_key, std::string_view top_k_key, ModelConfig& m);

/// Shared experts of `shared_ffn` in units of the routed experts' ffn (the catalog's shared_experts counts experts
/// of ffn): exact when one divides the other, else the nearest count with a note.
[[nodiscard]] int shared_expert_count(std::int64_t shared_ffn, std::int64_t expert_ffn,
                                      std::vector<std::string>& notes);

// Layers that differ (layer_groups.cpp).

/// The kind of each layer, in order (count = 1 each), made into the model: one kind sets the default layer;
/// kinds that differ only in a sliding window become sliding_window + its share of layers; dense MLPs in leading
/// layers of an MoE model become dense_layers (+ dense_ffn); anything else becomes layer_groups, identical layers
/// grouped (their order is not modelled).
void settle_layers(const std::vector<LayerGroup>& per_layer, ModelConfig& m);

// Outside the decoder (vision.cpp).

/// The parameters of a multimodal checkpoint's vision tower and projector, estimated from its vision_config (how,
/// in a note): a ViT of `depth` blocks plus its patch embedding, position table and patch merger.
[[nodiscard]] double vision_parameters(const JsonFields& vision, std::int64_t text_hidden,
                                       std::vector<std::string>& notes);

}  // namespace dgx::catalog::hf
