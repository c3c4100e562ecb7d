# The CUDA part (included from CMakeLists.txt when DGX_HAVE_CUDA): dgx_llm_kernels_blas always, dgx_llm_kernels
# when cuDNN is found too.
# The part that needs only the CUDA runtime and cuBLASLt: what the gemm plugin links, so that it loads on a machine
# without cuDNN.
add_library(dgx_llm_kernels_blas STATIC
  src/cuda/blas.cpp
  src/cuda/check.cpp
  src/cuda/cublaslt_library.cpp
  src/cuda/device.cpp
  src/cuda/elementwise.cu
  src/cuda/fp8_cast.cu
  src/cuda/resources.cpp)
# cuBLASLt is opened on first use, not linked (include/dgx/llm/cuda/cublaslt_library.hpp): loading it costs about
# 0.4 s, which every dgxhost start paid for the plugins it loads. Its path here is the loader's second choice.
target_link_libraries(dgx_llm_kernels_blas PUBLIC dgx_llm_kernels_host CUDA::cudart PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(dgx_llm_kernels_blas PRIVATE DGX_CUBLASLT_PATH="$<TARGET_FILE:CUDA::cublasLt>")
dgx_llm_static_library(dgx_llm_kernels_blas)

# Error translation and the device check for plugins built on the SDK (needs no cuDNN).
add_library(dgx_llm_kernels_bridge INTERFACE)
target_include_directories(dgx_llm_kernels_bridge INTERFACE "${CMAKE_CURRENT_LIST_DIR}/bridge/include")
target_link_libraries(dgx_llm_kernels_bridge INTERFACE dgx_llm_kernels_blas dgx::sdk)

if(NOT DGX_CUDNN_FOUND)  # cmake/DgxCuda.cmake said why
  return()
endif()

# The rest of the layer: cuDNN attention, the memory-bound kernels and the layer runner; and the serving path (paged
# KV cache, decode attention, GEMV, the serving layer and the whole-model decode loop).
add_library(dgx_llm_kernels STATIC
  src/cuda/activation.cu
  src/cuda/attention.cpp
  src/cuda/context.cpp
  src/cuda/cudnn_check.cpp
  src/cuda/cudnn_graph.cpp
  src/cuda/decode_attention.cu
  src/cuda/decode_model.cpp
  src/cuda/gemv.cu
  src/cuda/kv_cache.cu
  src/cuda/layer.cpp
  src/cuda/layer_passes.cpp
  src/cuda/linear.cpp
  src/cuda/lora.cpp
  src/cuda/loss.cu
  src/cuda/norm.cu
  src/cuda/rope.cu
  src/cuda/serve_buffers.cpp
  src/cuda/serve_elementwise.cu
  src/cuda/serve_layer.cpp
  src/cuda/serve_linear.cpp
  src/cuda/stage_ops.cpp)
target_link_libraries(dgx_llm_kernels PUBLIC dgx_llm_kernels_blas dgx::cudnn)
dgx_llm_static_library(dgx_llm_kernels)
