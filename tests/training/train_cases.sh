#!/usr/bin/env bash
# Training scripts written for torchrun, started by mpirun (examples/train_torch.py,
# examples/train_mpi4py.py), as a training user runs them. One case per call:
#   train_cases.sh CASE
# Environment: MPIRUN, EXAMPLES (the examples folder), PYTHON (Debian's python3);
# CLIENTS_CACHE (build/clients, where scripts/clients builds mpi4py against this
# build) for the mpi4py cases; HOSTS_SH and TESTBED for the cases across hosts, SLURM_CLUSTER for the
# Slurm one. A case whose prerequisite is missing prints why and exits 77
# (ctest's skip). Every case checks the final loss line, the exit status, and
# that no rank is left running.
set -uo pipefail

case_name=$1
work=$(mktemp -d /tmp/ferry-training.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED ($case_name): $*" >&2; exit 1; }
skip() { echo "SKIPPED ($case_name): $*"; exit 77; }
show() { echo "--- $1"; cat "$1"; }

# How mpirun is started: directly, or as the test bed's user (cases across hosts).
launch=("$MPIRUN")

# Run from this case's own folder, so that what the case looks for (the
# victim to kill, ranks left running) is its own: another case may run the
# same script at the same time (ctest -j).
torch_script=$work/train_torch.py
mpi4py_script=$work/train_mpi4py.py
cp "$EXAMPLES/train_torch.py" "$torch_script" && cp "$EXAMPLES/train_mpi4py.py" "$mpi4py_script" ||
  fail "cannot copy the training scripts into $work"
need_torch() { "$PYTHON" -c 'import torch' 2>/dev/null || skip "python3-torch is not installed ($PYTHON cannot import torch)"; }
need_mpi4py() {
  local tree
  tree=$(ls -d "${CLIENTS_CACHE:-/nonexistent}"/mpi4py-ferry-*/mpi4py-*/src 2>/dev/null | head -n 1)
  [[ -n $tree ]] && PYTHONPATH=$tree "$PYTHON" -c 'from mpi4py import MPI' 2>/dev/null ||
    skip "mpi4py built against Ferry is not in ${CLIENTS_CACHE:-?} (scripts/clients --build-only builds it)"
  export PYTHONPATH=$tree
}

# "final loss 0.150006 after 200 steps on 4 ranks (0x1.3336660000000p-3)" -> the hex part.
final_loss() { sed -n 's/^final loss .* on \([0-9]*\) ranks (\(.*\))$/\1 \2/p' "$1"; }

# Nothing of the script may outlive its job (the name appears in every rank's command line).
expect_no_ranks() {
  local script=$1 i
  for i in $(seq 1 50); do
    pgrep -f "$PYTHON $script" >/dev/null || return 0
    sleep 0.1
  done
  pgrep -af "$PYTHON $script" >&2
  fail "ranks of $(basename "$script") left running"
}

# An uninterrupted run's final loss (the reference), then the same run with a
# checkpoint every 50 steps, in which one rank is killed by SIGKILL after the
# first checkpoint: with --max-restarts 1 mpirun starts the job again, the
# ranks resume from the checkpoint and must end with the same loss, bit for bit.
restart_case() {
  local script=$1 checkpoint=$2 ranks=$3 victim_rank=$4
  shift 4
  local common=(--steps 200 --step-seconds 0.03)
  "${launch[@]}" "$@" -n "$ranks" "$PYTHON" "$script" "${common[@]}" >"$work/clean" 2>&1 ||
    { show "$work/clean"; fail "the uninterrupted run failed"; }
  local want
  want=$(final_loss "$work/clean")
  [[ -n $want ]] || { show "$work/clean"; fail "no final loss in the uninterrupted run"; }

  "${launch[@]}" "$@" --max-restarts 1 -n "$ranks" "$PYTHON" "$script" "${common[@]}" \
    --checkpoint "$checkpoint" >"$work/restarted" 2>&1 &
  local job=$! i victim=""
  for i in $(seq 1 600); do
    [[ -f $checkpoint ]] && break
    sleep 0.05
  done
  [[ -f $checkpoint ]] || { kill "$job"; wait "$job"; show "$work/restarted"; fail "no checkpoint was written"; }
  # The victim: the rank whose environment says RANK=$victim_rank.
  for pid in $(pgrep -f "$PYTHON $script"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=$victim_rank"; then victim=$pid; fi
  done
  [[ -n $victim ]] || { kill "$job"; wait "$job"; fail "rank $victim_rank was not found running"; }
  local killed_at
  killed_at=$(date +%s.%N)
  kill -KILL "$victim"
  wait "$job"
  local status=$?
  [[ $status -eq 0 ]] || { show "$work/restarted"; fail "the restarted job exited with $status"; }
  grep -q "restarting the job (restart 1 of 1)" "$work/restarted" || { show "$work/restarted"; fail "mpirun did not restart"; }
  grep -q "^restart 1: resuming at step [1-9]" "$work/restarted" ||
    { show "$work/restarted"; fail "the ranks did not resume from the checkpoint"; }
  local got
  got=$(final_loss "$work/restarted")
  [[ $got == "$want" ]] || { show "$work/restarted"; fail "final loss after the restart: $got; uninterrupted: $want"; }
  local resumed_at
  resumed_at=$(sed -n 's/^first step .* at \([0-9.]*\) (restart 1)$/\1/p' "$work/restarted")
  echo "$case_name: rank $victim_rank killed; first step of the restarted job $(echo "$resumed_at - $killed_at" | bc) s later"
  echo "$case_name: OK (final loss $got, as uninterrupted)"
  expect_no_ranks "$script"
}

# One run to the end: the final loss line, from the expected number of ranks.
plain_case() {
  local script=$1 ranks=$2
  shift 2
  "$@" "$PYTHON" "$script" --steps 100 >"$work/out" 2>&1 || { show "$work/out"; fail "exit status $?"; }
  local got
  got=$(final_loss "$work/out")
  [[ ${got%% *} == "$ranks" ]] || { show "$work/out"; fail "no final loss from $ranks ranks"; }
  echo "$case_name: OK (final loss on $got)"
  expect_no_ranks "$script"
}

case $case_name in
  torch_np4)
    need_torch
    plain_case "$torch_script" 4 "$MPIRUN" -n 4
    ;;
  torch_restart_np4)
    need_torch
    restart_case "$torch_script" "$work/torch.pt" 4 1
    ;;
  mpi4py_np4)
    need_mpi4py
    plain_case "$mpi4py_script" 4 "$MPIRUN" -n 4
    ;;
  mpi4py_restart_np4)
    need_mpi4py
    restart_case "$mpi4py_script" "$work/mpi4py.npz" 4 2
    ;;
  torch_hosts_np6)
    # Six ranks on h1..h3, two each: MASTER_ADDR is h1's address, and Gloo
    # must use the hosts' network (their hostnames resolve nowhere).
    need_torch
    bash "$HOSTS_SH" check "$TESTBED" || exit $?
    printf 'h1 slots=2\nh2 slots=2\nh3 slots=2\n' >"$work/hosts"
    plain_case "$torch_script" 6 bash "$HOSTS_SH" run "$TESTBED" -- \
      "$MPIRUN" --hostfile "$work/hosts" -n 6 -x GLOO_SOCKET_IFNAME=eth0
    ;;
  torch_hosts_restart_np6)
    # A rank on h3 is killed: the whole job restarts on the three hosts.
    need_torch
    bash "$HOSTS_SH" check "$TESTBED" || exit $?
    printf 'h1 slots=2\nh2 slots=2\nh3 slots=2\n' >"$work/hosts"
    launch=(bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN")
    restart_case "$torch_script" "$work/torch.pt" 6 5 --hostfile "$work/hosts" -x GLOO_SOCKET_IFNAME=eth0
    ;;
  torch_slurm_np2)
    # mpirun inside a Slurm allocation (salloc), as a batch script runs it.
    need_torch
    pid=$(cat "$SLURM_CLUSTER/slurmctld.pid" 2>/dev/null)
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || skip "no test cluster running in $SLURM_CLUSTER (see slurm.up)"
    export SLURM_CONF=$SLURM_CLUSTER/slurm.conf
    plain_case "$torch_script" 2 salloc --quiet -n 2 "$MPIRUN" -n 2
    ;;
  *)
    fail "unknown case"
    ;;
esac
