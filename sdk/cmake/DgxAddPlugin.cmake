# dgx_add_plugin(<name> SOURCES <file>... [LIBRARIES <lib>...] [OUTPUT_DIRECTORY <dir>]
#                [INSTALL_DESTINATION <dir>] [NO_INSTALL])
#
# Builds a dgx workload plugin: a MODULE library named libdgx-<name>.so, linked against the SDK (dgx::sdk),
# exporting only the entry symbol. dgxhost discovers files named libdgx-*.so in its plugin directories.
#
# The build fails when the library does not define dgx_plugin_entry (DGX_PLUGIN(...) in C++, or the function in C)
# or does not export it (DGX_EXPORT): a plugin dgxhost would reject is an error here, not in front of a user.
function(dgx_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "dgx_add_plugin(${name}): no SOURCES given")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE dgx::sdk ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "dgx-${name}"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # A symbol missing at link time is an error here, not a load failure in front of a user; so is the entry symbol.
  # Under -fsanitize the runtime lives in the executable that loads the plugin (clang links it there only), so a
  # sanitized plugin has undefined __asan_*/__ubsan_* symbols by design: --no-undefined is left out then.
  target_link_options(${name} PRIVATE "LINKER:--require-defined=dgx_plugin_entry")
  if(NOT "${CMAKE_C_FLAGS} ${CMAKE_CXX_FLAGS}" MATCHES "-fsanitize=")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
  # Defined is not enough: hidden visibility would keep it from dlsym. Checked where binutils' nm is available.
  if(CMAKE_NM)
    add_custom_command(TARGET ${name} POST_BUILD
      COMMAND "${CMAKE_COMMAND}" -DNM=${CMAKE_NM} -DFILE=$<TARGET_FILE:${name}>
              -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/DgxCheckPluginEntry.cmake"
      VERBATIM)
  endif()

  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  elseif(DEFINED DGX_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DGX_PLUGIN_OUTPUT_DIR}")
  endif()

  if(NOT ARG_NO_INSTALL)
    if(ARG_INSTALL_DESTINATION)
      set(_destination "${ARG_INSTALL_DESTINATION}")
    elseif(DEFINED DGX_PLUGIN_INSTALL_DIR)
      set(_destination "${DGX_PLUGIN_INSTALL_DIR}")
    else()
      include(GNUInstallDirs)
      set(_destination "${CMAKE_INSTALL_LIBDIR}/dgx/plugins")
    endif()
    install(TARGETS ${name} LIBRARY DESTINATION "${_destination}")
  endif()
endfunction()
