#!/usr/bin/env bash
# End to end through a real single-node Slurm: a 2-rank all_reduce through `srun --mpi=pmix`, then the same
# through `dgxhost launch --submit` as a batch job, checking the results file each time.
# Usage: slurm_test.sh <dgxhost>. Exits 77 (skipped) when Slurm cannot be started here (not root, not installed).
set -euo pipefail
dgxhost=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/dgx-slurm-XXXXXX)
export DGX_RUNS_DIR="$work/dgx-runs"  # measured runs keep their run folder here, not in the build tree
cleanup() {
  "$here/local-slurm.sh" stop "$work/cluster" || true
  rm -rf "$work"
}
trap cleanup EXIT

set +e
conf=$("$here/local-slurm.sh" start "$work/cluster")
status=$?
set -e
[ $status -eq 77 ] && { echo "SKIPPED: cannot start a local Slurm here"; exit 77; }
[ $status -ne 0 ] && { echo "could not start the local Slurm"; cat "$work"/cluster/log/*.log 2>/dev/null | tail -30; exit 1; }
export SLURM_CONF=$conf

expect() {  # expect FILE PATTERN...: every pattern occurs in FILE
  local file=$1
  shift
  for pattern in "$@"; do
    grep -q -- "$pattern" "$file" || { echo "$file lacks $pattern:"; cat "$file"; exit 1; }
  done
}

echo "== srun --mpi=pmix -n 2 dgxhost --plugin all_reduce"
timeout 120 srun --mpi=pmix --kill-on-bad-exit=1 -n 2 "$dgxhost" --plugin all_reduce -e 64K -q \
  --output "$work/srun.json" > "$work/srun.txt"
expect "$work/srun.json" '"schema": "dgx.results/1"' '"world_size": 2' '"launcher": "slurm"' '"transport": "mpi"' \
  '"ok": true' '"check": "ok"'
expect "$work/srun.txt" "Avg bus bandwidth"

echo "== dgxhost launch --submit"
"$dgxhost" launch --nodes 1 --gpus-per-node 0 --tasks-per-node 2 --output-dir "$work/runs" --submit \
  --plugin all_reduce -e 64K > "$work/launch.txt"
cat "$work/launch.txt"
job=$(awk '/Submitted batch job/ {print $4}' "$work/launch.txt")
[ -n "$job" ] || { echo "no job id in the sbatch output"; exit 1; }
for _ in $(seq 1 120); do
  squeue -h -j "$job" 2>/dev/null | grep -q . || break
  sleep 1
done
results="$work/runs/dgx-all_reduce-$job.json"
[ -f "$results" ] || { echo "no results file $results"; cat "$work"/runs/*.log 2>/dev/null; exit 1; }
expect "$results" '"schema": "dgx.results/1"' '"world_size": 2' '"launcher": "slurm"' '"ok": true' '"nodes": \['
echo "slurm: srun and sbatch runs passed (job $job)"
