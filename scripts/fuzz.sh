#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan+UBSan) and runs each for a bounded time from its seed
# corpus in tests/fuzz/corpus/<target>/ (new inputs go to build/fuzz/corpus/<target>/, never into the repo).
# Fails when a target crashes, hangs (-timeout), leaks or runs out of memory; the reproducer is left in
# build/fuzz/artifacts/.
# Usage: scripts/fuzz.sh [seconds per target, default 60] [target ...]   (targets: config cli results_json)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config cli results_json)
cmake --preset fuzz > /dev/null
cmake --build --preset fuzz -j"${DGX_JOBS:-2}"
out=build/fuzz/fuzz
mkdir -p build/fuzz/artifacts
status=0
for target in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$target
  mkdir -p "$corpus"
  log=build/fuzz/fuzz_$target.log
  echo "== fuzz_$target: ${seconds} s"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "$out/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/"$target"- \
       "$corpus" "tests/fuzz/corpus/$target" > "$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed "s/^/  /"
  else
    status=1
    echo "  FAILED: see $log"
    tail -n 30 "$log"
  fi
done
exit $status
