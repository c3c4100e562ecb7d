// Layers that differ, as the catalog describes them: the simplest form that says what the config says, so that a
// model whose layers differ only in a sliding window or in leading dense MLPs reads as the catalog's plain models do.
#include "architectures.hpp"

#include <algorithm>

namespace dgx::catalog::hf {

namespace {

bool same_kind(const LayerGroup& a, const LayerGroup& b) {
  return a.mixer == b.mixer && a.window == b.window && a.chunk == b.chunk && a.kv_groups == b.kv_groups &&
         a.mlp == b.mlp && a.ffn == b.ffn;
}

/// Identical layers as one group each, in the order of their first layer.
std::vector<LayerGroup> grouped(const std::vector<LayerGroup>& per_layer) {
  std::vector<LayerGroup> groups;
  for (const LayerGroup& layer : per_layer) {
    const auto it =
        std::find_if(groups.begin(), groups.end(), [&](const LayerGroup& g) { return same_kind(g, layer); });
    if (it == groups.end()) {
      groups.push_back(layer);
    } else {
      it->count += layer.count;
    }
  }
  return groups;
}

/// The model's default layer set to `g`'s kind.
void set_default(const LayerGroup& g, ModelConfig& m) {
  m.mixer = g.mixer;
  m.sliding_window = g.window;
  m.sliding_window_layers = g.window > 0 ? 1.0 : 0.0;
  m.attention_chunk = g.chunk;
  if (g.kv_groups > 0) {
    m.kv_groups = g.kv_groups;
  }
  m.mlp_free = g.mlp == Mlp::none;
  if (g.mlp == Mlp::dense && m.moe()) {  // an MoE config whose every layer is dense
    m.experts = 1;
    m.top_k = 1;
    m.shared_experts = 0;
  }
  if (g.mlp == Mlp::dense && g.ffn > 0) {
    m.ffn = g.ffn;
  }
}

/// Two kinds that differ only in the window: every layer windowed or not (gpt-oss's alternating layers).
bool windows_only(const std::vector<LayerGroup>& g) {
  if (g.size() != 2 || (g[0].window > 0) == (g[1].window > 0)) {
    return false;
  }
  LayerGroup a = g[0];
  a.window = g[1].window;
  return same_kind(a, g[1]);
}

/// The leading layers dense, all the others MoE and otherwise alike (DeepSeek's first_k_dense_replace).
int leading_dense(const std::vector<LayerGroup>& per_layer, const std::vector<LayerGroup>& g) {
  if (g.size() != 2 || g[0].mlp != Mlp::dense || g[1].mlp != Mlp::moe) {
    return 0;
  }
  LayerGroup a = g[0];
  a.mlp = Mlp::moe;
  a.ffn = g[1].ffn;
  const int dense = g[0].count;
  const bool leading = std::all_of(per_layer.begin(), per_layer.begin() + dense,
                                   [](const LayerGroup& layer) { return layer.mlp == Mlp::dense; });
  return same_kind(a, g[1]) && leading ? dense : 0;
}

}  // namespace

void settle_layers(const std::vector<LayerGroup>& per_layer, ModelConfig& m) {
  std::vector<LayerGroup> layers = per_layer;
  for (LayerGroup& layer : layers) {  // what the model says already need not be said again
    if (layer.kv_groups == m.kv_groups) {
      layer.kv_groups = 0;
    }
    if (!m.moe() && layer.mlp == Mlp::dense && layer.ffn == m.ffn) {
      layer.ffn = 0;
    }
  }
  const std::vector<LayerGroup> groups = grouped(layers);
  if (groups.size() == 1) {
    set_default(groups[0], m);
    return;
  }
  if (windows_only(groups)) {
    const LayerGroup& windowed = groups[0].window > 0 ? groups[0] : groups[1];
    set_default(groups[0].window > 0 ? groups[1] : groups[0], m);
    m.sliding_window = windowed.window;
    m.sliding_window_layers = static_cast<double>(windowed.count) / m.layers;
    return;
  }
  if (const int dense = leading_dense(layers, groups); dense > 0) {
    set_default(groups[1], m);
    m.dense_layers = dense;
    m.dense_ffn = groups[0].ffn > 0 && groups[0].ffn != m.ffn ? groups[0].ffn : 0;
    return;
  }
  m.layer_groups = groups;
}

}  // namespace dgx::catalog::hf
