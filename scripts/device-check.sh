#!/usr/bin/env bash
# The GPU check of the measured CUDA path (issue 8), in two halves (see ../shared/GPU.md):
#
#   scripts/device-check.sh prepare   on the build machine: the `device` preset (sm_90, Boost static, toml++
#                                     header-only, no MPI, no build RPATH), only the targets the check runs,
#                                     staged into build/device-stage with the commit it was built from
#   scripts/device-check.sh [run]     on the GPU machine, from the repository root with build/device-stage
#                                     carried: a list of steps, each with its own time limit (STEPS below)
#
# Library layout on the GPU machine: the toolkit in /usr/local/cuda, and cuDNN, NCCL and a newer cuBLAS only as
# PyTorch's wheels. The wheels' folders (site-packages/nvidia/{cu13,cublas,cudnn,nccl}/lib of the python that
# holds torch) come first on LD_LIBRARY_PATH, so that dgxhost and torch run the same cuBLAS; PyTorch itself runs
# with a clean environment (system CUDA libraries shadowing its wheels break it).
#
# What comes back: only 8 files return from $OUT (default ./device-out), so the working files live in a
# temporary folder and $OUT holds device-check.tgz (everything, refreshed after every step) and six small files:
# console.log, steps.txt (one line per step), summary.txt and summary.json (rewritten after every step),
# gemm.json, layer-70b.json and decode-70b.json. The fine-tuning steps (issue 12): llm-finetune's measure mode on
# the llama8b-lora preset (the LoRA layer, and the frozen layer alone) and PyTorch's LoRA layer of the same shapes;
# the serving steps (issue 13): whole-model decode loops, PyTorch's decode step and llama70b-serve's measure mode.
# The summary prints their ratios and targets (the other JSON files are in the archive). A failing or timed-out
# step is recorded and the next one still runs; the exit code is the number of failed steps. DGX_DEVICE_BUDGET
# (seconds, default 420) bounds the whole run: a step gets at most what is left of it, so the last steps (serving)
# may be skipped when the earlier ones use their limits. DGX_DEVICE_STEPS="gemm torch" runs only the steps named
# (the serving check alone: DGX_DEVICE_STEPS="gpu-info decode-70b decode-8b torch-decode serve-70b").
#
# The device call (15 minutes of device time in all, start-up included): one `run` of
#   scripts/device-check.sh run        carry ["build/device-stage"], timeout_s 450
# and, in the time left, at most one targeted rerun (DGX_DEVICE_STEPS=...) of what failed. Check the script here
# first with scripts/device-sim.sh.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
stage=${DGX_DEVICE_STAGE:-$root/build/device-stage}
gemm_shapes=(8192x8192x8192
             8192x10240x8192 8192x57344x8192 8192x8192x28672    # Llama 3.1 70B: qkv, fc1, fc2 (proj = 8192³)
             8192x6144x4096 8192x4096x4096 8192x28672x4096 8192x4096x14336)  # Llama 3.1 8B: qkv, proj, fc1, fc2
# Issue 24's open question on the fine-tuning FP8 rows (libs/llm-model/README.md "Accuracy"): DGX Cloud's 8B FP8
# fine-tuning (4096-token packed microbatches) runs about 10 % slower per GEMM than the model, which fits the 8192-token
# pretraining microbatches of the same release. The same 8B GEMMs at 4096 rows, and the weight-gradient GEMM at a
# reduction depth of 4096 and 8192 tokens (fc1's), in our GEMM step only: the summary sets the rate at 4096 tokens
# against the rate at 8192 for BF16 and FP8 (the model scales both alike).
row_shapes=(4096x6144x4096 4096x4096x4096 4096x28672x4096 4096x4096x14336
            28672x4096x4096 28672x4096x8192)
# Our own memory-bound kernels under compute-sanitizer memcheck (small shapes; cuBLAS and cuDNN are not ours).
memcheck_tests='*RMSNorm and LayerNorm*,*SwiGLU, GELU*,*rotary embedding*,*residual add*,*FP8 cast*'

