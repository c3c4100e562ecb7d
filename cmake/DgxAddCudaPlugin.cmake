# dgx_add_cuda_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...] [NEEDS_CUDNN])
#
# A plugin of this project that exists only with CUDA (cuda-probe, gemm, llm-layer). Skipped, with a status line,
# when the build has no CUDA toolkit (DGX_HAVE_CUDA) or, with NEEDS_CUDNN, no cuDNN (DGX_CUDNN_FOUND), so callers
# test `if(TARGET <name>)` before using the target. Otherwise dgx_add_plugin() and what each of them needs:
#   - the shared CUDA runtime (libcudart.so), never the static one CMake links by default, and never libcuda: the
#     plugin then loads on a machine without a driver and says so at run time;
#   - the project's warnings;
#   - the static libraries' symbols (libs/) kept out of the plugin's dynamic symbol table, which holds
#     dgx_plugin_entry alone.
# Not part of the installed SDK: it relies on this project's variables and libraries (sdk/cmake holds the public
# dgx_add_plugin()).
function(dgx_add_cuda_plugin name)
  cmake_parse_arguments(ARG "NEEDS_CUDNN" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT DGX_HAVE_CUDA)
    message(STATUS "${name} plugin: not built (no CUDA toolkit)")
    return()
  endif()
  if(ARG_NEEDS_CUDNN AND NOT DGX_CUDNN_FOUND)
    message(STATUS "${name} plugin: not built (no cuDNN next to the CUDA toolkit)")
    return()
  endif()
  dgx_add_plugin(${name} SOURCES ${ARG_SOURCES} LIBRARIES ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
  dgx_target_warnings(${name})
endfunction()
