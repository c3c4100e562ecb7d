#!/usr/bin/env bash
# The style checks CI runs (.ci/run), also usable by hand:
#
#   scripts/lint.sh format          clang-format --dry-run -Werror (.clang-format) on every tracked C, C++ and
#                                   CUDA source; fails naming each file that differs. `format --fix` rewrites them.
#                                   The brace style (every if/else/for/while body in braces) is part of the format:
#                                   InsertBraces needs clang-format 15 or later, so this runs Debian's
#                                   clang-format-16 (DGX_CLANG_FORMAT overrides); clang-format 14 cannot read the file.
#   scripts/lint.sh layers          the host's folders keep their dependency order (DGX_CORE_LAYERS in
#                                   core/CMakeLists.txt): no #include "dgx/core/<folder>/..." in core/src/<folder> or
#                                   core/include/dgx/core/<folder> names a folder above its own, no private header is
#                                   reached from another folder, no CUDA header is included; fails naming file:line
#                                   and both folders. And the host knows no model: no line of core/ names a model
#                                   family (Llama, DeepSeek, Qwen, ...): what it must know of a model is the
#                                   catalog's data (libs/catalog, configs/models) or a plugin's declaration.
#   scripts/lint.sh tidy [BUILD]    clang-tidy (.clang-tidy) on the C++ sources of BUILD's compile_commands.json
#                                   (default build/default), in parallel; fails on any warning or error.
#
# clang-tidy takes 10-50 s of CPU per file here (most of it in headers), too long for every file on every CI run on
# 2 cores (the whole tree, ~220 files, takes about 90 minutes there). So it has a budget (DGX_TIDY_BUDGET seconds,
# default 100): files are checked most recently changed first (git log), so what a change touches is checked on its
# CI run, until the budget is spent, and the script says how many it left out. DGX_TIDY_BUDGET=0 checks everything
# (do that by hand, or on a larger machine, before a release). The default was 420 until .ci/run gained the
# ASan+UBSan and fuzz stages (a second full build), then 180 until the store and serving code of issues 26-27 grew
# both builds: 100 s checks the dozen files a typical change touches and keeps CI within its 30 minutes.
# DGX_TIDY_LOGS=DIR keeps each file's full clang-tidy output there (the summary shows 40 lines per file).
set -euo pipefail
cd "$(dirname "$0")/.."

