# dgx_add_doctest(<name> SOURCES ... [LIBRARIES ...] [LABELS <label>] [DEFINITIONS ...] [SKIP_REGULAR_EXPRESSION <re>])
# One doctest executable; every TEST_CASE becomes a CTest test (doctest_discover_tests), labelled `unit` or
# <label>. Tests labelled `gpu` that print "SKIPPED: no CUDA device" are reported by CTest as skipped, and so are
# tests labelled `postgres` that print "SKIPPED: no PostgreSQL server binary", and the tests whose output matches
# SKIP_REGULAR_EXPRESSION (a tool or server they need is missing).
# With DGX_TEST_EACH_CASE off (the ASan+UBSan tree, where every process start costs a sanitizer runtime's set-up),
# a `unit` executable is one CTest test that runs all of its cases; its output names a failing case all the same.
# Test code is compiled without optimisation: its speed does not matter, the code under test keeps the build type's
# flags, and -O0 roughly halves the compile time of doctest's expanded checks (CI builds every test twice). GPU tests
# keep the build's flags: their CPU references run on the device machine's clock.
option(DGX_TEST_EACH_CASE "one CTest test per doctest TEST_CASE (OFF: one per unit-test executable)" ON)
function(dgx_add_doctest name)
  cmake_parse_arguments(ARG "" "SKIP_REGULAR_EXPRESSION" "SOURCES;LIBRARIES;LABELS;DEFINITIONS" ${ARGN})
  # CTest cuts a discovered test name at ';' (a list separator): such a test runs no test case and still passes.
  foreach(_source IN LISTS ARG_SOURCES)
    get_filename_component(_path "${_source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(_source MATCHES "^\\$<" OR NOT EXISTS "${_path}")  # generator expressions, generated sources
      continue()
    endif()
    file(READ "${_path}" _text)
    string(REGEX MATCH "TEST_CASE\\(\"[^\"]*;[^\"]*\"" _bad "${_text}")
    if(_bad)
      message(FATAL_ERROR "${_path}: a test name with ';' (${_bad}): CTest would split "
                          "it and run no test case; use ',' instead")
    endif()
  endforeach()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE dgx_doctest_main ${ARG_LIBRARIES})
  target_compile_definitions(${name} PRIVATE ${ARG_DEFINITIONS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/bin")
  dgx_target_warnings(${name})
  dgx_unity_build(${name})
  set(_label unit)
  if(ARG_LABELS)
    set(_label ${ARG_LABELS})  # one label: CTest list properties do not survive doctest_discover_tests
  endif()
  if(NOT _label STREQUAL "gpu")
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-O0>)
  endif()
  if(NOT DGX_TEST_EACH_CASE AND _label STREQUAL "unit" AND NOT ARG_SKIP_REGULAR_EXPRESSION)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS unit)
    return()
  endif()
  set(_properties LABELS ${_label})
  if(_label STREQUAL "gpu")  # GPU tests print this and return when there is no device: CTest reports a skip
    list(APPEND _properties SKIP_REGULAR_EXPRESSION "SKIPPED: no CUDA device")
  elseif(_label STREQUAL "postgres")  # likewise where no PostgreSQL server binary is installed
    list(APPEND _properties SKIP_REGULAR_EXPRESSION "SKIPPED: no PostgreSQL server binary")
  elseif(ARG_SKIP_REGULAR_EXPRESSION)
    list(APPEND _properties SKIP_REGULAR_EXPRESSION "${ARG_SKIP_REGULAR_EXPRESSION}")
  endif()
  doctest_discover_tests(${name} TEST_PREFIX "${name}:" PROPERTIES ${_properties})
endfunction()

# dgx_add_plugin_cli_test(<name> PLUGIN <plugin> SOURCES ... [LIBRARIES ...] [DEFINITIONS ...])
# An end-to-end test of the dgxhost executable with a built plugin, as a user runs it (tests/support/plugin_cli.hpp):
# a doctest executable labelled `integration`, DGX_TEST_DGXHOST naming dgxhost, built after dgxhost, the plugin and the
# configs it runs with. Left out where DGX_END_TO_END_TESTS is off (the sanitized tree).
function(dgx_add_plugin_cli_test name)
  if(NOT DGX_END_TO_END_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "PLUGIN" "SOURCES;LIBRARIES;DEFINITIONS" ${ARGN})
  dgx_add_doctest(${name}
    SOURCES ${ARG_SOURCES}
    LIBRARIES dgx::core dgx_test_support ${ARG_LIBRARIES}
    LABELS integration
    DEFINITIONS DGX_TEST_DGXHOST="$<TARGET_FILE:dgxhost>" ${ARG_DEFINITIONS})
  add_dependencies(${name} dgxhost ${ARG_PLUGIN} dgx_configs)
endfunction()
