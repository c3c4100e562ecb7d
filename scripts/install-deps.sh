#!/usr/bin/env bash
# Installs, from Debian 12 packages, whatever the dgxhost build and tests need and this machine lacks (Slurm and
# munge are for the multi-node path and its test; Chart.js is compiled into the HTML report, and headless Chromium
# opens that report in its test; python3-yaml and python3-jsonschema validate the Kubernetes manifests of `dgxhost
# launch` against the MPI Operator's CRD; xmllint (libxml2-utils) validates the JUnit report and promtool (in
# Debian's prometheus package, which also brings a server that is not started here) checks the Prometheus one, as
# their users' tools would; clang-format and clang-tidy are for the style checks, scripts/lint.sh, run by .ci/run;
# lld links faster than the default linker (CMakeLists.txt uses it where present);
# SQLite and libpq are the results store's backends, and its tests start a PostgreSQL server of their own).
# Idempotent: a machine that has everything installs nothing. The CUDA toolkit is not a Debian package: it is used
# from /usr/local/cuda when present, and the build simply leaves the CUDA plugins out when it is not.
set -euo pipefail

packages=(
  cmake ninja-build g++ git pkg-config ccache lld
  clang-format-16 clang-tidy
  libboost-dev libboost-program-options-dev
  libtomlplusplus-dev nlohmann-json3-dev doctest-dev
  libopenmpi-dev openmpi-bin
  slurm-wlm munge
  libjs-chart.js chromium
  python3-yaml python3-jsonschema
  libsqlite3-dev sqlite3 libpq-dev postgresql
  libxml2-utils prometheus
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
