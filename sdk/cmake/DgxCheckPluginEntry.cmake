# cmake -DNM=<nm> -DFILE=<plugin> -P DgxCheckPluginEntry.cmake
# Fails unless FILE exports dgx_plugin_entry in its dynamic symbol table, where dgxhost's dlsym looks for it.
execute_process(COMMAND "${NM}" -D --defined-only "${FILE}" OUTPUT_VARIABLE _symbols RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "dgx_add_plugin: cannot list the symbols of ${FILE} with ${NM}")
endif()
if(NOT _symbols MATCHES "[ \t]dgx_plugin_entry\n")
  message(FATAL_ERROR "dgx_add_plugin: ${FILE} defines dgx_plugin_entry but does not export it, so dgxhost "
                      "would reject it; declare it with DGX_EXPORT (DGX_PLUGIN(...) does this in C++)")
endif()
