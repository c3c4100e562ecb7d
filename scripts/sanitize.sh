#!/usr/bin/env bash
# The test suite built with ASan+UBSan (preset `asan`: clang, host, SDK, CPU plugins, their unit tests, the host's
# own end-to-end tests (tests/integration's integration_tests: plugin isolation, hostile input, journals) and the
# libFuzzer targets, no CUDA, in build/asan; scripts/fuzz.sh uses the same tree, so CI builds it once).
# Left out by default, as CI's 30 minutes on 2 cores cannot hold them twice: the header compile checks and the
# end-to-end tests of the commands and plugins through dgxhost, MPI, Slurm and Chromium (DGX_END_TO_END_TESTS),
# which the ordinary suite runs; under ASan they took 4 of CI's minutes and run the code the unit tests run here.
# DGX_SANITIZE_ALL=1 builds and runs them too (about 8 more minutes on 2 cores). A unit-test executable is one CTest
# test (DGX_TEST_EACH_CASE off: each process start pays the sanitizer runtime's set-up).
# Leak reports are suppressed only for the third-party leaks named in tests/sanitizers/lsan.supp (Open MPI,
# toml++); tests that need a GPU skip as in the ordinary suite. Compiles through ccache when it is installed.
# Usage: scripts/sanitize.sh [ctest arguments...]      Env: DGX_JOBS (build jobs, default 2), DGX_SANITIZE_ALL
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake --preset asan "${launcher[@]}" -DDGX_END_TO_END_TESTS="$([ "${DGX_SANITIZE_ALL:-0}" = 1 ] && echo ON || echo OFF)" \
  >/dev/null
cmake --build --preset asan -j"${DGX_JOBS:-2}"
ctest --preset asan "$@"
