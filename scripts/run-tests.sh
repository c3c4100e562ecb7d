#!/usr/bin/env bash
# The test suite on a fresh Debian 12 machine: install what is missing, build, run every test.
# Tests that need a GPU carry the label "gpu" and skip, visibly, when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default
ctest --preset default "$@"
