# dgx_llm_kernels: the CUDA part (included from CMakeLists.txt when DGX_HAVE_CUDA).
include("${CMAKE_CURRENT_LIST_DIR}/cudnn.cmake")
if(NOT DGX_CUDNN_FOUND)
  message(WARNING "cuDNN not found next to the CUDA toolkit: the CUDA LLM kernels and their plugins are not built")
  return()
endif()

add_library(dgx_llm_kernels STATIC
  src/cuda/activation.cu
  src/cuda/attention.cpp
  src/cuda/blas.cpp
  src/cuda/check.cpp
  src/cuda/context.cpp
  src/cuda/cudnn_graph.cpp
  src/cuda/device.cpp
  src/cuda/elementwise.cu
  src/cuda/fp8_cast.cu
  src/cuda/layer.cpp
  src/cuda/layer_passes.cpp
  src/cuda/linear.cpp
  src/cuda/loss.cu
  src/cuda/norm.cu
  src/cuda/resources.cpp
  src/cuda/rope.cu
  src/cuda/stage_ops.cpp)
target_link_libraries(dgx_llm_kernels PUBLIC dgx_llm_kernels_host CUDA::cudart CUDA::cublasLt dgx::cudnn)
dgx_llm_static_library(dgx_llm_kernels)

# Error translation and the device check for plugins built on the SDK.
add_library(dgx_llm_kernels_bridge INTERFACE)
target_include_directories(dgx_llm_kernels_bridge INTERFACE "${CMAKE_CURRENT_LIST_DIR}/bridge/include")
target_link_libraries(dgx_llm_kernels_bridge INTERFACE dgx_llm_kernels dgx::sdk)