# The steps, in order: name, time limit in seconds, the function that runs it. The most valuable come first.
STEPS=(
  "gpu-info     15  step_gpu_info"
  "gpu-tests    75  step_gpu_tests"
  "gemm         90  step_gemm"
  "layer-70b    50  step_layer_70b"
  "layer-8b     35  step_layer_8b"
  "torch        90  step_torch"
  "pretrain-8b  35  step_pretrain_8b"
  "memcheck     30  step_memcheck"
  "comm         15  step_comm"
  "finetune-8b  35  step_finetune_8b"
  "torch-lora   25  step_torch_lora"
  # Serving (issue 13): the whole-model decode loops (70B FP8 for the MBU target, 8B BF16 against PyTorch), the
  # PyTorch decode step of the same 8B shapes, and llama70b-serve's measure mode (a measured layer -> projection).
  "decode-70b   35  step_decode_70b"
  "decode-8b    20  step_decode_8b"
  "torch-decode 35  step_torch_decode"
  "serve-70b    20  step_serve_70b"
)
# Batch sizes of the decode loops (the workload's default is every power of two from 1 to 256).
decode_batches=(1 4 16 64 256)
decode_context=1024

prepare() {
  local build=$root/build/device
  cmake --preset device -S "$root" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache || return 1
  cmake --build "$build" -j"${JOBS:-2}" --target dgxhost dgx_configs cuda-probe comm gemm llm-layer llm-pretrain \
    llm-finetune llm-inference llm_kernels_gpu_tests || return 1
  rm -rf "$stage"
  mkdir -p "$stage/bin" "$stage/lib/dgx/plugins" "$stage/tests/bin"
  cp "$build/bin/dgxhost" "$stage/bin/"
  cp "$build"/lib/dgx/plugins/libdgx-{cuda-probe,comm,gemm,llm-layer,llm-pretrain,llm-finetune,llm-inference}.so \
    "$stage/lib/dgx/plugins/"
  cp "$build/tests/bin/llm_kernels_gpu_tests" "$stage/tests/bin/"
  if [[ -d $build/share/dgx ]]; then mkdir -p "$stage/share" && cp -r "$build/share/dgx" "$stage/share/"; fi
  # .git does not travel to the GPU machine: the stage says what it was built from.
  (cd "$root" && git describe --always --dirty --abbrev=40 2>/dev/null || echo unknown) >"$stage/commit.txt"
  chmod -R go-w "$stage"
  local f problems=0
  echo "== dynamic dependencies (only glibc/libstdc++ and CUDA libraries may remain) and RUNPATH (none)"
  for f in "$stage/bin/dgxhost" "$stage"/lib/dgx/plugins/*.so "$stage/tests/bin/llm_kernels_gpu_tests"; do
    echo "$(basename "$f"): $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    if readelf -d "$f" | grep -q -E '\((RPATH|RUNPATH)\)'; then
      echo "  has a build RPATH: $(readelf -d "$f" | grep -E '\((RPATH|RUNPATH)\)')"
      problems=$((problems + 1))
    fi
  done
  echo "commit: $(cat "$stage/commit.txt")"
  du -sh "$stage"
  return "$problems"
}

# ---------------------------------------------------------------------------------------------------------------
# Locating the libraries (in the calling shell: a pipeline would set the variable in a subshell and lose it)

# The first python on PATH (or $DGX_PYTHON) that imports torch, or nothing.
find_torch_python() {
  local candidate
  for candidate in ${DGX_PYTHON:-} python3 python; do
    if command -v "$candidate" >/dev/null && env -i PATH="$PATH" HOME="${HOME:-/root}" "$candidate" -c 'import torch' \
      >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
}

# Sets torch_python and LD_LIBRARY_PATH (exported) and writes what it found to stdout.
locate_libraries() {
  torch_python=$(find_torch_python)
  local wheels=() site="" dir lib
  if [[ -n $torch_python ]]; then
    site=$(env -i PATH="$PATH" HOME="${HOME:-/root}" "$torch_python" -c \
      'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
    for dir in cu13 cublas cudnn nccl cuda_runtime; do
      [[ -d $site/nvidia/$dir/lib ]] && wheels+=("$site/nvidia/$dir/lib")
    done
  fi
  echo "python with torch: ${torch_python:-none}${site:+ (site-packages $site)}"
  local toolkit=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib)
  local dirs=()
  for lib in libcudart.so.13 libcublasLt.so.13 libcublas.so.13 libcudnn.so.9 libnccl.so.2; do
    local found=""
    for dir in "${wheels[@]}" "${toolkit[@]}"; do
      if [[ -e $dir/$lib ]]; then found=$dir; break; fi
    done
    echo "  $lib: ${found:-NOT FOUND}"
    [[ -n $found ]] && dirs+=("$found")
  done
  local joined
  joined=$(printf '%s\n' "${dirs[@]}" | awk 'NF && !seen[$0]++' | paste -sd: -)
  export LD_LIBRARY_PATH="${joined}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
}

# python with a clean environment: no LD_LIBRARY_PATH of ours, no CUDNN_* logging.
clean_python() {
  env -i PATH="$PATH" HOME="${HOME:-/root}" ${CUDA_VISIBLE_DEVICES:+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES} \
    "${torch_python:-python3}" "$@"
}

# ---------------------------------------------------------------------------------------------------------------
# The steps (each writes into $work; its console output goes to $work/logs/NAME.log)

step_gpu_info() {
  nvidia-smi || return 1
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
    --format=csv | tee "$work/gpu.csv"
}

step_gpu_tests() { "$stage/tests/bin/llm_kernels_gpu_tests" --duration=true; }

step_gemm() {
  local shapes
  shapes=$(printf '"%s",' "${gemm_shapes[@]}" "${row_shapes[@]}")
  "$dgx" --plugin gemm --set "gemm.shapes=[${shapes%,}]" --set 'gemm.precisions=["bf16","fp8"]' \
    --set runner.max_time=2 -o "$work/gemm.json"
}

layer() { "$dgx" --plugin "llama3.1-$1-layer" --set 'precision=["bf16","fp8"]' --set runner.max_time=8 \
  -o "$work/layer-$1.json"; }
step_layer_70b() { layer 70b; }
step_layer_8b() { layer 8b; }

step_torch() {
  [[ -n $torch_python ]] || { echo "no python with torch found"; return 1; }
  clean_python "$root/scripts/torch_reference.py" measure --gemm "${gemm_shapes[@]}" \
    --layer llama3.1-8b llama3.1-70b --out "$work/torch.json"
}

# The main job on a GPU: one measured layer at the preset's layout, the cluster projected from it.
step_pretrain_8b() { "$dgx" --plugin llama8b --mode measure --set runner.max_time=8 -o "$work/pretrain-8b.json"; }

step_memcheck() {
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  [[ -n $sanitizer ]] || { echo "compute-sanitizer not found: skipped"; return 0; }
  "$sanitizer" --tool memcheck --error-exitcode 99 "$stage/tests/bin/llm_kernels_gpu_tests" -tc="$memcheck_tests"
}

# Fine-tuning's measured path: the LoRA layer (frozen base, rank-16 adapter on QKV, samples of 512 tokens packed
# into 4096) and the frozen layer alone, then the cluster projected from the measured ops.
step_finetune_8b() {
  "$dgx" --plugin llama8b-lora --mode measure --set 'precision=["bf16"]' --set runner.max_time=4 \
    -o "$work/finetune-8b.json"
}

step_torch_lora() {
  [[ -n $torch_python ]] || { echo "no python with torch found"; return 1; }
  clean_python "$root/scripts/torch_reference.py" measure --gemm --layer --lora llama3.1-8b --out "$work/torch-lora.json"
}

# A whole model decoding on this GPU: one CUDA graph per batch size, TPOT, tokens/s and MBU per row.
decode_loop() {
  local batches
  batches=$(printf '%s,' "${decode_batches[@]}")
  "$dgx" --plugin llm-inference:llm-decode --set "model=$1" --set "precision=$2" --set "decode.batches=[${batches%,}]" \
    --set "decode.context=$decode_context" --set runner.max_time=0.5 --set runner.min_time=0.1 -o "$work/$3"
}
step_decode_70b() { decode_loop llama3.1-70b fp8 decode-70b.json; }
step_decode_8b() { decode_loop llama3.1-8b bf16 decode-8b.json; }

step_torch_decode() {
  [[ -n $torch_python ]] || { echo "no python with torch found"; return 1; }
  clean_python "$root/scripts/torch_decode_reference.py" --model llama3.1-8b --batches "${decode_batches[@]}" \
    --context "$decode_context" --out "$work/torch-decode.json"
}

# llama70b-serve on a GPU: the configuration's decode and chunk iterations of one layer at TP2's per-rank shapes
# (measured), the replica projected from them.
step_serve_70b() { "$dgx" --plugin llama70b-serve --mode measure --set runner.max_time=2 -o "$work/serve-70b.json"; }

# One GPU: bus bandwidth is 0 by definition; this only shows that the NCCL path initialises and runs.
step_comm() {
  "$dgx" --plugin all_reduce --set comm.transport=nccl -b 1K -e 16M -f 16 --set runner.max_time=0.5 -o "$work/comm.json"
}

# ---------------------------------------------------------------------------------------------------------------
# Running the steps

failures=0

# run_step NAME LIMIT FUNCTION: runs FUNCTION with its own time limit (killed 10 s after it) and its own cuDNN log.
run_step() {
  local name=$1 limit=$2 fn=$3
  local left=$((deadline - SECONDS))
  if ((left < 5)); then
    record "$name" skipped 0 "skipped: the run's budget of ${DGX_DEVICE_BUDGET:-420} s is spent"
    return
  fi
  ((limit > left)) && limit=$left
  echo "== $name (limit $limit s)"
  local started=$SECONDS rc
  # The step runs in a fresh copy of this script, so that timeout can kill it and everything it started.
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$work/logs/$name.cudnn.log" timeout -k 10 "$limit" \
    "$root/scripts/device-check.sh" step "$fn" >"$work/logs/$name.log" 2>&1
  rc=$?
  trim_log "$work/logs/$name.cudnn.log"
  local took=$((SECONDS - started))
  if ((rc == 0)); then
    record "$name" ok "$took" "ok"
  else
    failures=$((failures + 1))
    local why="exit $rc"
    ((rc == 124 || rc == 137)) && why="timed out after $limit s"
    record "$name" failed "$took" "FAILED ($why)"
    echo "-- $name failed ($why); the end of logs/$name.log:"
    tail -n 20 "$work/logs/$name.log"
  fi
  refresh_outputs
}

# A cuDNN debug log can grow large: keep its first and last MiB.
trim_log() {
  local file=$1
  [[ -f $file ]] || return 0
  if (($(stat -c %s "$file") > 2 * 1048576)); then
    { head -c 1048576 "$file"; printf '\n[... trimmed by device-check.sh ...]\n'; tail -c 1048576 "$file"; } >"$file.trim"
    mv "$file.trim" "$file"
  fi
  [[ -s $file ]] || rm -f "$file"
}

record() {
  printf '%-12s %-8s %4s s  %s\n' "$1" "$2" "$3" "$4" >>"$work/steps.txt"
}

# The summary so far (what the steps have written), the six small files and the archive, after every step.
refresh_outputs() {
  local layers=()
  [[ -f $work/layer-8b.json ]] && layers+=("llama3.1-8b=$work/layer-8b.json")
  [[ -f $work/layer-70b.json ]] && layers+=("llama3.1-70b=$work/layer-70b.json")
  local decodes=()
  [[ -f $work/decode-8b.json ]] && decodes+=("llama3.1-8b=$work/decode-8b.json")
  [[ -f $work/decode-70b.json ]] && decodes+=("llama3.1-70b=$work/decode-70b.json")
  clean_python "$root/scripts/torch_reference.py" summarize --gemm "$work/gemm.json" --layer "${layers[@]}" \
    --torch "$work/torch.json" --lora "llama3.1-8b=$work/finetune-8b.json" --torch-lora "$work/torch-lora.json" \
    --decode "${decodes[@]}" --torch-decode "$work/torch-decode.json" --serve "$work/serve-70b.json" \
    --gpu-csv "$work/gpu.csv" --commit "$commit" --date "$date" \
    --steps "$work/steps.txt" --out "$work/summary.json" >"$work/summary.txt" 2>&1
  cp "$work/steps.txt" "$OUT/steps.txt"
  local f
  for f in summary.txt summary.json gemm.json layer-70b.json decode-70b.json; do
    [[ -f $work/$f ]] && cp "$work/$f" "$OUT/$f"
  done
  tar -czf "$OUT/device-check.tgz.tmp" -C "$work" . && mv "$OUT/device-check.tgz.tmp" "$OUT/device-check.tgz"
  cp "$work/console.log" "$OUT/console.log"
}

run() {
  OUT=${OUT:-$root/device-out}
  mkdir -p "$OUT"
  work=$(mktemp -d "${TMPDIR:-/tmp}/device-check.XXXXXX")
  mkdir -p "$work/logs"
  : >"$work/steps.txt"
  deadline=$((SECONDS + ${DGX_DEVICE_BUDGET:-420}))
  exec 3>&1 4>&2 > >(tee -a "$work/console.log") 2>&1
  local tee_pid=$!
  if [[ ! -x $stage/bin/dgxhost ]]; then
    echo "no staged build in $stage: run 'scripts/device-check.sh prepare' on the build machine and carry it"
    exit 1
  fi
  chmod -R go-w "$stage" 2>/dev/null || true  # dgxhost refuses plugins writable by others
  commit=$(cat "$stage/commit.txt" 2>/dev/null || echo unknown)
  date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  dgx=$stage/bin/dgxhost
  export dgx work
  export torch_python=""
  echo "== device check of $commit, $date"
  locate_libraries >"$work/libraries.txt" 2>&1
  cat "$work/libraries.txt"
  local entry name limit fn
  for entry in "${STEPS[@]}"; do
    read -r name limit fn <<<"$entry"
    if [[ -n ${DGX_DEVICE_STEPS:-} && " $DGX_DEVICE_STEPS " != *" $name "* ]]; then continue; fi
    run_step "$name" "$limit" "$fn"
  done

  echo
  echo "== steps"
  cat "$work/steps.txt"
  echo "== GPU tests"
  grep -E '^\[doctest\] (test cases|assertions)' "$work/logs/gpu-tests.log" || true
  echo "== summary ($date, commit $commit)"
  cat "$work/summary.txt"
  exec 1>&3 2>&4 3>&- 4>&-  # let tee finish the console log before the last copy
  wait "$tee_pid" 2>/dev/null
  refresh_outputs
  echo "device check: $failures failed step(s); outputs in $OUT, working files in $work"
  exit "$failures"
}

# `step FUNCTION`: one step, run by run_step in a fresh process (dgx, work, torch_python, LD_LIBRARY_PATH come
# through the environment).
one_step() {
  local fn=$1 entry
  for entry in "${STEPS[@]}"; do
    if [[ $(awk '{print $3}' <<<"$entry") == "$fn" ]]; then
      "$fn"
      return
    fi
  done
  echo "unknown step function: $fn" >&2
  return 2
}

case ${1:-run} in
prepare) prepare ;;
run) run ;;
step) one_step "${2:-}" ;;
list) for entry in "${STEPS[@]}"; do awk '{print $1}' <<<"$entry"; done ;;
*) echo "usage: $0 [prepare|run|list]" >&2; exit 2 ;;
esac
