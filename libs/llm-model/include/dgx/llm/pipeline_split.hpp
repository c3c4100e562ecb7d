// How the decoder layers are split over pipeline stages (and their virtual chunks), as Megatron-core does it.
//
// - even: every stage (and chunk) gets layers / (pp·vp) layers; Megatron's default.
// - uneven: the middle stages take ceil(layers / pp) each, the first and last stages share the shortfall
//   (Megatron's decoder_first_pipeline_num_layers / decoder_last_pipeline_num_layers, e.g. DeepSeek-V3's 61 layers
//   on PP 16 as 3 + 14 x 4 + 2); each stage's layers must divide into its vp chunks.
// - embedding-loss: the input embedding and the loss each count as one layer of the split
//   (Megatron's account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split): layers + 2 split
//   evenly over pp·vp chunks, the first chunk of the first stage and the last chunk of the last stage hold one
//   layer less. This is how Llama 3.1 405B's 126 layers run on PP 8 / 16 with VP 4 or 8 (NVIDIA's recipes).
// - custom: Megatron's pipeline_model_parallel_layout ("Et*4|(t*4|)*14tmL"), any number of layers per virtual chunk:
//   the stages split as uneven, each middle stage holding at least one layer per chunk. DeepSeek-V3's recipes run
//   61 layers on PP 4 x VP 4 or PP 8 x VP 4 this way.
// - auto (the default): even when it fits, else embedding-loss, else uneven; resolve_layout() then accepts custom
//   too, which the explorer does not sweep (its layouts are not the standard ones).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dgx::llm {

enum class PipelineSplit : std::uint8_t { automatic, even, uneven, embedding_loss, custom };

inline constexpr PipelineSplit kAllPipelineSplits[] = {PipelineSplit::automatic, PipelineSplit::even,
                                                       PipelineSplit::uneven, PipelineSplit::embedding_loss,
                                                       PipelineSplit::custom};

/// "auto", "even", "uneven", "embedding-loss", "custom".
[[nodiscard]] std::string_view to_string(PipelineSplit split);
[[nodiscard]] std::optional<PipelineSplit> parse_pipeline_split(std::string_view text);

/// Decoder layers per pipeline stage, and the rule that produced them (never `automatic`).
struct StageLayers {
  int first = 0;
  int middle = 0;  ///< layers of every stage that is neither first nor last
  int last = 0;
  PipelineSplit split = PipelineSplit::even;
};

/// The uneven rule alone: ceil(layers / pp) layers on every middle stage, the first and last stages share the
/// shortfall (the last the larger half: it also holds the LM head); nullopt when an edge stage would be left
/// without a layer. Megatron accepts any first / last layer count; this is the balanced choice.
[[nodiscard]] std::optional<StageLayers> split_layers(int layers, int pp);

/// The split of `layers` over `pp` stages of `vp` chunks under `rule`, or nullopt when the rule cannot split
/// them (automatic: when none of the three can). pp = 1 keeps every layer on the one stage.
[[nodiscard]] std::optional<StageLayers> split_pipeline(int layers, int pp, int vp, PipelineSplit rule);

}  // namespace dgx::llm
