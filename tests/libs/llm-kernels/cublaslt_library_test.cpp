// cuBLASLt opened on first use (libs/llm-kernels/src/cuda/cublaslt_library.cpp): not loaded before, the functions
// reach the real library without a GPU, and a library that cannot be opened is named with the loader's reason.
#include <doctest/doctest.h>

#include <cublasLt.h>

#include <fstream>
#include <sstream>
#include <string>

#include "dgx/llm/cuda/cublaslt_library.hpp"

namespace {

bool cublaslt_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find("libcublasLt") != std::string::npos;
}

}  // namespace

TEST_CASE("cuBLASLt is loaded by the first cuBLASLt call, not with the program, and forwards to the library") {
  CHECK_FALSE(cublaslt_mapped());
  CHECK(cublasLtGetVersion() / 10000 == CUBLAS_VER_MAJOR);  // major * 10000 + minor * 100 + patch
  CHECK(cublaslt_mapped());
  CHECK(dgx::llm::cuda::cublaslt_load_error().empty());
  CHECK(std::string(cublasLtGetStatusName(CUBLAS_STATUS_SUCCESS)) == "CUBLAS_STATUS_SUCCESS");
  CHECK_FALSE(std::string(cublasLtGetStatusString(CUBLAS_STATUS_INVALID_VALUE)).empty());
}

TEST_CASE("a library that cannot be opened is named with the loader's reason, and the next candidate is tried") {
  std::string error;
  CHECK(dgx::llm::cuda::detail::open_first_library({"libdgx-no-such-library.so.1", "/nonexistent/libcublasLt.so"},
                                                   error) == nullptr);
  // Each candidate, then the loader's reason (its words follow the locale): "NAME: REASON; PATH: REASON".
  const std::string first = "libdgx-no-such-library.so.1: ", second = "; /nonexistent/libcublasLt.so: ";
  REQUIRE(error.rfind(first, 0) == 0);
  const std::size_t separator = error.find(second);
  REQUIRE(separator != std::string::npos);
  CHECK(separator > first.size());                  // a reason for the first
  CHECK(error.size() > separator + second.size());  // and for the second
  CHECK(dgx::llm::cuda::detail::open_first_library({"libdgx-no-such-library.so.1", "libc.so.6"}, error) != nullptr);
  CHECK(error.empty());
}
