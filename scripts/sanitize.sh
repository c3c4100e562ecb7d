#!/usr/bin/env bash
# The test suite built with ASan+UBSan (preset `asan`: clang, no CUDA, in build/asan; scripts/fuzz.sh uses the same
# tree, so CI builds it once). In scope by default: the host and the SDK (every unit test of core/ and sdk/, the
# results store on SQLite and PostgreSQL), the performance model (libs/llm-model) and the host's own end-to-end
# tests (integration_tests: plugin isolation, hostile input, journals, with the comm and spin plugins), plus the
# libFuzzer targets: the code that reads what users, plugins and other tools hand it.
# Left out by default, because CI's 30 minutes on 2 cores cannot hold a second build and run of everything (about
# 14 minutes more): the LLM kernels' CPU paths, the LLM workload library and plugins with their tests, the header
# compile checks, and the end-to-end tests of the commands and plugins through dgxhost, MPI, Slurm and Chromium
# (DGX_END_TO_END_TESTS). The ordinary suite runs all of them. DGX_SANITIZE_ALL=1 builds and runs them here too;
# do that before a release and after a change to the process, signal or MPI code.
# A unit-test executable is one CTest test in this tree (DGX_TEST_EACH_CASE off): each process start pays the
# sanitizer runtime's set-up. Leak reports are suppressed only for the third-party leaks named in
# tests/sanitizers/lsan.supp (Open MPI, toml++); tests that need a GPU skip as in the ordinary suite. Compiles
# through ccache when it is installed.
# Usage: scripts/sanitize.sh [ctest arguments...]      Env: DGX_JOBS (build jobs, default 2), DGX_SANITIZE_ALL
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ "${DGX_SANITIZE_ALL:-0}" = 1 ]; then
  cmake --preset asan "${launcher[@]}" -DDGX_END_TO_END_TESTS=ON >/dev/null
  cmake --build --preset asan -j"${DGX_JOBS:-2}"
  ctest --preset asan "$@"
  exit
fi
# The test executables in scope (each builds what it needs: integration_tests brings dgxhost, the fixtures, the
# configs and the comm and spin plugins) and the fuzz targets; CTest runs the tests those executables hold.
suite=(sdk_tests hello_test core_tests core_export_tests core_import_tests core_store_tests core_verdict_tests
  store_postgres_tests comm_tests llm_model_tests integration_tests)
cmake --preset asan "${launcher[@]}" -DDGX_END_TO_END_TESTS=OFF >/dev/null
cmake --build --preset asan -j"${DGX_JOBS:-2}" --target "${suite[@]}" dgx_fuzz
tests=$(printf '%s|' "${suite[@]/hello_test/sdk_example_hello_test}")
ctest --preset asan --tests-regex "^(${tests%|})(:|$)" "$@"
