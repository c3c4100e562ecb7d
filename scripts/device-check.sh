#!/usr/bin/env bash
# The GPU check of the measured CUDA path (issue 5), in two halves (see ../shared/GPU.md):
#
#   scripts/device-check.sh prepare   on the build machine: the `device` preset (sm_90, Boost static, toml++
#                                     header-only, no MPI), only the targets the check runs, staged into
#                                     build/device-stage (small enough to carry)
#   scripts/device-check.sh [run]     on the GPU machine, from the repository root with build/device-stage
#                                     carried: locates the CUDA libraries, prints nvidia-smi, runs the GPU tests,
#                                     the gemm sweep, one Llama 3.1 8B and one 70B layer (TP1, seq 8192, MBS 1,
#                                     BF16 and FP8), the llama8b preset in measure mode (a measured layer feeding
#                                     the cluster projection), every collective through NCCL, the PyTorch
#                                     references, and prints the summary table last.
#
# Everything goes to $OUT (default ./device-out): nvidia-smi.txt, gemm.json, layer-8b.json, layer-70b.json,
# pretrain-8b.json, comm.json, torch.json, summary.json, summary.txt and logs/. A failing step is reported and the next one still runs; the
# exit code is the number of failed steps.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
stage=${DGX_DEVICE_STAGE:-$root/build/device-stage}
gemm_shapes=(8192x8192x8192
             8192x10240x8192 8192x57344x8192 8192x8192x28672    # Llama 3.1 70B: qkv, fc1, fc2 (proj = 8192³)
             8192x6144x4096 8192x4096x4096 8192x28672x4096 8192x4096x14336)  # Llama 3.1 8B: qkv, proj, fc1, fc2

