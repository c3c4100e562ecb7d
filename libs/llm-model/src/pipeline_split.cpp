#include "dgx/llm/pipeline_split.hpp"

#include "dgx/catalog/enum_names.hpp"

namespace dgx::llm {

namespace {

bool stages_divide(const StageLayers& s, int vp) { return s.first % vp == 0 && s.middle % vp == 0 && s.last % vp == 0; }

std::optional<StageLayers> even(int layers, int pp, int vp) {
  if (layers % pp != 0 || (layers / pp) % vp != 0) {
    return std::nullopt;
  }
  const int per_stage = layers / pp;
  return StageLayers{.first = per_stage, .middle = per_stage, .last = per_stage, .split = PipelineSplit::even};
}

std::optional<StageLayers> uneven(int layers, int pp, int vp) {
  auto stages = split_layers(layers, pp);
  if (!stages || !stages_divide(*stages, vp)) {
    return std::nullopt;
  }
  return stages;
}

/// Any layers per chunk (Megatron's pipeline_model_parallel_layout): the uneven stage totals, every middle stage
/// with a layer in each of its chunks.
std::optional<StageLayers> custom(int layers, int pp, int vp) {
  auto stages = split_layers(layers, pp);
  if (!stages || (pp > 2 && stages->middle < vp)) {
    return std::nullopt;
  }
  stages->split = PipelineSplit::custom;
  return stages;
}

/// layers + 2 over pp·vp chunks; the embedding takes a layer's place on the first stage, the loss on the last.
std::optional<StageLayers> embedding_loss(int layers, int pp, int vp) {
  const int slots = layers + 2;
  if (slots % (pp * vp) != 0) {
    return std::nullopt;
  }
  const int per_stage = slots / pp;
  return StageLayers{
      .first = per_stage - 1, .middle = per_stage, .last = per_stage - 1, .split = PipelineSplit::embedding_loss};
}

}  // namespace

std::string_view to_string(PipelineSplit split) {
  switch (split) {
  case PipelineSplit::automatic: return "auto";
  case PipelineSplit::even: return "even";
  case PipelineSplit::uneven: return "uneven";
  case PipelineSplit::embedding_loss: return "embedding-loss";
  case PipelineSplit::custom: return "custom";
  }
  return "?";
}

std::optional<PipelineSplit> parse_pipeline_split(std::string_view text) {
  return catalog::parse_by_name(text, kAllPipelineSplits);
}

std::optional<StageLayers> split_layers(int layers, int pp) {
  if (pp < 1 || pp > layers) {
    return std::nullopt;
  }
  if (pp == 1) {
    return StageLayers{.first = layers, .middle = layers, .last = layers};
  }
  const int per_stage = (layers + pp - 1) / pp;
  const int shortfall = per_stage * pp - layers;
  // The first and last stages share the shortfall, the last (which also holds the LM head) the larger half;
  // each keeps at least one layer.
  const StageLayers split{.first = per_stage - shortfall / 2,
                          .middle = per_stage,
                          .last = per_stage - (shortfall + 1) / 2,
                          .split = shortfall == 0 ? PipelineSplit::even : PipelineSplit::uneven};
  if (split.first < 1 || split.last < 1) {
    return std::nullopt;
  }
  return split;
}

std::optional<StageLayers> split_pipeline(int layers, int pp, int vp, PipelineSplit rule) {
  if (pp < 1 || vp < 1 || layers < 1 || pp > layers) {
    return std::nullopt;
  }
  if (pp == 1) {
    return vp == 1 ? split_layers(layers, 1) : std::nullopt;
  }
  switch (rule) {
  case PipelineSplit::even: return even(layers, pp, vp);
  case PipelineSplit::uneven: return uneven(layers, pp, vp);
  case PipelineSplit::embedding_loss: return embedding_loss(layers, pp, vp);
  case PipelineSplit::custom: return custom(layers, pp, vp);
  case PipelineSplit::automatic: break;
  }
  if (auto found = even(layers, pp, vp)) {
    return found;
  }
  if (auto found = embedding_loss(layers, pp, vp)) {
    return found;
  }
  return uneven(layers, pp, vp);
}

}  // namespace dgx::llm
