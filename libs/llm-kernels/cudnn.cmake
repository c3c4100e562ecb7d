# Finds cuDNN next to the CUDA toolkit (CUDAToolkit's folders are the hints) and defines the global imported
# target dgx::cudnn. Sets DGX_CUDNN_FOUND. Included by every folder whose targets link dgx_llm_kernels, so the
# answer does not depend on the order CMake visits the plugin folders in.
if(NOT DGX_HAVE_CUDA)
  set(DGX_CUDNN_FOUND OFF)
  return()
endif()
find_path(DGX_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(DGX_CUDNN_LIBRARY cudnn HINTS "${CUDAToolkit_LIBRARY_DIR}" PATH_SUFFIXES lib64 lib)
if(DGX_CUDNN_INCLUDE_DIR AND DGX_CUDNN_LIBRARY)
  set(DGX_CUDNN_FOUND ON)
  if(NOT TARGET dgx::cudnn)
    add_library(dgx::cudnn UNKNOWN IMPORTED GLOBAL)
    set_target_properties(dgx::cudnn PROPERTIES IMPORTED_LOCATION "${DGX_CUDNN_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${DGX_CUDNN_INCLUDE_DIR}")
  endif()
else()
  set(DGX_CUDNN_FOUND OFF)
endif()
