#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: the ASan+UBSan tree build/asan that scripts/sanitize.sh also uses)
# and runs each for a bounded time from its seed corpus in tests/fuzz/corpus/<target>/ (new inputs go to
# build/asan/fuzz-corpus/<target>/, never into the repo). Fails when a target crashes, hangs (-timeout), leaks,
# runs out of memory or returns a rejection with an exit code README.md does not document; the reproducer is left
# in build/asan/fuzz-artifacts/. Each target runs on one core, as many at once as there are cores.
# Usage: scripts/fuzz.sh [seconds per target, default 60] [target ...]   (targets: config cli results_json
#        descriptor launch_scripts launch_files import_training import_serving import_collective)   Env: DGX_JOBS
#        (build jobs, default 2), DGX_FUZZ_RUNS (stop a target after this many executions instead of the time limit,
#        e.g. 1000000 before resolving a fuzzing issue), DGX_FUZZ_PARALLEL (targets at once, default the core count)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config cli results_json descriptor launch_scripts launch_files import_training
  import_serving import_collective)
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build --preset fuzz -j"${DGX_JOBS:-2}"
build=build/asan
mkdir -p $build/fuzz-artifacts
limit=(-max_total_time="$seconds")
[ -z "${DGX_FUZZ_RUNS:-}" ] || limit=(-runs="$DGX_FUZZ_RUNS")
# One target per core at a time (DGX_FUZZ_PARALLEL, default the core count): each still gets its full time.
parallel=${DGX_FUZZ_PARALLEL:-$(nproc)}
fuzz_one() {
  local target=$1 corpus=$build/fuzz-corpus/$1 log=$build/fuzz_$1.log t0 runs
  mkdir -p "$corpus"
  t0=$(date +%s)
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$build/fuzz/fuzz_$target" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix=$build/fuzz-artifacts/"$target"- \
       "$corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "== fuzz_$target: ${limit[*]}: $runs executions in $(($(date +%s) - t0)) s, no crash ($log)"
  else
    echo "== fuzz_$target: ${limit[*]}: FAILED: see $log"
    tail -n 30 "$log"
    return 1
  fi
}
status=0
pids=()
for target in "${targets[@]}"; do
  if ((${#pids[@]} >= parallel)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
  fuzz_one "$target" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
