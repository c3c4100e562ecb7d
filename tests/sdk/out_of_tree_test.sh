#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds the example plugin out of tree against the installed
# dgx-sdk package (find_package + dgx_add_plugin), and runs it through the installed dgxhost --plugin-dir.
# Usage: out_of_tree_test.sh <build dir> <cmake>
set -euo pipefail
build_dir=$1
cmake=${2:-cmake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cmake" --install "$build_dir" --prefix "$work/prefix" >/dev/null
example="$work/prefix/share/dgx/sdk-examples/hello"
test -f "$example/CMakeLists.txt" || { echo "example not installed at $example"; exit 1; }
"$cmake" -S "$example" -B "$work/hello-build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake" --build "$work/hello-build" >/dev/null
test -f "$work/hello-build/libdgx-hello.so" || { echo "plugin not built"; exit 1; }

dgxhost="$work/prefix/bin/dgxhost"
"$dgxhost" --plugin-dir "$work/hello-build" --list > "$work/list.txt"
grep -q "hello 1.0.0" "$work/list.txt" || { echo "hello is not listed:"; cat "$work/list.txt"; exit 1; }

"$dgxhost" --plugin-dir "$work/hello-build" --plugin hello --set hello.elements=100000 \
  --set runner.min_time=0.05 --format json > "$work/out.json"
grep -q '"schema": "dgx.results/1"' "$work/out.json"
grep -q '"workload": "hello"' "$work/out.json"
grep -q '"mode": "measured"' "$work/out.json"
grep -q '"bandwidth"' "$work/out.json"

"$dgxhost" --plugin-dir "$work/hello-build" --plugin hello --mode project --format json > "$work/projected.json"
grep -q '"mode": "projected"' "$work/projected.json"
echo "out-of-tree example plugin: built, listed, measured and projected"