prepare() {
  local build=$root/build/device
  cmake --preset device -S "$root" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache || return 1
  cmake --build "$build" -j"${JOBS:-2}" --target dgxhost dgx_configs cuda-probe comm gemm llm-layer llm-pretrain \
    llm_kernels_gpu_tests || return 1
  rm -rf "$stage"
  mkdir -p "$stage/bin" "$stage/lib/dgx/plugins" "$stage/tests/bin"
  cp "$build/bin/dgxhost" "$stage/bin/"
  cp "$build"/lib/dgx/plugins/libdgx-{cuda-probe,comm,gemm,llm-layer,llm-pretrain}.so "$stage/lib/dgx/plugins/"
  cp "$build/tests/bin/llm_kernels_gpu_tests" "$stage/tests/bin/"
  if [[ -d $build/share/dgx ]]; then mkdir -p "$stage/share" && cp -r "$build/share/dgx" "$stage/share/"; fi
  chmod -R go-w "$stage"
  echo "== dynamic dependencies (only glibc/libstdc++ and CUDA libraries may remain)"
  for f in "$stage/bin/dgxhost" "$stage"/lib/dgx/plugins/*.so "$stage/tests/bin/llm_kernels_gpu_tests"; do
    echo "$(basename "$f"): $(ldd "$f" | awk '{print $1}' | grep -v -E '^(linux-vdso|/lib64/ld-linux)' | tr '\n' ' ')"
  done
  du -sh "$stage"
}

# Puts the folders holding the CUDA libraries the build links on LD_LIBRARY_PATH: /usr/local/cuda when it has
# them, else PyTorch's wheels (nvidia-* packages) or wherever `find` sees them.
locate_libraries() {
  local dirs=() lib dir
  for lib in libcudart.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2; do
    dir=""
    for candidate in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib; do
      if [[ -e $candidate/$lib ]]; then dir=$candidate; break; fi
    done
    if [[ -z $dir ]]; then
      dir=$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "$lib" -print 2>/dev/null | head -n 1)
      dir=${dir:+$(dirname "$dir")}
    fi
    if [[ -n $dir ]]; then dirs+=("$dir"); echo "$lib: $dir"; else echo "$lib: NOT FOUND"; fi
  done
  local joined
  joined=$(printf '%s\n' "${dirs[@]}" | awk '!seen[$0]++' | paste -sd: -)
  export LD_LIBRARY_PATH="${joined}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

failures=0
declare -A status

# step NAME COMMAND...: runs a step with its output in logs/NAME.log, records ok / FAILED (exit code).
step() {
  local name=$1
  shift
  local started=$SECONDS
  echo "== $name: $*"
  "$@" >"$OUT/logs/$name.log" 2>&1
  local rc=$?
  if [[ $rc -eq 0 ]]; then status[$name]="ok ($((SECONDS - started)) s)"; else
    status[$name]="FAILED (exit $rc, $((SECONDS - started)) s)"
    failures=$((failures + 1))
    echo "-- $name failed (exit $rc); the end of logs/$name.log:"
    tail -n 25 "$OUT/logs/$name.log"
  fi
}

run() {
  OUT=${OUT:-$root/device-out}
  mkdir -p "$OUT/logs"
  if [[ ! -x $stage/bin/dgxhost ]]; then
    echo "no staged build in $stage: run 'scripts/device-check.sh prepare' on the build machine and carry it"
    exit 1
  fi
  chmod -R go-w "$stage" 2>/dev/null || true  # dgxhost refuses plugins writable by others
  locate_libraries | tee "$OUT/logs/libraries.txt"
  nvidia-smi | tee "$OUT/nvidia-smi.txt"
  (cd "$root" && git rev-parse HEAD 2>/dev/null || echo unknown) >"$OUT/commit.txt"
  date -u +%Y-%m-%dT%H:%M:%SZ >"$OUT/date.txt"
  local dgx=$stage/bin/dgxhost
  # cuDNN says why it rejects a graph (no engine, unsupported layout) in these logs.
  export CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$OUT/logs/cudnn.log"

  step gpu-tests "$stage/tests/bin/llm_kernels_gpu_tests" --duration=true
  local shapes
  shapes=$(printf '"%s",' "${gemm_shapes[@]}")
  step gemm "$dgx" --plugin gemm --set "gemm.shapes=[${shapes%,}]" --set 'gemm.precisions=["bf16","fp8"]' \
    --set runner.max_time=10 -o "$OUT/gemm.json"
  for model in 8b 70b; do
    step "layer-$model" "$dgx" --plugin "llama3.1-$model-layer" --set 'precision=["bf16","fp8"]' \
      --set runner.max_time=20 -o "$OUT/layer-$model.json"
  done
  # The main job on a GPU: one measured layer at the preset's layout, the cluster projected from it.
  step pretrain-8b "$dgx" --plugin llama8b --mode measure --set runner.max_time=20 -o "$OUT/pretrain-8b.json"
  step comm "$dgx" --plugin comm -b 8 -e 1G -f 4 --set runner.max_time=2 -o "$OUT/comm.json"
  step torch python3 "$root/scripts/torch_reference.py" measure --gemm "${gemm_shapes[@]}" \
    --layer llama3.1-8b llama3.1-70b --out "$OUT/torch.json"
  for name in gemm layer-8b layer-70b pretrain-8b comm; do
    echo "== $name"
    grep -v '^\s*$' "$OUT/logs/$name.log" | head -n 60
  done
  step summary python3 "$root/scripts/torch_reference.py" summarize --gemm "$OUT/gemm.json" \
    --layer "llama3.1-8b=$OUT/layer-8b.json" "llama3.1-70b=$OUT/layer-70b.json" --torch "$OUT/torch.json" \
    --out "$OUT/summary.json"
  cp "$OUT/logs/summary.log" "$OUT/summary.txt" 2>/dev/null

  echo
  echo "== steps"
  for name in gpu-tests gemm layer-8b layer-70b pretrain-8b comm torch summary; do printf '  %-10s %s\n' "$name" "${status[$name]:-not run}"; done
  echo "== GPU tests"
  grep -E '^\[doctest\] (test cases|assertions)' "$OUT/logs/gpu-tests.log" || true
  echo "== summary ($(cat "$OUT/date.txt"), commit $(cat "$OUT/commit.txt"))"
  cat "$OUT/summary.txt" 2>/dev/null || echo "(no summary)"
  exit "$failures"
}

case ${1:-run} in
prepare) prepare ;;
run) run ;;
*) echo "usage: $0 [prepare|run]" >&2; exit 2 ;;
esac