sources() { git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh' ':!:*/third_party/*'; }

clang_format=${DGX_CLANG_FORMAT:-clang-format-16}

format() {
  if [[ ${1:-} == --fix ]]; then
    sources | xargs "$clang_format" -i
    echo "lint: clang-format applied to $(sources | wc -l) files"
    return
  fi
  local bad
  # clang-format exits non-zero on the first difference: collect every file, then decide.
  bad=$(sources | xargs "$clang_format" --dry-run -Werror 2>&1 |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u || true)
  if [[ -n $bad ]]; then
    echo "lint: these files differ from .clang-format (scripts/lint.sh format --fix rewrites them):"
    sed 's/^/  /' <<<"$bad"
    return 1
  fi
  echo "lint: $(sources | wc -l) files match .clang-format"
}

# The host's layering: every file under core/src and core/include/dgx/core belongs to a folder of DGX_CORE_LAYERS
# (core/CMakeLists.txt, lowest first) and includes only headers of its own folder or of folders below it.
layers() {
  local order
  order=$(sed -n 's/^set(DGX_CORE_LAYERS \(.*\))$/\1/p' core/CMakeLists.txt)
  [[ -n $order ]] || { echo "lint: no set(DGX_CORE_LAYERS ...) in core/CMakeLists.txt"; return 2; }
  git ls-files --cached --others --exclude-standard -- 'core/*.h' 'core/*.hpp' 'core/*.c' 'core/*.cpp' |
    python3 -c "$LAYERS_CHECK" "$order"
}

# shellcheck disable=SC2016
LAYERS_CHECK='
import os, re, sys
order = sys.argv[1].split()
rank = {folder: i for i, folder in enumerate(order)}
chain = " < ".join(order)
include = re.compile(r"^\s*#\s*include\s*([<\"])([^\">]+)[\">]")
cuda = re.compile(r"^(cuda|cublas|cudnn|cufft|curand|cusparse|cusolver|nccl|nvml|nvrtc|thrust/|cub/)")
family = re.compile(r"llama|deepseek|qwen|mixtral|nemotron|gpt-oss|kimi|glm-|minimax", re.I)
problems, checked = [], 0
for path in sys.stdin.read().split():
    if not os.path.exists(path):  # deleted in the work tree, not yet in the index
        continue
    parts = path.split("/")
    if parts[:2] == ["core", "src"] and len(parts) > 3:
        own = parts[2]
    elif parts[:4] == ["core", "include", "dgx", "core"] and len(parts) > 5:
        own = parts[4]
    elif parts[:2] in (["core", "src"], ["core", "include"]):
        problems.append(f"{path}: outside the folders of core/ ({chain})")
        continue
    else:
        own = None  # core/main.cpp: above every folder
    if own is not None and own not in rank:
        problems.append(f"{path}: the folder {own} is not in DGX_CORE_LAYERS ({chain})")
        continue
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if family.search(line):
                problems.append(f"{path}:{number}: names a model family; the host knows no model (the catalog does)")
            m = include.match(line)
            if not m:
                continue
            checked += 1
            target, where = m.group(2), f"{path}:{number}"
            if m.group(1) == "<":
                if cuda.match(target):
                    problems.append(f"{where}: includes <{target}>, a CUDA header: the host never does")
                continue
            if target.startswith("../") or "/../" in target:
                problems.append(f"{where}: includes {target}: a private header is included from its own folder only")
                continue
            if not target.startswith("dgx/core/"):
                continue  # a private header beside the file: the compiler finds none of another folder
            folder = target.split("/")[2] if target.count("/") >= 3 else None
            if folder not in rank:
                problems.append(f"{where}: includes {target}, which is in no folder of DGX_CORE_LAYERS ({chain})")
            elif own is not None and rank[folder] > rank[own]:
                problems.append(f"{where}: {own} includes {target}, but {folder} is above {own} ({chain})")
if problems:
    print("lint: core/ against its layer order, or naming a model:")
    print("\n".join("  " + p for p in problems))
    sys.exit(1)
print(f"lint: {checked} includes in core/ follow the layer order {chain}")
'

# BUILD's compile database with each unity-build batch (cmake/DgxUnityBuild.cmake) replaced by the files it includes,
# each with the batch's command, so that clang-tidy checks every file on its own. Writes DIR/compile_commands.json.
expanded_database() {
  python3 - "$1/compile_commands.json" "$2/compile_commands.json" <<'EOF'
import json, re, sys
entries = []
for entry in json.load(open(sys.argv[1])):
    unity = entry["file"]
    if "/Unity/unity_" not in unity:
        entries.append(entry)
        continue
    for source in re.findall(r'^#include "([^"]+)"', open(unity).read(), flags=re.M):
        expanded = dict(entry, file=source)
        if "command" in expanded:
            expanded["command"] = expanded["command"].replace(unity, source)
        if "arguments" in expanded:
            expanded["arguments"] = [source if a == unity else a for a in expanded["arguments"]]
        entries.append(expanded)
json.dump(entries, open(sys.argv[2], "w"), indent=1)
EOF
}

# C++ translation units in the compile database in DIR, by most recent change.
tidy_order() {
  local database=$1
  local units
  units=$(python3 - "$database/compile_commands.json" <<'EOF'
import json, os, sys
root = os.getcwd()
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), root)
    if path.endswith(".cpp") and not path.startswith(("..", "build")) and path not in seen:
        seen.add(path)
        print(path)
EOF
  )
  # Most recently changed first (files git log does not name come last).
  { git log --name-only --format= -- $units 2>/dev/null | awk 'NF && !seen[$0]++'; echo "$units"; } |
    awk 'NF && !seen[$0]++' | grep -x -F -f <(echo "$units") || true
}

tidy() {
  local build=${1:-build/default}
  [[ -f $build/compile_commands.json ]] || { echo "lint: no $build/compile_commands.json (build first)"; return 2; }
  local tidy_exe
  tidy_exe=$(command -v clang-tidy || command -v clang-tidy-14) || { echo "lint: clang-tidy not found"; return 2; }
  local budget=${DGX_TIDY_BUDGET:-100} started=$SECONDS jobs=${JOBS:-2}
  local files=() file checked=0 failed=0 left=0 rc database
  database=$(mktemp -d)
  expanded_database "$build" "$database"
  mapfile -t files < <(tidy_order "$database")
  local log=${DGX_TIDY_LOGS:-}
  if [[ -n $log ]]; then mkdir -p "$log"; else log=$(mktemp -d); fi
  # Batches of `jobs` files in parallel, until the budget is spent.
  local i=0
  while ((i < ${#files[@]})); do
    local batch=("${files[@]:i:jobs}")
    if ((budget > 0 && SECONDS - started > budget)); then
      left=$((${#files[@]} - i))
      break
    fi
    local pids=() f
    for f in "${batch[@]}"; do
      "$tidy_exe" -p "$database" --quiet "$f" >"$log/$(tr / _ <<<"$f").log" 2>&1 &
      pids+=($!)
    done
    # A file fails on any finding, and also when clang-tidy itself fails (a crash, a file it cannot parse).
    local rcs=() j
    for pid in "${pids[@]}"; do
      rc=0
      wait "$pid" || rc=$?
      rcs+=("$rc")
    done
    for j in "${!batch[@]}"; do
      f=${batch[j]}
      local out=$log/$(tr / _ <<<"$f").log
      if grep -q -E '(warning|error): ' "$out"; then
        failed=$((failed + 1))
        grep -E -A3 '(warning|error): ' "$out" | head -n 40
      elif ((rcs[j] != 0)); then
        failed=$((failed + 1))
        echo "lint: clang-tidy exited with ${rcs[j]} on $f:"
        tail -n 20 "$out"
      fi
      checked=$((checked + 1))
    done
    i=$((i + jobs))
  done
  [[ -n ${DGX_TIDY_LOGS:-} ]] || rm -rf "$log"
  rm -rf "$database"
  local note=""
  ((left > 0)) && note="; $left files left out by the ${budget} s budget (DGX_TIDY_BUDGET=0 checks all)"
  echo "lint: clang-tidy checked $checked files in $((SECONDS - started)) s, $failed with findings$note"
  ((failed == 0))
}

case ${1:-} in
format) shift; format "$@" ;;
layers) shift; layers "$@" ;;
tidy) shift; tidy "$@" ;;
*) echo "usage: $0 format [--fix] | layers | tidy [BUILD]" >&2; exit 2 ;;
esac
