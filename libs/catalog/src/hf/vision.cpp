// The vision tower a multimodal checkpoint ships beside its language model, estimated from its vision_config: the
// catalog counts it in the checkpoint's total, never in the text model's work. Two vocabularies are read: Qwen3-VL's
// (Qwen3.5: depth, hidden_size, intermediate_size, patch_size, temporal_patch_size, num_position_embeddings,
// spatial_merge_size, out_hidden_size) and MoonViT's (Kimi K2.5: vt_num_hidden_layers, vt_hidden_size,
// vt_intermediate_size, patch_size, merge_kernel_size, init_pos_emb_height/width, text_hidden_size).
#include "architectures.hpp"

#include <dgx/sdk/text.hpp>

namespace dgx::catalog::hf {

namespace {

/// A ViT as both towers build it: pre-norm blocks (two LayerNorms with bias), fused QKV and output projections with
/// biases, a two-matrix GELU MLP with biases; a patch embedding (a convolution over channels × frames × patch²) with
/// bias, a learned position table, and a patch merger: LayerNorm, then merge·width -> merge·width -> text hidden.
struct VisionTower {
  double depth = 0;
  double width = 0;
  double mlp = 0;
  double patch_inputs = 0;  ///< channels × frames × patch²
  double positions = 0;     ///< rows of the learned position table
  double merge = 1;         ///< patches merged into one token
  double out = 0;           ///< the language model's hidden size
};

double parameters(const VisionTower& v) {
  const double d = v.width;
  const double block = 4 * d * d + 4 * d + 2 * d * v.mlp + v.mlp + d + 4 * d;
  const double embed = v.patch_inputs * d + d + v.positions * d;
  const double merged = v.merge * d;
  const double merger = 2 * d + merged * merged + merged + merged * v.out + v.out;
  return v.depth * block + embed + merger;
}

VisionTower qwen_vl(const JsonFields& v, std::int64_t text_hidden) {
  const double patch = v.positive("patch_size");
  const double merge = v.has("spatial_merge_size") ? v.positive("spatial_merge_size") : 1;
  return VisionTower{
      .depth = static_cast<double>(v.positive("depth")),
      .width = static_cast<double>(v.positive("hidden_size")),
      .mlp = static_cast<double>(v.positive("intermediate_size")),
      .patch_inputs = (v.has("in_channels") ? v.positive("in_channels") : 3) *
                      static_cast<double>(v.has("temporal_patch_size") ? v.positive("temporal_patch_size") : 1) *
                      patch * patch,
      .positions = static_cast<double>(v.count("num_position_embeddings")),
      .merge = merge * merge,
      .out = static_cast<double>(v.has("out_hidden_size") ? v.positive("out_hidden_size") : text_hidden)};
}

VisionTower moonvit(const JsonFields& v, std::int64_t text_hidden) {
  const double patch = v.positive("patch_size");
  double merge = 1;
  for (const std::int64_t k :
       v.has("merge_kernel_size") ? v.integers("merge_kernel_size") : std::vector<std::int64_t>{}) {
    merge *= static_cast<double>(k);
  }
  // A "fixed" position embedding (pos_emb_type divided_fixed) is computed, not learned: no table.
  const bool learned = v.optional_string("pos_emb_type").value_or("").find("fixed") == std::string::npos;
  return VisionTower{
      .depth = static_cast<double>(v.positive("vt_num_hidden_layers")),
      .width = static_cast<double>(v.positive("vt_hidden_size")),
      .mlp = static_cast<double>(v.positive("vt_intermediate_size")),
      .patch_inputs = 3 * patch * patch,
      .positions = learned ? static_cast<double>(v.count("init_pos_emb_height")) * v.count("init_pos_emb_width") : 0,
      .merge = merge,
      .out = static_cast<double>(v.has("text_hidden_size") ? v.positive("text_hidden_size") : text_hidden)};
}

}  // namespace

double vision_parameters(const JsonFields& v, std::int64_t text_hidden, std::vector<std::string>& notes) {
  if (!v.has("depth") && !v.has("vt_num_hidden_layers")) {
    v.fail("depth", "is missing, and so is vt_num_hidden_layers: the vision towers read are Qwen3-VL's and MoonViT's");
  }
  const VisionTower tower = v.has("depth") ? qwen_vl(v, text_hidden) : moonvit(v, text_hidden);
  const double count = parameters(tower);
  namespace text = dgx::sdk::text;
  const auto whole = [](double value) { return std::to_string(static_cast<long long>(value)); };
  notes.push_back("vision tower of " + text::si_count(count) + " parameters, estimated from vision_config: " +
                  whole(tower.depth) + " ViT blocks of width " + whole(tower.width) + " and MLP " + whole(tower.mlp) +
                  " (4d^2 + 2d*mlp + biases + two LayerNorms each), the patch embedding, " +
                  (tower.positions > 0 ? "a position table of " + whole(tower.positions) + " rows"
                                       : std::string("no position table (fixed)")) +
                  " and a patch merger of " + whole(tower.merge) +
                  " patches to the text hidden size; in the total, not in the text model's work");
  return count;
}

}  // namespace dgx::catalog::hf
