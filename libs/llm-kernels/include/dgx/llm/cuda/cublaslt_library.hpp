// cuBLASLt, loaded when first called. Linking libcublasLt made every process that loads a CUDA plugin map and
// relocate its 540 MB at start (about 0.4 s: most of `dgxhost --list`), also where no GEMM ever runs. The plugins
// link instead the cuBLASLt functions they call (cublaslt_library.cpp), which open the library on first use and
// forward to it; where it cannot be opened, each returns CUBLAS_STATUS_NOT_INITIALIZED and
// cublasLtGetStatusString() says which library could not be opened and why.
#pragma once

#include <string>
#include <vector>

namespace dgx::llm::cuda {

/// Empty once cuBLASLt is open (opening it if it is not yet); else why it could not be opened.
[[nodiscard]] std::string cublaslt_load_error();

namespace detail {

/// dlopen's first success among `candidates` (a name the loader searches for, or a path), or nullptr with `error`
/// naming each candidate and the loader's reason.
[[nodiscard]] void* open_first_library(const std::vector<std::string>& candidates, std::string& error);

}  // namespace detail

}  // namespace dgx::llm::cuda
