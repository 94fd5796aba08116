#!/bin/sh
# End-to-end cases for mpirun's restarts and checkpoint events (issue 15),
# one per ctest test: `restart_cases.sh CASE`. MPIRUN and RESTART_PROBE
# (tests/launcher/restart_probe) come from the environment. Each case fails
# with a line saying what did not hold.
set -u

: "${MPIRUN:?MPIRUN must name the mpirun to test}"
: "${RESTART_PROBE:?RESTART_PROBE must name tests/launcher/restart_probe}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/restart-case.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# An argument no other process has, to find this case's leftovers by.
MARK="mark-$$-restart"
P="$RESTART_PROBE"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/out "$WORK"/err; do
    [ -s "$f" ] && { echo "--- $(basename "$f"):" >&2; head -c 4000 "$f" >&2; }
  done
  exit 1
}

# run ARGS...: mpirun with ARGS, stdout/stderr to $WORK/out and $WORK/err.
run() {
  "$MPIRUN" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  STATUS=$?
}

expect_status() { [ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, expected $1"; }
expect_out() { grep -q -- "$1" "$WORK/out" || fail "stdout lacks '$1'"; }
expect_err() { grep -q -- "$1" "$WORK/err" || fail "stderr lacks '$1'"; }
expect_lines() {  # FILE REGEX N
  n=$(grep -c -- "$2" "$WORK/$1")
  [ "$n" -eq "$3" ] || fail "$1 has $n lines matching '$2', expected $3"
}
# No rank of this case is left, nor a node daemon.
expect_no_leftovers() {
  i=0
  while pgrep -f "$MARK" >/dev/null; do
    i=$((i + 1))
    [ $i -gt 20 ] && fail "processes left behind: $(pgrep -af "$MARK")"
    sleep 0.1
  done
}
# wait_for_lines FILE REGEX N: until FILE has N lines matching (10 s).
wait_for_lines() {
  i=0
  until [ "$(grep -c -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ]; do
    i=$((i + 1))
    [ $i -gt 200 ] && fail "$1 did not get $3 lines matching '$2'"
    sleep 0.05
  done
}

case_rank_exits_once() {  # a rank exits 1 in attempt 0: attempt 1 runs every rank and succeeds
  run --max-restarts 2 -n 3 "$P" fail-once exit 1 "$MARK"
  expect_status 0
  expect_err "^mpirun: rank 1 (pid [0-9]*) exited with status 1$"
  expect_err "^mpirun: restarting the job (restart 1 of 2)$"
  expect_lines out "attempt 1 ok" 3
  expect_lines out "rank 1 attempt 0 fails" 1
  expect_lines out "attempt 2" 0
  expect_no_leftovers
}

case_rank_killed_once() {  # a rank dies of SIGKILL in attempt 0, with a delay before the restart
  run --max-restarts 2 --restart-delay 0.3 -n 2 "$P" fail-once kill 0 "$MARK"
  expect_status 0
  expect_err "^mpirun: rank 0 (pid [0-9]*) was killed by signal 9"
  expect_err "^mpirun: restarting the job (restart 1 of 2) in 0.3 s$"
  expect_lines out "attempt 1 ok" 2
  # The delay was kept: the restart came at least 300 ms after the failure.
  failed=$(sed -n 's/.*attempt 0 fails at=\([0-9]*\).*/\1/p' "$WORK/out")
  restarted=$(sed -n 's/.*attempt 1 started at=\([0-9]*\).*/\1/p' "$WORK/out" | sort -n | head -1)
  [ -n "$failed" ] && [ -n "$restarted" ] || fail "no times in the output"
  [ $((restarted - failed)) -ge 300000 ] || fail "restarted $((restarted - failed)) us after the failure"
  expect_no_leftovers
}

case_restarts_exhausted() {  # every attempt fails: the last status, one summary line per attempt
  run --max-restarts 2 -n 2 "$P" always-fail 1 7 "$MARK"
  expect_status 7
  expect_lines err "^mpirun: rank 1 (pid [0-9]*) exited with status 7$" 3
  expect_err "^mpirun: the job failed 3 times (--max-restarts 2):$"
  expect_err "^mpirun:   attempt 1 (FERRY_RESTART_COUNT=0): rank 1 (pid [0-9]*) exited with status 7$"
  expect_err "^mpirun:   attempt 3 (FERRY_RESTART_COUNT=2): rank 1 (pid [0-9]*) exited with status 7$"
  expect_lines out "rank 1 attempt 2 started" 1
  expect_lines out "attempt 3" 0
  expect_no_leftovers
  # Without --max-restarts: as before, no summary.
  run -n 2 "$P" always-fail 1 7 "$MARK"
  expect_status 7
  grep -q "the job failed" "$WORK/err" && fail "a summary without --max-restarts"
  expect_no_leftovers
}

case_timeout_restart() {  # --timeout ends a hung job: 124 alone, a restart with --max-restarts
  run --timeout 1 -n 2 "$P" fail-once hang 0 "$MARK"
  expect_status 124
  expect_err "^mpirun: the job ran past its time limit of 1 s"
  expect_no_leftovers
  run --timeout 1 --max-restarts 1 -n 2 "$P" fail-once hang 0 "$MARK"
  expect_status 0
  expect_err "^mpirun: the job ran past its time limit of 1 s"
  expect_lines out "attempt 1 ok" 2
  expect_no_leftovers
  # MPIEXEC_TIMEOUT does the same.
  MPIEXEC_TIMEOUT=1 run --max-restarts 1 -n 2 "$P" fail-once hang 0 "$MARK"
  expect_status 0
  expect_lines out "attempt 1 ok" 2
  MPIEXEC_TIMEOUT=1 run -n 1 "$P" fail-once hang 0 "$MARK"
  expect_status 124
  expect_no_leftovers
}

case_interrupt_is_final() {  # SIGTERM to mpirun, during an attempt or before a restart, ends it for good
  "$MPIRUN" --max-restarts 3 -n 2 "$P" fail-once hang 0 "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_lines "$WORK/out" "attempt 0 started" 2
  kill -TERM $pid
  wait $pid
  STATUS=$?
  expect_status 143
  grep -q "restarting" "$WORK/err" && fail "restarted after SIGTERM"
  expect_no_leftovers
  # SIGTERM while waiting to restart: no restart, the summary, the failure's status.
  "$MPIRUN" --max-restarts 3 --restart-delay 20 -n 2 "$P" always-fail 1 3 "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_lines "$WORK/err" "restarting the job" 1
  kill -TERM $pid
  wait $pid
  STATUS=$?
  expect_status 3
  expect_err "^mpirun: interrupted by signal 15 before the restart; not restarting$"
  expect_err "^mpirun: the job failed 1 time (--max-restarts 3):$"
  expect_lines out "attempt 1" 0
  expect_no_leftovers
}

case_mpirun_killed_while_restarting() {  # mpirun dies of SIGKILL during a restart's delay and during an attempt: nothing is left
  "$MPIRUN" --max-restarts 3 --restart-delay 2 -n 2 "$P" always-fail 1 3 "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_lines "$WORK/err" "restarting the job" 1
  kill -KILL $pid
  wait $pid
  expect_no_leftovers
  "$MPIRUN" --max-restarts 3 -n 2 "$P" fail-once hang 0 "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_lines "$WORK/out" "attempt 0 started" 2
  kill -KILL $pid
  wait $pid
  expect_no_leftovers
}

case_checkpoint_environment() {  # the options reach the ranks as FERRY_* settings; restarts read the latest epoch
  run --checkpoint-dir "$WORK/ckpt/a" --checkpoint-keep 3 --restart-from 4 -n 2 "$P" env
  expect_status 0
  [ -d "$WORK/ckpt/a" ] || fail "--checkpoint-dir was not created"
  expect_lines out "attempt 0 FERRY_CHECKPOINT_DIR=$WORK/ckpt/a$" 2
  expect_lines out "attempt 0 FERRY_CHECKPOINT_KEEP=3$" 2
  expect_lines out "attempt 0 FERRY_RESTART_FROM=4$" 2
  # --restart-from is the first attempt's: a restart reads the latest epoch.
  # (Rank 0 fails in attempt 0: rank 1 may be ended before it prints.)
  run --checkpoint-dir "$WORK/ckpt/a" --restart-from 4 --max-restarts 1 -n 2 "$P" env fail-once
  expect_status 0
  expect_lines out "rank 0 attempt 0 FERRY_RESTART_FROM=4$" 1
  expect_lines out "attempt 1 FERRY_RESTART_FROM=latest$" 2
  expect_lines out "attempt 1 FERRY_CHECKPOINT_DIR=$WORK/ckpt/a$" 2
  # Hydra's spellings, and a relative directory made absolute.
  (cd "$WORK" && "$MPIRUN" -ckpoint-prefix rel -ckpoint-num latest -ckpointlib app -n 1 "$P" env) \
    >"$WORK/out" 2>"$WORK/err" </dev/null || fail "Hydra's spellings refused"
  expect_out "FERRY_CHECKPOINT_DIR=$WORK/rel$"
  expect_out "FERRY_RESTART_FROM=latest$"
}

case_ckpointlib_blcr() {  # BLCR: one clear refusal that says how Ferry checkpoints
  run -ckpointlib blcr -n 2 "$P" env
  expect_status 1
  expect_lines err "" 1
  expect_err "^mpirun: -ckpointlib blcr: BLCR is not supported"
  expect_err "MPIX_Checkpoint_hook"
  expect_err "--checkpoint-dir DIR"
  [ -s "$WORK/out" ] && fail "ranks ran"
  return 0
}

case_bad_values() {  # every bad value: one line naming the option and the value, exit 1, nothing started
  for args in "--max-restarts -1|--max-restarts needs a number of restarts (0 or more), not '-1'" \
              "--max-restarts two|--max-restarts needs a number of restarts (0 or more), not 'two'" \
              "--restart-delay -2|--restart-delay needs a number of seconds (0 or more), not '-2'" \
              "--restart-delay 1s|--restart-delay needs a number of seconds (0 or more), not '1s'" \
              "--checkpoint-interval 0|--checkpoint-interval needs a positive number of seconds, not '0'" \
              "--checkpoint-interval x|--checkpoint-interval needs a positive number of seconds, not 'x'" \
              "--checkpoint-keep 0|--checkpoint-keep needs a positive number of checkpoints, not '0'" \
              "--restart-from newest|--restart-from needs an epoch number or 'latest', not 'newest'" \
              "-ckpoint-num -3|--restart-from needs an epoch number or 'latest', not '-3'" \
              "-ckpointlib criu|-ckpointlib needs app (blcr is not supported), not 'criu'" \
              "--timeout 0|--timeout needs a positive number of seconds, not '0'"; do
    opt=${args%%|*}
    want=${args#*|}
    # shellcheck disable=SC2086
    run $opt -n 1 "$P" env
    expect_status 1
    expect_lines err "" 1
    grep -qF -- "mpirun: $want" "$WORK/err" || fail "for '$opt': stderr lacks 'mpirun: $want'"
    [ -s "$WORK/out" ] && fail "for '$opt': ranks ran"
  done
  touch "$WORK/file"
  run --checkpoint-dir "$WORK/file" -n 1 "$P" env
  expect_status 1
  expect_err "^mpirun: --checkpoint-dir '$WORK/file' is not a directory$"
  MPIEXEC_TIMEOUT=-1 run -n 1 "$P" env
  expect_status 1
  expect_err "^mpirun: MPIEXEC_TIMEOUT needs a positive number of seconds, not '-1'$"
}

case_sigusr1_due() {  # SIGUSR1 to mpirun: every rank's handler gets the checkpoint-due event
  "$MPIRUN" -n 3 "$P" due 1 "$MARK" >"$WORK/out" 2>"$WORK/err" </dev/null &
  pid=$!
  wait_for_lines "$WORK/out" "ready" 3
  kill -USR1 $pid
  wait $pid
  STATUS=$?
  expect_status 0
  expect_lines out "got 1 due events" 3
  expect_no_leftovers
}

case_interval_due() {  # --checkpoint-interval: events keep coming to every rank
  run --checkpoint-interval 0.3 -n 3 "$P" due 3 "$MARK"
  expect_status 0
  expect_lines out "got 3 due events" 3
  expect_no_leftovers
}

"case_$1"
