# dgx_unity_build(<target>): compile the target's C++ sources in batches of 16 (CMake unity builds). The host's, the
# model's and the tests' files each include much the same headers (Boost.Program_options, the results document,
# the model's headers, doctest), and parsing those dominates their compile time: batches cut a clean build of those
# parts by more than half, which CI's two full builds on 2 cores feel. Names in anonymous namespaces must therefore
# be unique within a target (a helper shared by two files has one home in a header). Turn DGX_UNITY_BUILD off for
# faster incremental builds while editing one file; scripts/lint.sh tidy still checks each file on its own.
option(DGX_UNITY_BUILD "Compile the host, the model and the tests in batches of sources (CMake unity builds)" ON)
function(dgx_unity_build target)
  if(DGX_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()
