// Built when there is no CUDA toolkit (or no cuDNN): the measured path is unavailable, and says why.
#include <dgx/sdk/error.hpp>

#include "serve_probe.hpp"

namespace dgx::plugins::llm_inference {

std::string serve_probe_unavailable() {
  return "this llm-inference plugin was built without CUDA and cuDNN, so it cannot measure";
}

std::unique_ptr<ServeProbe> make_serve_probe(const llm::kernels::ServeLayerSpec&) {
  throw dgx::sdk::NoDevice(serve_probe_unavailable());
}

std::unique_ptr<DecodeRunner> make_decode_runner(const llm::kernels::DecodeModelSpec&) {
  throw dgx::sdk::NoDevice(serve_probe_unavailable());
}

}  // namespace dgx::plugins::llm_inference
