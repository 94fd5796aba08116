#!/bin/sh
# Checkpoint/restart end to end (issue 15): real jobs through mpirun, real
# files, jobs that die (SIGKILL inside a save hook), and files damaged
# between a job and its restart. One case per ctest.
#
# Usage: checkpoint_cases.sh CASE NP    (MPIRUN, PROGRAM and HEAT in the environment)
set -u
case_name=$1
np=$2
: "${MPIRUN:?}" "${PROGRAM:?}"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ferry_ckpt_XXXXXX")
log=$dir.log
trap 'rm -rf "$dir" "$log"' EXIT
export FERRY_CHECKPOINT_DIR=$dir/store
export FERRY_CHECKPOINT_KEEP=2
unset FERRY_RESTART_COUNT FERRY_RESTART_FROM
prog=$PROGRAM

fail() {
  echo "checkpoint_cases $case_name np$np: rank -1: FAILED: $*"
  echo "--- last job's output:"; cat "$log"
  echo "--- store:"; find "$dir/store" 2>/dev/null | sort
  exit 1
}

# run N [expected exit: 0 or nonzero] -- program arguments
run() {
  n=$1; expect=$2; shift 2
  timeout 60 "$MPIRUN" -n "$n" "$prog" "$@" >"$log" 2>&1
  rc=$?
  cat "$log"
  [ $rc -ne 124 ] || fail "mpirun -n $n $* hung"
  if [ "$expect" = 0 ]; then [ $rc -eq 0 ] || fail "mpirun -n $n $* exited with $rc"
  else [ $rc -ne 0 ] || fail "mpirun -n $n $* should have failed"; fi
}

expect_in_log() { grep -Eq "$1" "$log" || fail "output does not match '$1'"; }
epochs() { ls "$dir/store" | tr '\n' ' '; }

# Partner redundancy (node-local stores): the job's ranks as two hosts of
# np/2 ranks each (FERRY_CHECKPOINT_TEST_RANKS_PER_HOST), each host with its
# own directory, local-<host>-fake<K>.
partnered() {
  unset FERRY_CHECKPOINT_DIR
  export FERRY_CHECKPOINT_REDUNDANCY=partner
  export FERRY_CHECKPOINT_LOCAL_DIR="$dir/local-%h"
  export FERRY_CHECKPOINT_TEST_RANKS_PER_HOST=$((np / 2))
  host0=$dir/local-$(hostname)-fake0
  host1=$dir/local-$(hostname)-fake1
  last=$((np - 1))  # on host 1; its partner is rank np/2 - 1, on host 0
}

