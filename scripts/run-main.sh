#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build, then run dgxhost.
# With no arguments it answers the central question for Llama 3.1 70B (dgxhost --plugin llama70b); any
# arguments are passed to dgxhost instead, e.g. scripts/run-main.sh --plugin llama8b --format json.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh default >&2
[ $# -eq 0 ] && set -- --plugin llama70b
exec build/default/bin/dgxhost "$@"
