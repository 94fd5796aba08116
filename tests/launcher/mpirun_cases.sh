#!/bin/sh
# End-to-end cases for mpirun, one per ctest test: `mpirun_cases.sh CASE`.
# MPIRUN, PROBE (tests/launcher/pmix_client_probe) and SPAWN_PROBE
# (tests/launcher/pmix_spawn_probe) come from the environment. Each case fails with a line saying what did not hold.
set -u

: "${MPIRUN:?MPIRUN must name the mpirun to test}"
: "${PROBE:=}"
: "${SPAWN_PROBE:=}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mpirun-case.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# A sleep duration no other process uses, to find leftovers of this case.
MARK="30.$$"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/out "$WORK"/err; do
    [ -s "$f" ] && { echo "--- $(basename "$f"):" >&2; head -c 4000 "$f" >&2; }
  done
  exit 1
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run ARGS...: runs mpirun with ARGS, stdout/stderr to $WORK/out and
# $WORK/err; sets STATUS and ELAPSED (ms).
run() {
  start=$(now_ms)
  "$MPIRUN" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  STATUS=$?
  ELAPSED=$(($(now_ms) - start))
}

expect_status() { [ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, expected $1"; }
expect_faster() { [ "$ELAPSED" -lt "$1" ] || fail "took ${ELAPSED} ms, expected under $1 ms"; }
expect_out() { grep -q -- "$1" "$WORK/out" || fail "stdout lacks '$1'"; }
expect_err() { grep -q -- "$1" "$WORK/err" || fail "stderr lacks '$1'"; }
expect_out_lines() {
  n=$(grep -c -- "$1" "$WORK/out")
  [ "$n" -eq "$2" ] || fail "stdout has $n lines matching '$1', expected $2"
}
# No process of this case is left (ranks, or what the ranks started).
expect_no_leftovers() {
  i=0
  while pgrep -f "sleep $MARK" >/dev/null; do
    i=$((i + 1))
    [ $i -gt 20 ] && fail "processes left behind: $(pgrep -af "sleep $MARK")"
    sleep 0.1
  done
}

# wait_for_ranks N: until N processes of this case's "sleep $MARK" run.
wait_for_ranks() {
  i=0
  until [ "$(pgrep -fc "sleep $MARK")" -ge "$1" ]; do
    i=$((i + 1))
    [ $i -gt 100 ] && fail "the ranks did not start"
    sleep 0.05
  done
}

case_probe() {  # probe N: the PMIx client checks pass on every rank
  run -n "$1" "$PROBE"
  expect_status 0
  expect_out_lines "^probe: rank [0-9]* of $1 ok$" "$1"
}

case_gets_at_once() {  # a rank's requests in flight together are answered at once
  run -n 4 "$PROBE" gets_at_once
  expect_status 0
  expect_out_lines "^probe: rank [0-9]* of 4 ok$" 4
}

case_no_libssh() {  # libssh is loaded by the first remote start, not by every mpirun
  readelf -d "$MPIRUN" >"$WORK/out" 2>"$WORK/err" || fail "readelf -d $MPIRUN failed"
  if grep -q 'NEEDED.*libssh' "$WORK/out"; then fail "mpirun links libssh"; fi
}

case_bad_arguments() {
  touch "$WORK/not_executable"
  mkdir "$WORK/dir"
  for args in "-n 0 /bin/true" "-n -2 /bin/true" "-n abc /bin/true" "-n" "-np 2" "" \
              "-n 2 no-such-program-xyz" "-n 2 $WORK/not_executable" "-n 2 $WORK/dir" \
              "--no-such-option /bin/true" "-n 2 --wdir $WORK/nowhere /bin/true" "-genv A"; do
    # shellcheck disable=SC2086  # word splitting is the point
    run $args
    [ "$STATUS" -eq 1 ] || fail "mpirun $args: exit status $STATUS, expected 1"
    [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "mpirun $args: expected one line on stderr"
    grep -q '^mpirun: ' "$WORK/err" || fail "mpirun $args: the line does not start with 'mpirun: '"
  done
  run -n 2 no-such-program-xyz
  expect_err "no-such-program-xyz' not found in PATH"
}

case_exec_fails() {  # exec fails after the checks (no "#!"): one line, exit 1
  printf 'echo hi\n' >"$WORK/no_interpreter"
  chmod +x "$WORK/no_interpreter"
  run -n 3 "$WORK/no_interpreter"
  expect_status 1
  expect_err "^mpirun: cannot start rank 0: exec .*no_interpreter: Exec format error$"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line on stderr"
}

case_pmix_store_without_hash() {  # PMIx stores that hang or crash the ranks: one line, exit 1, no wait
  PMIX_MCA_gds=ds21 run -n 2 "$PROBE"
  expect_status 1
  expect_err "^mpirun: PMIX_MCA_gds=ds21: Ferry's PMIx server needs the hash store"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line on stderr"
  PMIX_MCA_gds=ds21,hash run -n 2 "$PROBE"
  expect_status 0
}

case_exit_status() {  # a rank exits 3: mpirun exits 3, the others go at once
  run -n 4 sh -c "if [ \$OMPI_COMM_WORLD_RANK = 2 ]; then sleep 0.2; exit 3; fi; sleep $MARK"
  expect_status 3
  expect_err "^mpirun: rank 2 (pid [0-9]*) exited with status 3$"
  expect_faster 1500
  expect_no_leftovers
}

case_sigterm_ignored() {  # ranks that ignore SIGTERM get SIGKILL soon after
  run -n 3 sh -c "trap '' TERM; if [ \$OMPI_COMM_WORLD_RANK = 1 ]; then sleep 0.2; exit 3; fi; sleep $MARK"
  expect_status 3
  expect_faster 1500
  expect_no_leftovers
}

case_killed_by_signal() {  # a rank dies of SIGKILL: 128+9
  run -n 3 sh -c "if [ \$OMPI_COMM_WORLD_RANK = 0 ]; then kill -9 \$\$; fi; sleep $MARK"
  expect_status 137
  expect_err "^mpirun: rank 0 (pid [0-9]*) was killed by signal 9 (Killed)$"
  expect_faster 1500
  expect_no_leftovers
}

case_own_session() {  # every rank leads a session of its own (how the scheduler weighs it: spawn.cc)
  run -n 3 sh -c 'echo "rank $$ session $(cut -d" " -f6 /proc/$$/stat)"'
  expect_status 0
  expect_out_lines "^rank [0-9]* session [0-9]*$" 3
  awk '$2 != $4 { exit 1 }' "$WORK/out" || fail "a rank is not the leader of its own session"
}

case_abort() {  # PMIx_Abort(3) from rank 1: exit 3, the others are ended
  run -n 3 "$PROBE" abort 1 3
  expect_status 3
  expect_err "^mpirun: rank 1 called MPI_Abort with error code 3$"
  expect_faster 1500
}

case_exit_without_finalize() {  # rank 1 leaves its peers in a fence: no hang
  run -n 3 "$PROBE" nofinalize 1
  # PMIx fails the fence of the others when rank 1's connection drops; they
  # exit 1 and the job ends.
  expect_status 1
  expect_err "^mpirun: rank [02] (pid [0-9]*) exited with status 1$"
  [ "$(grep -c '^mpirun:' "$WORK/err")" -eq 1 ] || fail "expected one mpirun line"
  expect_faster 1500
}

case_stdin() {  # stdin reaches rank 0 only, and its EOF too
  printf 'line one\nline two\n' >"$WORK/input"
  "$MPIRUN" -n 3 --tag-output sh -c 'cat; echo done' <"$WORK/input" >"$WORK/out" 2>"$WORK/err"
  STATUS=$?
  expect_status 0
  [ "$(grep -c '^\[0\] line' "$WORK/out")" -eq 2 ] || fail "rank 0 did not get its input (file)"
  [ "$(grep -c 'line' "$WORK/out")" -eq 2 ] || fail "input reached other ranks (file)"
  expect_out_lines "done$" 3
  # Through a pipe, which mpirun forwards itself.
  printf 'line one\nline two\n' | "$MPIRUN" -n 3 --tag-output sh -c 'cat; echo done' >"$WORK/out" 2>"$WORK/err"
  STATUS=$?
  expect_status 0
  [ "$(grep -c '^\[0\] line' "$WORK/out")" -eq 2 ] || fail "rank 0 did not get its input (pipe)"
  [ "$(grep -c 'line' "$WORK/out")" -eq 2 ] || fail "input reached other ranks (pipe)"
  expect_out_lines "done$" 3
}

case_tag_output() {
  run -n 2 --tag-output sh -c 'echo hello; echo oops >&2'
  expect_status 0
  expect_out_lines '^\[0\] hello$' 1
  expect_out_lines '^\[1\] hello$' 1
  grep -q '^\[1\] oops$' "$WORK/err" || fail "stderr lacks '[1] oops'"
  [ "$(wc -l <"$WORK/out")" -eq 2 ] || fail "stdout has extra lines"
}

case_environment() {  # -x, -genv, -env, and the rank variables
  FOO=from-mpirun
  export FOO
  run -n 2 -x FOO -x BAZ=qux -genv G1 "v 1" -env E1 e1 \
    sh -c 'echo "$FOO|$BAZ|$G1|$E1|$OMPI_COMM_WORLD_SIZE|$PMI_SIZE|$PMI_RANK"'
  expect_status 0
  expect_out_lines '^from-mpirun|qux|v 1|e1|2|2|[01]$' 2
}

case_torch_environment() {  # torchrun's variables: per rank, the user's win, --no-torch-env, bad MASTER_ADDR
  show='echo "$RANK|$LOCAL_RANK|$WORLD_SIZE|$LOCAL_WORLD_SIZE|$GROUP_RANK|$GROUP_WORLD_SIZE|$MASTER_ADDR|$TORCHELASTIC_RESTART_COUNT|$TORCHELASTIC_MAX_RESTARTS|${MASTER_PORT:+port}|${TORCHELASTIC_RUN_ID:+id}"'
  run -n 3 sh -c "$show"
  expect_status 0
  for r in 0 1 2; do expect_out_lines "^$r|$r|3|3|0|1|127.0.0.1|0|0|port|id\$" 1; done
  # One port for the job, free on this host: nothing listens there now.
  [ "$(run -n 2 sh -c 'echo $MASTER_PORT'; sort -u "$WORK/out" | wc -l)" -eq 1 ] || fail "the ranks got different ports"
  MASTER_PORT=4242 RANK=9
  export MASTER_PORT RANK
  run -n 2 -x LOCAL_RANK=7 sh -c 'echo "$RANK|$LOCAL_RANK|$MASTER_PORT|$WORLD_SIZE"'
  unset MASTER_PORT RANK
  expect_status 0
  expect_out_lines '^9|7|4242|2$' 2
  run -n 2 --no-torch-env sh -c 'echo "[$RANK$WORLD_SIZE$MASTER_ADDR$MASTER_PORT]"'
  expect_status 0
  expect_out_lines '^\[\]$' 2
  run -n 1 -x MASTER_ADDR=nowhere.invalid /bin/true
  expect_status 0
  expect_err "MASTER_ADDR nowhere.invalid cannot be reached from this host"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "more than one line about MASTER_ADDR"
}

case_lines_stay_whole() {  # lines written in pieces by 4 ranks never mix
  run -n 4 sh -c 'i=0; while [ $i -lt 300 ]; do printf "r%s:" $OMPI_COMM_WORLD_RANK; printf "%080d" 0; printf "\n"; i=$((i+1)); done'
  expect_status 0
  [ "$(grep -c '^r[0-3]:0\{80\}$' "$WORK/out")" -eq 1200 ] || fail "mixed or missing lines"
  [ "$(wc -l <"$WORK/out")" -eq 1200 ] || fail "extra lines"
}

case_unterminated_line() {  # a last line without newline still comes out
  run -n 1 printf 'abc'
  expect_status 0
  [ "$(cat "$WORK/out")" = "abc" ] && [ "$(wc -c <"$WORK/out")" -eq 3 ] || fail "1 rank: output is not 'abc'"
  run -n 2 printf 'abc'
  expect_status 0
  expect_out_lines '^abc$' 2
}

case_working_dir() {
  run -n 1 --wdir "$WORK" pwd
  expect_status 0
  expect_out "^$WORK$"
  run -n 1 -wdir / sh -c 'pwd'
  expect_out '^/$'
}

case_mpiexec() {  # the mpiexec name and Hydra's spellings
  "$(dirname "$MPIRUN")/mpiexec" -np 2 -genv X 1 sh -c 'echo "x=$X"' >"$WORK/out" 2>"$WORK/err"
  STATUS=$?
  expect_status 0
  expect_out_lines '^x=1$' 2
}

case_help_and_version() {
  run --help
  expect_status 0
  for opt in -n --oversubscribe -x --genv --env --wdir --allow-run-as-root --tag-output --version; do
    expect_out " $opt"
  done
  run --version
  expect_status 0
  expect_out "^mpirun (Ferry) "
}

case_sigterm_forwarded() {  # SIGTERM to mpirun reaches the ranks
  "$MPIRUN" -n 3 sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_ranks 3
  start=$(now_ms)
  kill -TERM $pid
  wait $pid
  STATUS=$?
  ELAPSED=$(($(now_ms) - start))
  expect_status 143
  expect_faster 1500
  expect_no_leftovers
}

case_sigint_forwarded() {  # Ctrl-C: the ranks get SIGINT, mpirun exits 130
  # A background job of a script ignores SIGINT unless told otherwise.
  env --default-signal=INT "$MPIRUN" -n 2 sh -c "sleep $MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_ranks 2
  kill -INT $pid
  wait $pid
  STATUS=$?
  expect_status 130
  expect_err "^mpirun: received signal 2 "
  expect_no_leftovers
}

case_mpirun_killed() {  # mpirun dies of SIGKILL: the ranks die with it
  mkdir "$WORK/tmp"
  TMPDIR="$WORK/tmp" "$MPIRUN" -n 3 sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_ranks 3
  kill -KILL $pid
  wait $pid
  expect_no_leftovers
  # A killed mpirun cannot remove its directory; the next one does.
  [ "${#WORK}" -gt 60 ] && return 0  # TMPDIR too long: mpirun used /tmp
  [ -n "$(ls "$WORK/tmp")" ] || fail "the killed mpirun left no directory (wrong TMPDIR?)"
  TMPDIR="$WORK/tmp" "$MPIRUN" -n 1 true || fail "mpirun after a killed one failed"
  [ -z "$(ls "$WORK/tmp")" ] || fail "the killed mpirun's directory is still there: $(ls "$WORK/tmp")"
}

case_timeout() {  # --timeout and MPIEXEC_TIMEOUT end a job that runs too long: exit 124, one line
  run --timeout 1 -n 2 sh -c "sleep $MARK"
  expect_status 124
  expect_err "^mpirun: the job ran past its time limit of 1 s"
  expect_faster 3500
  expect_no_leftovers
  MPIEXEC_TIMEOUT=1 run -n 2 sh -c "sleep $MARK"
  expect_status 124
  expect_faster 3500
  run --timeout 5 -n 2 /bin/true  # a job within its limit is not touched
  expect_status 0
  MPIEXEC_TIMEOUT=soon run -n 1 /bin/true
  expect_status 1
  expect_err "^mpirun: MPIEXEC_TIMEOUT needs a positive number of seconds, not 'soon'$"
}

case_allow_run_as_root() {
  run --allow-run-as-root --oversubscribe -n 2 /bin/true
  expect_status 0
}

# ---- Dynamic processes (PMIx_Spawn, connect, publish/lookup) ----

case_spawn() {  # 2 parents spawn 3 children: connect, data both ways, a published name
  run -n 2 --timeout 25 "$SPAWN_PROBE" parent 3
  expect_status 0
  expect_out_lines "^spawn-probe: parent [01] ok$" 2
  expect_out_lines "^spawn-probe: child [0-2] of 3 ok$" 3  # the children's output is forwarded
  if grep -q "^mpirun:" "$WORK/err"; then fail "mpirun complained"; fi
}

case_spawn_tagged() {  # --tag-output names a spawned job's lines "[job,rank]"
  run -n 1 --tag-output --timeout 25 "$SPAWN_PROBE" parent 2
  expect_status 0
  expect_out_lines '^\[0\] spawn-probe: parent 0 ok$' 1
  expect_out_lines '^\[1,[01]\] spawn-probe: child [01] of 2 ok$' 2
}

case_spawn_refused() {  # missing/unrunnable program, unknown host, too many: an error status at once
  touch "$WORK/not_executable"
  printf 'localhost slots=3\n' >"$WORK/hosts"
  # 3 slots, the parent holds one: 5 are too many, 1 fits.
  run --hostfile "$WORK/hosts" -n 1 --timeout 25 "$SPAWN_PROBE" errors "$WORK/not_executable" 5
  expect_status 0
  expect_out "^spawn-probe: errors ok$"
  expect_err "^mpirun: cannot spawn '/nonexistent/spawn-probe-missing' for rank 0 of .*: program '/nonexistent/spawn-probe-missing' does not exist$"
  expect_err "^mpirun: cannot spawn .*: program 'spawn-probe-no-such-program' not found in PATH$"
  expect_err "^mpirun: cannot spawn .*not_executable' is not executable"
  expect_err "^mpirun: cannot spawn .*: host 'no-such-host.invalid' is not in mpirun's allocation$"
  expect_err "^mpirun: cannot spawn .*: 5 processes requested but mpirun's host has 2 free slots (3 slots, 1 in use); add slots or use --oversubscribe$"
  [ "$(grep -c '^mpirun:' "$WORK/err")" -eq 5 ] || fail "expected 5 mpirun lines"
}

case_spawn_child_fails() {  # a spawned process exits 3: reported like a rank, the job ends with 3
  run -n 2 --timeout 25 "$SPAWN_PROBE" spawn_run /bin/sh -c 'sleep 0.2; exit 3'
  expect_status 3
  expect_err "^mpirun: rank 0 of ferry\.[0-9]*\.1 (pid [0-9]*) exited with status 3$"
  expect_faster 5000
}

case_spawn_teardown() {  # --timeout, and mpirun's SIGTERM, end spawned processes too
  run -n 1 --timeout 2 "$SPAWN_PROBE" spawn_run /bin/sleep "$MARK"
  expect_status 124
  expect_out "^spawn-probe: spawned ferry\.[0-9]*\.1$"
  expect_no_leftovers
  "$MPIRUN" -n 1 "$SPAWN_PROBE" spawn_run /bin/sleep "$MARK" >"$WORK/out" 2>"$WORK/err" &
  pid=$!
  wait_for_ranks 1
  kill -TERM $pid
  wait $pid
  STATUS=$?
  expect_status 143
  expect_no_leftovers
}

case_universe_size() {  # PMIX_UNIV_SIZE: the allocation's slots
  printf 'localhost slots=5\n' >"$WORK/hosts"
  run --hostfile "$WORK/hosts" -n 2 "$SPAWN_PROBE" universe 5
  expect_status 0
  expect_out_lines "^spawn-probe: universe 5 ok$" 2
  # Given by hand (Hydra's -usize), over the allocation's count.
  run --hostfile "$WORK/hosts" -usize 9 -n 2 "$SPAWN_PROBE" universe 9
  expect_status 0
  expect_out_lines "^spawn-probe: universe 9 ok$" 2
  run -n 1 --universe-size zero "$SPAWN_PROBE" universe 1
  expect_status 1
  expect_err "universe-size needs a positive number"
}

name=$1
shift
"case_$name" "$@" || exit 1
echo "ok: $name $*"