case $case_name in
  round_trip)
    run "$np" 0 steps 5
    [ "$(epochs)" = "epoch.3 epoch.4 " ] || fail "FERRY_CHECKPOINT_KEEP=2 left: $(epochs)"
    grep -q "^job_size $np\$" "$dir/store/epoch.4/MANIFEST" || fail "manifest lacks job_size $np"
    [ "$(grep -c '^file ' "$dir/store/epoch.4/MANIFEST")" -eq "$np" ] || fail "manifest does not list one file per rank"
    run "$np" 0 expect 4
    ;;
  hook_fails)
    run "$np" 0 hook_fails
    [ "$(epochs)" = "epoch.0 " ] || fail "the failed epoch was left behind: $(epochs)"
    ;;
  outstanding)
    run "$np" 0 outstanding
    ;;
  nested)
    run "$np" 0 nested
    ;;
  killed_in_hook|killed_before_publish)
    mode=kill_in_hook; [ "$case_name" = killed_before_publish ] && mode=kill_before_publish
    run "$np" nonzero "$mode" 2
    [ -d "$dir/store/epoch.2" ] || fail "the dying job did not start epoch 2"
    [ ! -e "$dir/store/epoch.2/MANIFEST" ] || fail "epoch 2 was published by a job that died"
    run "$np" 0 expect 1
    expect_in_log "MPIX_Restore: warning: epoch 2 skipped: no manifest"
    ;;
  truncated|bit_flipped)
    run "$np" 0 steps 3
    victim=$dir/store/epoch.2/rank.$((np - 1))/state.bin
    if [ "$case_name" = truncated ]; then
      truncate -s 100 "$victim"
      why="state.bin: 100 bytes, the manifest records [0-9]+ \(truncated"
    else
      # Flip one bit in the middle of the file, size unchanged.
      byte=$(od -An -tu1 -j 5000 -N1 "$victim" | tr -d ' ')
      printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$victim" bs=1 seek=5000 conv=notrunc 2>/dev/null
      why="state.bin: CRC-32C differs"
    fi
    run "$np" 0 expect 1
    expect_in_log "warning: epoch 2 skipped: .*$why"
    ;;
  other_size)
    run "$np" 0 steps 2
    run $((np + 1)) 0 expect_error "written by a job of $np processes, this job has $((np + 1))"
    ;;
  restart_from)
    run "$np" 0 steps 3
    export FERRY_RESTART_FROM=1; run "$np" 0 expect 1
    export FERRY_RESTART_FROM=9; run "$np" 0 expect_error "epoch 9"
    export FERRY_RESTART_FROM=abc; run "$np" 0 expect_error "FERRY_RESTART_FROM=abc"
    ;;
  no_directory)
    unset FERRY_CHECKPOINT_DIR
    run "$np" 0 nodir
    ;;
  singleton)
    timeout 60 "$PROGRAM" steps 3 >"$log" 2>&1 || fail "singleton steps 3"
    timeout 60 "$PROGRAM" expect 2 >"$log" 2>&1 || fail "singleton expect 2"
    ;;
  example_restarted)
    : "${HEAT:?}"
    # The uninterrupted run's answer, without checkpoints.
    (unset FERRY_CHECKPOINT_DIR; timeout 60 "$MPIRUN" -n "$np" "$HEAT" >"$log" 2>&1) || fail "uninterrupted run"
    cat "$log"
    want=$(grep '^heat2d: checksum' "$log") || fail "no checksum in the uninterrupted run"
    # Killed (SIGKILL on rank 0) after step 130, past the checkpoint of step 100 ...
    prog=$HEAT
    run "$np" nonzero --kill-at 130
    # ... and started again as mpirun --max-restarts would.
    export FERRY_RESTART_COUNT=1; run "$np" 0
    expect_in_log "^heat2d: restart 1, restored epoch [0-9]+ at step 100"
    got=$(grep '^heat2d: checksum' "$log")
    [ "$got" = "$want" ] || fail "restarted run ended with '$got', the uninterrupted one with '$want'"
    ;;
  example_max_restarts)
    # The same through mpirun's own restart loop: the kill in attempt 0,
    # attempt 1 restores and finishes (issue 15: bitwise equal).
    : "${HEAT:?}"
    (unset FERRY_CHECKPOINT_DIR; timeout 60 "$MPIRUN" -n "$np" "$HEAT" >"$log" 2>&1) || fail "uninterrupted run"
    want=$(grep '^heat2d: checksum' "$log") || fail "no checksum in the uninterrupted run"
    unset FERRY_CHECKPOINT_DIR
    timeout 120 "$MPIRUN" --checkpoint-dir "$dir/store" --max-restarts 2 -n "$np" "$HEAT" --kill-at 130 >"$log" 2>&1
    rc=$?
    cat "$log"
    [ $rc -eq 0 ] || fail "mpirun --max-restarts 2 exited with $rc"
    expect_in_log "^heat2d: restart 1, restored epoch [0-9]+ at step 100"
    got=$(grep '^heat2d: checksum' "$log")
    [ "$got" = "$want" ] || fail "the restarted job ended with '$got', the uninterrupted one with '$want'"
    ;;
  partner_round_trip)
    partnered
    run "$np" 0 steps 3
    for h in "$host0" "$host1"; do
      [ "$(ls "$h" | tr '\n' ' ')" = "epoch.1 epoch.2 " ] || fail "$h holds $(ls "$h" | tr '\n' ' ')"
      [ "$(grep -c '^copy ' "$h/epoch.2/MANIFEST")" -eq "$np" ] || fail "$h's manifest lacks copy lines"
    done
    cmp -s "$host0/epoch.2/MANIFEST" "$host1/epoch.2/MANIFEST" || fail "the hosts' manifests differ"
    grep -q "^copy $last $(hostname)-fake1 $((np / 2 - 1)) $(hostname)-fake0\$" "$host0/epoch.2/MANIFEST" ||
      fail "rank $last's copy is not recorded on rank $((np / 2 - 1))"
    cmp -s "$host1/epoch.2/rank.$last/state.bin" "$host0/epoch.2/partner/rank.$last/state.bin" ||
      fail "rank $last's partner copy differs from its files"
    run "$np" 0 expect 2
    ;;
  partner_host_lost)
    # One host's storage is gone: its ranks restore from their partners'
    # copies, bit for bit (checkpoint_cases.c checks every value).
    partnered
    run "$np" 0 steps 3
    rm -rf "$host1"
    run "$np" 0 expect 2
    [ -f "$host1/epoch.2/rank.$last/state.bin" ] || fail "rank $last's files were not written back"
    [ -f "$host1/epoch.2/MANIFEST" ] || fail "host 1's manifest was not written back"
    ;;
  partner_rank0_host_lost)
    # Rank 0's host has no epoch at all: the other host's manifest decides.
    partnered
    run "$np" 0 steps 3
    rm -rf "$host0"
    run "$np" 0 expect 2
    ;;
  partner_restart_from)
    # FERRY_RESTART_FROM picks an older epoch, recovered from the partners too.
    partnered
    run "$np" 0 steps 3
    rm -rf "$host1"
    export FERRY_RESTART_FROM=1; run "$np" 0 expect 1
    export FERRY_RESTART_FROM=9; run "$np" 0 expect_error "epoch 9 (FERRY_RESTART_FROM) cannot be restored: no host has a manifest"
    ;;
  partner_killed_in_hook)
    # Rank 1 dies writing epoch 2: no host publishes it, and the restart
    # passes over it with a warning, as from a shared directory.
    partnered
    run "$np" nonzero kill_in_hook 2
    [ -d "$host0/epoch.2" ] || fail "the dying job did not start epoch 2"
    [ ! -e "$host0/epoch.2/MANIFEST" ] && [ ! -e "$host1/epoch.2/MANIFEST" ] || fail "epoch 2 was published"
    run "$np" 0 expect 1
    expect_in_log "MPIX_Restore: warning: epoch 2 skipped: no host has its manifest"
    ;;
  partner_bit_flipped)
    partnered
    run "$np" 0 steps 3
    victim=$host1/epoch.2/rank.$last/state.bin
    byte=$(od -An -tu1 -j 5000 -N1 "$victim" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of="$victim" bs=1 seek=5000 conv=notrunc 2>/dev/null
    run "$np" 0 expect 2
    if grep -q "skipped" "$log"; then fail "a damaged file with a good partner copy made an epoch be skipped"; fi
    ;;
  partner_both_lost)
    partnered
    run "$np" 0 steps 3
    rm -rf "$host1/epoch.2/rank.$last" "$host0/epoch.2/partner/rank.$last"
    run "$np" 0 expect 1
    expect_in_log "warning: epoch 2 skipped: rank $last: its files on host $(hostname)-fake1 are lost .* and so is their copy on rank $((np / 2 - 1)), host $(hostname)-fake0"
    ;;
  partner_memory)
    # 64 MiB per rank more: the copies, at commit and at restore, go in
    # pieces (runtime/checkpoint_stream.h), so no rank's memory grows by
    # more than 16 MiB (a whole copy held would be 64 MiB on each side).
    partnered
    run "$np" 0 memory_commit 64
    rm -rf "$host1"
    run "$np" 0 memory_restore 64
    ;;
  partner_one_host)
    partnered
    export FERRY_CHECKPOINT_TEST_RANKS_PER_HOST=$np
    run "$np" 0 expect_error "needs ranks on at least two hosts"
    export FERRY_CHECKPOINT_TEST_RANKS_PER_HOST=1
    unset FERRY_CHECKPOINT_LOCAL_DIR
    run "$np" 0 expect_error "FERRY_CHECKPOINT_REDUNDANCY=partner needs FERRY_CHECKPOINT_LOCAL_DIR"
    export FERRY_CHECKPOINT_REDUNDANCY=xor
    run "$np" 0 expect_error "FERRY_CHECKPOINT_REDUNDANCY=xor: expected none or partner"
    ;;
  *) fail "unknown case" ;;
esac
echo "checkpoint_cases $case_name np$np: OK"
