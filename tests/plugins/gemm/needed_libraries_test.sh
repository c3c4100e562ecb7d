#!/usr/bin/env bash
# needed_libraries_test.sh LIBRARY REQUIRED FORBIDDEN: the shared libraries LIBRARY names in its dynamic section
# (DT_NEEDED) include REQUIRED and nothing matching FORBIDDEN. Pins down that a plugin loads without a library
# it does not use (the gemm plugin without libcudnn, whose absence would otherwise reject it at dlopen).
set -euo pipefail
library=$1 required=$2 forbidden=$3
needed=$(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "$library needs: $(echo "$needed" | tr '\n' ' ')"
if ! grep -q -- "$required" <<<"$needed"; then
  echo "FAIL: $required is not among its needed libraries"
  exit 1
fi
if grep -q -- "$forbidden" <<<"$needed"; then
  echo "FAIL: it needs $(grep -- "$forbidden" <<<"$needed" | tr '\n' ' ')"
  exit 1
fi
