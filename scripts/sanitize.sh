#!/usr/bin/env bash
# The test suite built with ASan+UBSan (preset `asan`: clang, host, SDK, CPU plugins, their tests (not the header
# compile checks of tests/headers, which the default build runs) and the libFuzzer
# targets, no CUDA, in build/asan; scripts/fuzz.sh uses the same tree, so CI builds it once). Leak reports are
# suppressed only for the third-party leaks named in tests/sanitizers/lsan.supp (Open MPI, toml++); tests that
# need a GPU skip as in the ordinary suite. Compiles through ccache when it is installed.
# Usage: scripts/sanitize.sh [ctest arguments...]      Env: DGX_JOBS (build jobs, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake --preset asan "${launcher[@]}" >/dev/null
cmake --build --preset asan -j"${DGX_JOBS:-2}"
ctest --preset asan "$@"
