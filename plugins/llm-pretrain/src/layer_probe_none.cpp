// Built when there is no CUDA toolkit (or no cuDNN): measure mode is unavailable, and says why.
#include <dgx/sdk/error.hpp>

#include "layer_probe.hpp"

namespace dgx::plugins::llm_pretrain {

std::string layer_probe_unavailable() {
  return "this llm-pretrain plugin was built without CUDA and cuDNN, so it cannot measure a layer";
}

std::unique_ptr<LayerProbe> make_layer_probe(const llm::kernels::LayerSpec&) {
  throw dgx::sdk::NoDevice(layer_probe_unavailable());
}

}  // namespace dgx::plugins::llm_pretrain
