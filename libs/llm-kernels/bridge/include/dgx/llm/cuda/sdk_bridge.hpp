// Between the kernels library and the plugin SDK: the library's errors become the SDK errors that carry the
// right status (and so the right dgxhost exit code), and the no-device check plugins run in can_measure.
// Header-only; plugins link the INTERFACE target dgx_llm_kernels_bridge.
#pragma once

#include <dgx/sdk.hpp>

#include "dgx/llm/cuda/device.hpp"
#include "dgx/llm/cuda/error.hpp"

#include <stdexcept>
#include <utility>

namespace dgx::llm::cuda {

/// Runs `body`, rethrowing kernels-library and validation errors as dgx::sdk errors.
template <typename Body> decltype(auto) with_sdk_errors(Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const Error& e) {
    switch (e.kind()) {
    case Error::Kind::no_device: throw sdk::NoDevice(e.what());
    case Error::Kind::unsupported: throw sdk::Unsupported(e.what());
    case Error::Kind::out_of_memory: throw sdk::Error(DGX_ERR_OUT_OF_MEMORY, e.what());
    case Error::Kind::runtime: break;
    }
    throw sdk::RuntimeError(e.what());
  } catch (const std::invalid_argument& e) {
    throw sdk::InvalidArgument(e.what());
  }
}

/// Throws sdk::NoDevice("no CUDA device found: <why>") unless a CUDA device is usable. The first CUDA call of a
/// plugin: never at load or init, so the plugin loads on a machine without a driver.
inline void require_cuda_device() {
  if (const auto reason = no_device_reason()) {
    throw sdk::NoDevice("no CUDA device found: " + *reason);
  }
}

}  // namespace dgx::llm::cuda
