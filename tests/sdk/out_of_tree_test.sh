#!/usr/bin/env bash
# Installs this build into a temporary prefix and uses the installed SDK as a third party would: builds the
# example plugin out of tree (find_package + dgx_add_plugin), runs its unit test on the SDK's fake host, runs it
# through the installed dgxhost, checks that the guide and the results schema are installed, and that
# dgx_add_plugin fails the build of a plugin without an exported entry symbol.
# Usage: out_of_tree_test.sh <build dir> <cmake>
set -euo pipefail
build_dir=$1
cmake=${2:-cmake}
work=$(mktemp -d)
export DGX_RUNS_DIR="$work/dgx-runs"  # measured runs keep their run folder here, not in the build tree
trap 'rm -rf "$work"' EXIT

"$cmake" --install "$build_dir" --prefix "$work/prefix" >/dev/null
example="$work/prefix/share/dgx/sdk-examples/hello"
test -f "$example/CMakeLists.txt" || { echo "example not installed at $example"; exit 1; }
for doc in sdk-guide.md results-schema.md; do
  test -f "$work/prefix/share/doc/dgx-sdk/$doc" || { echo "$doc not installed"; exit 1; }
done
test -f "$work/prefix/include/dgx/sdk/testing/fake_host.hpp" || { echo "test harness not installed"; exit 1; }
"$cmake" -S "$example" -B "$work/hello-build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
"$cmake" --build "$work/hello-build" >/dev/null
test -f "$work/hello-build/libdgx-hello.so" || { echo "plugin not built"; exit 1; }
"$work/hello-build/hello_test" || { echo "the example's unit test failed"; exit 1; }

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

# A third-party format, read by the host without touching it: import the stand-alone tool's log, then judge it.
printf 'hello v1\nhello: elements=100000 time_ms=0.5\nhello: elements=100000 time_ms=0.4\nhello: elements=100000 time_ms=0.45\n' \
  > "$work/hello.log"
"$dgxhost" import --plugin-dir "$work/hello-build" --inspect "$work/hello.log" > "$work/inspect.txt"
grep -q "hello-log (micro, hello)" "$work/inspect.txt" || { echo "the example's format did not inspect:"; cat "$work/inspect.txt"; exit 1; }
"$dgxhost" import --plugin-dir "$work/hello-build" "$work/hello.log" --format json > "$work/imported.json"
grep -q '"workload": "hello"' "$work/imported.json" && grep -q '"tool": "hello-log"' "$work/imported.json" ||
  { echo "the example's format did not import:"; cat "$work/imported.json"; exit 1; }
"$dgxhost" verdict --plugin-dir "$work/hello-build" -q "$work/hello.log" > "$work/verdict.txt" || test $? -eq 5 ||
  { echo "verdict of the example's log failed:"; cat "$work/verdict.txt"; exit 1; }

# A plugin without the entry symbol, and one that defines it without exporting it, must not build.
mkdir -p "$work/bad"
printf 'int helper(void) { return 1; }\n' > "$work/bad/no_entry.c"
# Without <dgx/plugin.h> (whose declaration exports it) the symbol gets the plugin's hidden default visibility.
printf 'int dgx_plugin_entry(void) { return 0; }\n' > "$work/bad/hidden_entry.c"
cat > "$work/bad/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(bad-plugins LANGUAGES C)
find_package(dgx-sdk REQUIRED)
dgx_add_plugin(no-entry SOURCES no_entry.c NO_INSTALL)
dgx_add_plugin(hidden-entry SOURCES hidden_entry.c NO_INSTALL)
CMAKE
"$cmake" -S "$work/bad" -B "$work/bad-build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/bad-configure.log"
# No build type given: the SDK builds Release (optimised) and says so.
grep -q "dgx-sdk: no CMAKE_BUILD_TYPE given: building Release" "$work/bad-configure.log" ||
  { echo "the SDK did not default to Release:"; cat "$work/bad-configure.log"; exit 1; }
grep -q "^CMAKE_BUILD_TYPE:STRING=Release" "$work/bad-build/CMakeCache.txt" ||
  { echo "CMAKE_BUILD_TYPE is not Release without a build type"; exit 1; }
expect_build_failure() {
  if "$cmake" --build "$work/bad-build" --target "$1" > "$work/$1.log" 2>&1; then
    echo "dgx_add_plugin built $1"; exit 1
  fi
  grep -q "$2" "$work/$1.log" || { echo "$1: the build failed without saying why:"; cat "$work/$1.log"; exit 1; }
}
expect_build_failure no-entry "dgx_plugin_entry' not defined"
expect_build_failure hidden-entry "defines dgx_plugin_entry but does not export it"
echo "out-of-tree example plugin: built, unit-tested, listed, measured, projected, its log imported and judged; bad plugins refused"
