// Built when there is no CUDA toolkit (or no cuDNN): measure mode is unavailable, and says why.
#include <dgx/sdk/error.hpp>

#include "dgx/llm/kernels/layer_probe.hpp"

namespace dgx::llm::kernels {

std::string layer_probe_unavailable() {
  return "this plugin was built without CUDA and cuDNN, so it cannot measure a layer";
}

std::unique_ptr<LayerProbe> make_layer_probe(const LayerSpec&) { throw dgx::sdk::NoDevice(layer_probe_unavailable()); }

}  // namespace dgx::llm::kernels
