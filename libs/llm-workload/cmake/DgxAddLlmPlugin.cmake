# dgx_add_llm_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...] [MODULE_SOURCES <file>...]
#                    [MODULE_LIBRARIES <lib>...])
#
# An LLM plugin of this project, built on the LLM workload skeleton (dgx_llm_workload): llm-pretrain, llm-finetune,
# llm-inference, and the next one. Two targets:
#   - dgx_<name, - as _> (dgx_llm_pretrain): a static library of SOURCES (everything but the entry point), its include
#     directory src/, linked to dgx_llm_workload and LIBRARIES; the unit tests drive the workload through it with a
#     fake host;
#   - <name> (libdgx-<name>.so, dgx_add_plugin): the library, MODULE_SOURCES and MODULE_LIBRARIES (the CUDA
#     dependencies: the layer probe, the serve probe) and a generated entry point exporting
#     dgx::plugins::<name, - as _>::make_plugin_spec, which src/plugin.hpp declares.
# Both position-independent with hidden symbols and the project's warnings; the module links the shared CUDA runtime
# (when there is a CUDA layer) and keeps the static libraries' symbols out of its dynamic symbol table, which holds
# dgx_plugin_entry alone. Project-internal, like dgx_add_cuda_plugin(): not installed with the SDK.

function(dgx_add_llm_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;MODULE_SOURCES;MODULE_LIBRARIES" ${ARGN})
  string(REPLACE "-" "_" DGX_LLM_PLUGIN_NAMESPACE "${name}")
  set(_library "dgx_${DGX_LLM_PLUGIN_NAMESPACE}")
  add_library(${_library} STATIC ${ARG_SOURCES})
  target_include_directories(${_library} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/src")
  target_link_libraries(${_library} PUBLIC dgx::sdk dgx_llm_workload ${ARG_LIBRARIES})
  # Linked into a plugin: position-independent, and nothing exported but the entry symbol.
  set_target_properties(${_library} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  dgx_target_warnings(${_library})

  set(DGX_LLM_PLUGIN_LIBRARY "${_library}")
  set(_entry "${CMAKE_CURRENT_BINARY_DIR}/${name}_entry.cpp")
  configure_file("${CMAKE_CURRENT_FUNCTION_LIST_DIR}/llm_plugin_entry.cpp.in" "${_entry}" @ONLY)
  # dgx_llm_workload before the module's libraries: its measure mode calls the layer probe they define.
  dgx_add_plugin(${name} SOURCES "${_entry}" ${ARG_MODULE_SOURCES}
                 LIBRARIES ${_library} dgx_llm_workload ${ARG_MODULE_LIBRARIES})
  if(TARGET dgx_llm_kernels)
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
  # The static libraries are built with default visibility for their other users: keep their symbols out of this
  # plugin's dynamic symbol table too, so the plugin exports dgx_plugin_entry alone.
  target_link_options(${name} PRIVATE "LINKER:--exclude-libs,ALL")
  dgx_target_warnings(${name})
endfunction()
