// Built instead of nccl_backend.cpp when there is no CUDA toolkit: the host transport is all there is.
#include "backend.hpp"

namespace dgx::plugins::comm {

std::string nccl_unavailable_reason() { return "this comm plugin was built without CUDA and NCCL"; }

std::unique_ptr<Backend> make_nccl_backend(const sdk::Host&) {
  throw sdk::NoDevice("this comm plugin was built without CUDA and NCCL");
}

}  // namespace dgx::plugins::comm
