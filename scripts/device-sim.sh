#!/usr/bin/env bash
# Runs scripts/device-check.sh here, without a GPU, in the GPU machine's library layout, and checks that every
# step fails the way it must without a device: dgxhost with the clean "no CUDA device" (exit 4), never a loader
# error; PyTorch started with a clean environment; what comes back within the 8-file limit of the device tool.
#
#   scripts/device-check.sh prepare && scripts/device-sim.sh
#
# The layout, in a private mount namespace (unshare -m; needs root):
# - /usr/local/cuda holds the toolkit only: its cuDNN and NCCL are hidden, and the loader's cache no longer lists
#   it (on the GPU machine nothing there is found without LD_LIBRARY_PATH);
# - a python (a venv first on PATH) holds "torch" (a stand-in that sees no GPU and, like the real one, breaks when
#   LD_LIBRARY_PATH points at system CUDA libraries) and the wheels' libraries under site-packages/nvidia/
#   {cu13,cudnn,nccl}/lib (hard links of the toolkit's files);
# - nvidia-smi is a stand-in that prints a card named "simulated".
# Exit code: the number of failed checks. DGX_SIM_KEEP=1 keeps the simulation folder.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
stage=${DGX_DEVICE_STAGE:-$root/build/device-stage}
toolkit_lib=$(readlink -f /usr/local/cuda)/lib
[[ -d $toolkit_lib ]] || toolkit_lib=$(readlink -f /usr/local/cuda)/lib64

if [[ $(id -u) -ne 0 ]]; then echo "device-sim: needs root (unshare -m, bind mounts)"; exit 2; fi
if [[ ! -x $stage/bin/dgxhost ]]; then echo "device-sim: no stage in $stage; run scripts/device-check.sh prepare"; exit 2; fi
if [[ ! -d $toolkit_lib ]]; then echo "device-sim: no CUDA toolkit libraries under /usr/local/cuda"; exit 2; fi

sim=$(mktemp -d "${TMPDIR:-/tmp}/device-sim.XXXXXX")
[[ ${DGX_SIM_KEEP:-0} == 1 ]] || trap 'rm -rf "$sim"' EXIT
echo "== simulation folder $sim"

