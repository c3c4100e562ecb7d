#!/usr/bin/env bash
# A real single-node Slurm cluster in a private folder, for tests: munged, slurmctld and slurmd from Debian's
# slurm-wlm and munge packages, configured with MpiDefault=pmix, started and stopped by the test.
#
#   local-slurm.sh start DIR   # prints the SLURM_CONF to export; waits until the node is idle
#   local-slurm.sh stop DIR
#
# Needs root (slurmd launches jobs as their user) and the packages slurm-wlm, munge; exits 77 ("skip") when a
# requirement is missing, so the calling test can report a visible skip.
set -euo pipefail
action=${1:?start|stop}
dir=$(realpath -m "${2:?directory}")

stop() {
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
    fi
  done
  sleep 0.5
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      kill -9 "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
      rm -f "$dir/$daemon.pid"
    fi
  done
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi

for tool in munged slurmctld slurmd sinfo srun sbatch; do
  command -v "$tool" >/dev/null || { echo "local-slurm: $tool not found (install slurm-wlm and munge)" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "local-slurm: slurmd must run as root" >&2; exit 77; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
  echo $(( 20000 + RANDOM % 20000 )); }

mkdir -p "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir"
host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))

dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge.seed"

cat > "$dir/slurm.conf" <<CONF
ClusterName=dgxtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
ReturnToService=2
KillWait=5
InactiveLimit=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

export SLURM_CONF="$dir/slurm.conf"
slurmctld -i
slurmd
for _ in $(seq 1 60); do
  if sinfo -h -o "%t" 2>/dev/null | grep -q -E "idle|mix"; then
    echo "$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "local-slurm: the node did not become idle; logs in $dir/log" >&2
stop
exit 1
