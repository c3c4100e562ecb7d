#!/bin/sh
# A stand-in for kubectl in launch_cli_test.cpp: no Kubernetes cluster (nor the MPI Operator) can run where the
# tests run. It records every call, one line each, in $FAKE_KUBECTL_DIR/calls and answers from the files of that
# folder as kubectl prints them:
#   apply -f FILE    copies FILE to applied.yaml and prints apply.out
#   get mpijob ...   prints get.1.json on the first call, get.2.json on the second, ... then the last one again
#   logs ...         prints logs.txt
# A missing answer file fails the call as kubectl fails, with a message on stderr and exit code 1.
set -eu
dir=${FAKE_KUBECTL_DIR:?}
echo "$*" >> "$dir/calls"
case "$1" in
apply)
  cp "$3" "$dir/applied.yaml"
  cat "$dir/apply.out"
  ;;
get)
  n=$(grep -c '^get ' "$dir/calls")
  while [ "$n" -gt 1 ] && [ ! -f "$dir/get.$n.json" ]; do n=$((n - 1)); done
  cat "$dir/get.$n.json"
  ;;
logs)
  cat "$dir/logs.txt"
  ;;
*)
  echo "error: unknown command \"$1\" for \"kubectl\"" >&2
  exit 1
  ;;
esac