# The python with torch and the wheels.
python3 -m venv --without-pip "$sim/venv" || exit 2
site=$("$sim/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$site/torch" "$site/nvidia/cu13/lib" "$site/nvidia/cudnn/lib" "$site/nvidia/nccl/lib"
cat >"$site/torch/__init__.py" <<'EOF'
"""A stand-in for PyTorch in scripts/device-sim.sh: no GPU, and the real wheel's fragility."""
import os

if os.environ.get("LD_LIBRARY_PATH"):
    raise ImportError("device-sim torch: LD_LIBRARY_PATH is set (" + os.environ["LD_LIBRARY_PATH"] +
                      "); system CUDA libraries would shadow the wheels' (run PyTorch with a clean environment)")
__version__ = "0.0+device-sim"


class version:
    cuda = None


class cuda:
    @staticmethod
    def is_available():
        return False
EOF
link() {  # link DEST PATTERN...: hard links (or copies) of the toolkit's files matching the patterns, links kept
  local dest=$1 pattern
  shift
  for pattern in "$@"; do
    find "$toolkit_lib" -maxdepth 1 -name "$pattern" -exec cp -a -l {} "$dest/" \; 2>/dev/null ||
      find "$toolkit_lib" -maxdepth 1 -name "$pattern" -exec cp -a {} "$dest/" \;
  done
}
link "$site/nvidia/cu13/lib" 'libcudart.so*' 'libcublas.so*' 'libcublasLt.so*' 'libnvrtc*.so*'
link "$site/nvidia/cudnn/lib" 'libcudnn*.so*'
link "$site/nvidia/nccl/lib" 'libnccl.so*'

# The toolkit without cuDNN and NCCL, and a loader cache without /usr/local/cuda.
mkdir -p "$sim/toolkit-lib"
find "$toolkit_lib" -maxdepth 1 -mindepth 1 ! -name 'libcudnn*' ! -name 'libnccl*' -exec cp -a -l {} "$sim/toolkit-lib/" \; \
  2>/dev/null || find "$toolkit_lib" -maxdepth 1 -mindepth 1 ! -name 'libcudnn*' ! -name 'libnccl*' \
  -exec cp -a {} "$sim/toolkit-lib/" \;
cat /etc/ld.so.conf.d/*.conf 2>/dev/null | grep -v -i cuda | grep -v '^include' >"$sim/ld.so.conf"
ldconfig -C "$sim/ld.so.cache" -f "$sim/ld.so.conf" 2>/dev/null

mkdir -p "$sim/bin"
cat >"$sim/bin/nvidia-smi" <<'EOF'
#!/bin/sh
# device-sim's nvidia-smi: a card that is not there.
case "$*" in
*--query-gpu*) echo "name, driver_version, memory.total [MiB], clocks.max.sm [MHz], clocks.max.mem [MHz], power.limit [W]"
               echo "simulated, 0.0, 0 MiB, 0 MHz, 0 MHz, 0 W" ;;
*) echo "NVIDIA-SMI (device-sim): no GPU; the library layout of the GPU machine is simulated" ;;
esac
EOF
chmod +x "$sim/bin/nvidia-smi"

echo "== scripts/device-check.sh run in the GPU machine's layout"
out=$sim/out
unshare -m --propagation private env -u LD_LIBRARY_PATH OUT="$out" DGX_DEVICE_BUDGET="${DGX_DEVICE_BUDGET:-420}" \
  PATH="$sim/venv/bin:$sim/bin:$PATH" DGX_SIM_TOOLKIT_LIB="$toolkit_lib" DGX_SIM="$sim" bash -c '
    mount --bind "$DGX_SIM/toolkit-lib" "$DGX_SIM_TOOLKIT_LIB" && mount --bind "$DGX_SIM/ld.so.cache" /etc/ld.so.cache ||
      { echo "device-sim: bind mounts failed"; exit 97; }
    '"'$root/scripts/device-check.sh'"' run'
echo "== device-check.sh exit code: $?"

# ---------------------------------------------------------------------------------------------------------------
failed=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "PASS  $what"; else echo "FAIL  $what"; failed=$((failed + 1)); fi
}
mkdir -p "$sim/archive"
tar -xzf "$out/device-check.tgz" -C "$sim/archive" 2>/dev/null
status_of() { awk -v s="$1" '$1 == s {$1 = ""; $3 = ""; $4 = ""; sub(/^ +/, ""); print}' "$out/steps.txt"; }
no_device_step() {
  local name=$1 log=$sim/archive/logs/$1.log
  [[ $(status_of "$name") == *"FAILED (exit 4)"* ]] && grep -q -i "no CUDA device" "$log"
}
for name in gemm layer-70b layer-8b pretrain-8b comm finetune-8b decode-70b decode-8b serve-70b; do
  check "$name: dgxhost exits 4 with \"no CUDA device\"" no_device_step "$name"
done
check "torch: PyTorch (clean environment) exits 4 with \"no CUDA device\"" no_device_step torch
check "torch-lora: PyTorch (clean environment) exits 4 with \"no CUDA device\"" no_device_step torch-lora
check "torch-decode: PyTorch (clean environment) exits 4 with \"no CUDA device\"" no_device_step torch-decode
check "gpu-tests: the GPU test binary runs and skips" grep -q 'SKIPPED: no CUDA device' "$sim/archive/logs/gpu-tests.log"
check "gpu-tests: step ok" bash -c "[[ '$(status_of gpu-tests)' == ok* ]]"
check "no log shows a loader error" bash -c "! grep -r -l -E 'cannot open shared object file|error while loading shared libraries|rejected' '$sim/archive/logs'"
check "cuDNN comes from the wheel" grep -q "libcudnn.so.9: $site/nvidia/cudnn/lib" "$sim/archive/libraries.txt"
check "NCCL comes from the wheel" grep -q "libnccl.so.2: $site/nvidia/nccl/lib" "$sim/archive/libraries.txt"
check "cuBLASLt comes from the wheel, not the toolkit" grep -q "libcublasLt.so.13: $site/nvidia/cu13/lib" "$sim/archive/libraries.txt"
for name in $("$root/scripts/device-check.sh" list); do
  check "$name has a status line" bash -c "awk '{print \$1}' '$out/steps.txt' | grep -q -x -- '$name'"
done
count=$(find "$out" -type f | wc -l)
depth=$(find "$out" -type f | sed "s|^$out/||" | awk -F/ '{print NF}' | sort -n | tail -1)
check "at most 8 files come back ($count)" test "$count" -le 8
check "none deeper than 2 folders (deepest: $depth)" test "${depth:-0}" -le 3
for f in device-check.tgz console.log steps.txt summary.txt summary.json; do
  check "$f is in \$OUT" test -s "$out/$f"
done
check "summary.json names the commit measured" python3 -c "
import json, sys
s = json.load(open('$out/summary.json'))
sys.exit(0 if s.get('commit') not in (None, '', 'unknown') and s.get('card', {}).get('name') == 'simulated' else 1)"
check "the console log has the final step table" grep -q '== steps' "$out/console.log"
echo "== device-sim: $failed failed check(s)"
exit "$failed"
