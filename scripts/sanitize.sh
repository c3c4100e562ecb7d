#!/usr/bin/env bash
# The test suite built with ASan+UBSan (preset `asan`: clang, host, SDK and CPU plugins, no CUDA). Leak reports
# are suppressed only for the third-party leaks named in tests/sanitizers/lsan.supp (Open MPI, toml++).
# Usage: scripts/sanitize.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset asan > /dev/null
cmake --build --preset asan -j"${DGX_JOBS:-2}"
ctest --preset asan "$@"
