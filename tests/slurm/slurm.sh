#!/usr/bin/env bash
# A one-host Slurm cluster for the tests: munged, slurmctld and slurmd, all
# run as root from a folder of their own, independent of any system munge or
# Slurm service (own key, own munge socket, own ports, own slurm.conf).
#
# Usage: slurm.sh up DIR     start it; returns once sinfo shows the node idle
#        slurm.sh down DIR   cancel the jobs, stop the daemons `up` started
#        slurm.sh env DIR    print the SLURM_CONF=... line clients need
#
# Clients (srun, sinfo, salloc) find the cluster through SLURM_CONF=DIR/slurm.conf,
# and munge's socket through AuthInfo in that file. Exits 77 (ctest's SKIP)
# when not run as root or when the Debian packages (slurmctld slurmd
# slurm-client munge; mpi_pmix.so is in slurm-wlm-basic-plugins) are missing.
set -uo pipefail

readonly SKIP=77
readonly PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
readonly UP_TIMEOUT=${FERRY_SLURM_UP_TIMEOUT:-30}

die() { echo "slurm.sh: $*" >&2; exit 1; }
skip() { echo "slurm.sh: SKIPPED: $*"; exit "$SKIP"; }

[[ $# -eq 2 ]] || { echo "usage: slurm.sh up|down|env DIR" >&2; exit 2; }
action=$1
if [[ $action == up ]]; then
  [[ $(id -u) -eq 0 ]] || skip "the test cluster runs its daemons as root"
  for tool in munged mungekey slurmctld slurmd srun sinfo squeue scancel; do
    command -v "$tool" >/dev/null 2>&1 ||
      skip "$tool not found (apt-get install slurmctld slurmd slurm-client munge)"
  done
  [[ -e $PLUGIN_DIR/mpi_pmix.so ]] || skip "$PLUGIN_DIR/mpi_pmix.so not found (slurm-wlm-basic-plugins)"
fi
mkdir -p "$2" || die "cannot create $2"
dir=$(cd "$2" && pwd -P)
conf=$dir/slurm.conf
export SLURM_CONF=$conf

# The pid in FILE, if that process still runs.
live_pid() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Stops the processes in the pid files FILE...: SIGTERM to all at once, then
# SIGKILL to those still running after 5 s.
stop_pidfiles() {
  local file pid pids=() i
  for file in "$@"; do
    pid=$(live_pid "$file") && pids+=("$pid") && kill -TERM "$pid" 2>/dev/null
  done
  for ((i = 0; i < 50; i++)); do
    local alive=()
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && alive+=("$pid")
    done
    pids=("${alive[@]}")
    [[ ${#pids[@]} -eq 0 ]] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do
    kill -KILL "$pid" 2>/dev/null
  done
  rm -f "$@"
}

# A TCP port nobody listens on, other than EXCEPT, picked at random below
# Linux's ephemeral range (32768-60999) so that no client socket takes it.
free_port() {
  local except=${1:-0} port tries
  for ((tries = 0; tries < 100; tries++)); do
    port=$((12000 + RANDOM % 20000))
    [[ $port -eq $except ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "no free TCP port found"
}

down() {
  [[ -f $conf ]] || return 0
  # Jobs first, while slurmctld and slurmd can still end their steps.
  if live_pid "$dir/slurmctld.pid" >/dev/null; then
    scancel --full --quiet --user=root 2>/dev/null
    local i
    for ((i = 0; i < 50; i++)); do
      # squeue's default states: pending, running, completing.
      [[ -z $(squeue --noheader --user=root 2>/dev/null) ]] && break
      sleep 0.1
    done
  fi
  # All at once: each takes about 2 s to notice SIGTERM.
  stop_pidfiles "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"
}

write_conf() {
  local host=$1 cpus=$2 ctld_port slurmd_port
  ctld_port=$(free_port) || exit 1
  slurmd_port=$(free_port "$ctld_port") || exit 1
  cat >"$conf" <<EOF
# Written by tests/slurm/slurm.sh: a one-host cluster for Ferry's tests.
ClusterName=ferrytest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job may start again that long after it ended
# (default 120 s; slurm.requeue_restores waits for it).
AuthInfo=socket=$dir/munge.sock,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# A container has no usable cgroup hierarchy: track processes through /proc.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
# No mail from a test cluster (and no error about a missing mail program).
MailProg=/bin/true
SchedulerType=sched/builtin
# A requeued job whose begin time has come starts at the next pass (default
# every 60 s).
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# Quick to end a job whose rank aborted or died.
KillWait=5
InactiveLimit=0
MinJobAge=30
# Slurm takes CPUs= as given instead of what the machine has, so that tests
# with more ranks than cores fit on a small VM.
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
}

up() {
  down
  rm -rf "$dir/state" "$dir/spool"
  rm -f "$dir"/*.log "$dir/munge.sock" "$dir/munge.sock.lock"
  mkdir -p "$dir/state" "$dir/spool" || die "cannot create $dir/state, $dir/spool"
  # munged refuses a key or socket folder that others may write to.
  chmod 0755 "$dir"

  local host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  ((cpus < 8)) && cpus=8
  write_conf "$host" "$cpus"

  [[ -f $dir/munge.key ]] || mungekey --create --keyfile="$dir/munge.key" || die "mungekey failed"
  chmod 0400 "$dir/munge.key"
  munged --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" </dev/null >/dev/null 2>&1 ||
    die "munged did not start; $dir/munged.log says: $(tail -n 3 "$dir/munged.log" 2>/dev/null)"

  # Daemonized (no -D): they leave ctest's output pipe, and write pid files.
  slurmctld -c -f "$conf" </dev/null >/dev/null 2>&1 ||
    { down; die "slurmctld did not start; see $dir/slurmctld.log"; }
  slurmd -f "$conf" -N "$host" </dev/null >/dev/null 2>&1 ||
    { down; die "slurmd did not start; see $dir/slurmd.log"; }

  local waited state=""
  for ((waited = 0; waited < UP_TIMEOUT * 10; waited++)); do
    state=$(sinfo --noheader --nodes="$host" --format=%T 2>/dev/null)
    [[ $state == idle ]] && { echo "slurm.sh: node $host idle, SLURM_CONF=$conf"; return 0; }
    sleep 0.1
  done
  echo "slurm.sh: node $host not idle after $UP_TIMEOUT s (state: ${state:-unknown})" >&2
  tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 2>/dev/null
  down
  exit 1
}

case $action in
  up) up ;;
  down) down; echo "slurm.sh: stopped the cluster in $dir" ;;
  env) echo "SLURM_CONF=$conf" ;;
  *) echo "usage: slurm.sh up|down|env DIR" >&2; exit 2 ;;
esac
