#include "dgx/llm/cuda/cublaslt_library.hpp"

#include <cublasLt.h>
#include <dlfcn.h>

#include <type_traits>

#define DGX_STRINGIFY_(x) #x
#define DGX_STRINGIFY(x) DGX_STRINGIFY_(x)

namespace dgx::llm::cuda {

namespace detail {

void* open_first_library(const std::vector<std::string>& candidates, std::string& error) {
  error.clear();
  for (const std::string& candidate : candidates) {
    if (void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      error.clear();
      return handle;
    }
    const char* reason = ::dlerror();
    error += (error.empty() ? "" : "; ") + candidate + ": " + (reason != nullptr ? reason : "not found");
  }
  return nullptr;
}

}  // namespace detail

namespace {

struct Library {
  void* handle = nullptr;
  std::string error;
};

// The library of the cuBLAS major version the plugin was compiled against, by its soname (found as the plugin's
// own libraries are: its run path, LD_LIBRARY_PATH, ld.so.cache), else at the path the build found it.
const Library& library() {
  static const Library opened = [] {
    Library l;
    l.handle =
        detail::open_first_library({"libcublasLt.so." DGX_STRINGIFY(CUBLAS_VER_MAJOR), DGX_CUBLASLT_PATH}, l.error);
    if (l.handle == nullptr) {
      l.error = "cuBLASLt could not be loaded (" + l.error + ")";
    }
    return l;
  }();
  return opened;
}

template <typename Function> Function* real(const char* name) {
  const Library& l = library();
  return l.handle != nullptr ? reinterpret_cast<Function*>(::dlsym(l.handle, name)) : nullptr;
}

constexpr cublasStatus_t kNotLoaded = CUBLAS_STATUS_NOT_INITIALIZED;

/// Calls the library's function `name`, declared as `Declared` (resolved once per function, on its first call), or
/// returns kNotLoaded when the library could not be opened.
template <auto& Declared, typename... Args> cublasStatus_t call_real(const char* name, Args... args) {
  static auto* const f = real<std::remove_reference_t<decltype(Declared)>>(name);
  return f != nullptr ? f(args...) : kNotLoaded;
}

const char* load_error_text() { return library().error.c_str(); }

}  // namespace

std::string cublaslt_load_error() { return library().error; }

}  // namespace dgx::llm::cuda

// The cuBLASLt functions the kernels call, with the declarations of cublasLt.h: each resolves its namesake in the
// library once, on its first call.
using dgx::llm::cuda::call_real;
using dgx::llm::cuda::load_error_text;
using dgx::llm::cuda::real;

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* lightHandle) {
  return call_real<::cublasLtCreate>("cublasLtCreate", lightHandle);
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t lightHandle) {
  return call_real<::cublasLtDestroy>("cublasLtDestroy", lightHandle);
}

size_t CUBLASWINAPI cublasLtGetVersion(void) {
  static auto* const f = real<decltype(::cublasLtGetVersion)>("cublasLtGetVersion");
  return f != nullptr ? f() : 0;
}

const char* CUBLASWINAPI cublasLtGetStatusName(cublasStatus_t status) {
  static auto* const f = real<decltype(::cublasLtGetStatusName)>("cublasLtGetStatusName");
  return f != nullptr ? f(status) : "CUBLAS_STATUS_NOT_INITIALIZED";
}

const char* CUBLASWINAPI cublasLtGetStatusString(cublasStatus_t status) {
  static auto* const f = real<decltype(::cublasLtGetStatusString)>("cublasLtGetStatusString");
  return f != nullptr ? f(status) : load_error_text();
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                           const void* alpha, const void* A, cublasLtMatrixLayout_t Adesc,
                                           const void* B, cublasLtMatrixLayout_t Bdesc, const void* beta, const void* C,
                                           cublasLtMatrixLayout_t Cdesc, void* D, cublasLtMatrixLayout_t Ddesc,
                                           const cublasLtMatmulAlgo_t* algo, void* workspace,
                                           size_t workspaceSizeInBytes, cudaStream_t stream) {
  return call_real<::cublasLtMatmul>("cublasLtMatmul", lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C,
                                     Cdesc, D, Ddesc, algo, workspace, workspaceSizeInBytes, stream);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* matLayout, cudaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld) {
  return call_real<::cublasLtMatrixLayoutCreate>("cublasLtMatrixLayoutCreate", matLayout, type, rows, cols, ld);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout) {
  return call_real<::cublasLtMatrixLayoutDestroy>("cublasLtMatrixLayoutDestroy", matLayout);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                             cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                             size_t sizeInBytes) {
  return call_real<::cublasLtMatrixLayoutSetAttribute>("cublasLtMatrixLayoutSetAttribute", matLayout, attr, buf,
                                                       sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* matmulDesc, cublasComputeType_t computeType,
                                                     cudaDataType_t scaleType) {
  return call_real<::cublasLtMatmulDescCreate>("cublasLtMatmulDescCreate", matmulDesc, computeType, scaleType);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc) {
  return call_real<::cublasLtMatmulDescDestroy>("cublasLtMatmulDescDestroy", matmulDesc);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                           cublasLtMatmulDescAttributes_t attr, const void* buf,
                                                           size_t sizeInBytes) {
  return call_real<::cublasLtMatmulDescSetAttribute>("cublasLtMatmulDescSetAttribute", matmulDesc, attr, buf,
                                                     sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  return call_real<::cublasLtMatmulPreferenceCreate>("cublasLtMatmulPreferenceCreate", pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  return call_real<::cublasLtMatmulPreferenceDestroy>("cublasLtMatmulPreferenceDestroy", pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void* buf, size_t sizeInBytes) {
  return call_real<::cublasLtMatmulPreferenceSetAttribute>("cublasLtMatmulPreferenceSetAttribute", pref, attr, buf,
                                                           sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int* returnAlgoCount) {
  return call_real<::cublasLtMatmulAlgoGetHeuristic>("cublasLtMatmulAlgoGetHeuristic", lightHandle, operationDesc,
                                                     Adesc, Bdesc, Cdesc, Ddesc, preference, requestedAlgoCount,
                                                     heuristicResultsArray, returnAlgoCount);
}

}  // extern "C"
