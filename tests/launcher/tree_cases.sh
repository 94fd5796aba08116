#!/usr/bin/env bash
# The daemon tree on simulated hosts: sim1..simN, every name another host to
# mpirun, all reached through tests/launcher/sim_agent.sh, which runs the
# command here. So one machine holds N node daemons that start each other
# (mpirun its own children, each daemon its own) as on N real hosts.
#   tree_cases.sh CASE [ARGS]
# Environment: MPIRUN, PROBE (tests/launcher/pmix_client_probe). Each case
# checks what mpirun printed, its exit status, and that no daemon or rank of
# the case is left.
set -u

: "${MPIRUN:?MPIRUN must name the mpirun to test}"
: "${PROBE:?PROBE must name tests/launcher/pmix_client_probe}"
HERE=$(cd "$(dirname "$0")" && pwd)
AGENT=$HERE/sim_agent.sh
FERRYD=$(dirname "$(readlink -f "$MPIRUN")")/ferryd
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tree-case.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# A sleep duration no other process uses, to find this case's ranks.
MARK="40.$$"

fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/out "$WORK"/err; do
    [ -s "$f" ] && { echo "--- $(basename "$f"):" >&2; head -c 6000 "$f" >&2; }
  done
  exit 1
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# hosts N: a hostfile of sim1..simN with one slot each.
hosts() {
  : >"$WORK/hosts"
  for i in $(seq 1 "$1"); do echo "sim$i slots=1" >>"$WORK/hosts"; done
}

# run FANOUT ARGS...: mpirun over the simulated hosts; STATUS, ELAPSED (ms).
run() {
  local fanout=$1
  shift
  local start
  start=$(now_ms)
  FERRY_LAUNCH_FANOUT=$fanout FERRY_DEBUG=launch timeout 120 "$MPIRUN" --hostfile "$WORK/hosts" \
    --launch-agent "$AGENT" --bind-to none --no-torch-env "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  STATUS=$?
  ELAPSED=$(($(now_ms) - start))
}

# The daemons of this case still alive: ferryd of this build, started (by
# the agent, here) with this case's TREE_CASE in its environment; other
# tests may run daemons of the same build meanwhile.
export TREE_CASE=$MARK
our_daemons() {
  local pid
  for pid in $(pgrep -x ferryd); do
    [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$FERRYD" ] &&
      tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "TREE_CASE=$MARK" && echo "$pid"
  done
}
expect_nothing_left() {
  local i
  for i in $(seq 1 50); do
    [ -z "$(our_daemons)" ] && ! pgrep -f "sleep $MARK" >/dev/null && return 0
    sleep 0.1
  done
  fail "left running 5 s after the job: ferryd $(our_daemons | tr '\n' ' ') ranks $(pgrep -f "sleep $MARK" | tr '\n' ' ')"
}

depth_of() {  # depth_of POSITION FANOUT
  local p=$1 d=0
  while [ "$p" -gt 0 ]; do p=$(((p - 1) / $2)); d=$((d + 1)); done
  echo $d
}

# Every rank prints a line once its PMIx fence (through the whole tree) is done.
write_rank_script() {
  cat >"$WORK/rank.sh" <<SCRIPT
#!/bin/sh
"$PROBE" bench || exit 1
echo "ran \$OMPI_COMM_WORLD_RANK"
SCRIPT
  chmod +x "$WORK/rank.sh"
}

# sim_hosts N FANOUT: every rank of N hosts runs, the tree has the depth
# its fan-out gives, and every daemon below mpirun's own children was
# started by its parent daemon, not by mpirun.
case_sim_hosts() {
  local n=$1 fanout=$2 depth=0 p parent who
  hosts "$n"
  write_rank_script
  run "$fanout" -n "$n" "$WORK/rank.sh"
  [ "$STATUS" -eq 0 ] || fail "exit status $STATUS"
  for r in $(seq 0 $((n - 1))); do
    [ "$(grep -cx "ran $r" "$WORK/out")" -eq 1 ] || fail "rank $r did not run once"
  done
  for p in $(seq 1 "$n"); do [ "$(depth_of "$p" "$fanout")" -gt $depth ] && depth=$(depth_of "$p" "$fanout"); done
  grep -q "mpirun: all $n node daemons up in [0-9.]* ms (tree depth $depth, fan-out $fanout)" "$WORK/err" ||
    fail "no line saying all $n daemons are up at depth $depth"
  for p in $(seq 1 "$n"); do
    parent=$(((p - 1) / fanout))
    if [ $parent -eq 0 ]; then who="mpirun"; else who="ferryd sim$parent"; fi
    grep -q "INFO $who: starting the daemon on sim$p (position $p)$" "$WORK/err" ||
      fail "sim$p was not started by $who"
    [ "$(grep -c ": starting the daemon on sim$p (position $p)$" "$WORK/err")" -eq 1 ] ||
      fail "sim$p was started more than once"
  done
  echo "$n hosts, fan-out $fanout, depth $depth: ${ELAPSED} ms; $(grep -o 'all [0-9]* node daemons up in [0-9.]* ms' "$WORK/err")"
  expect_nothing_left
}

# A host deep in the tree cannot be started: mpirun names it with the
# daemons it was to be started through, ends the job (its ranks elsewhere
# are running), exits non-zero, leaves nothing.
case_deep_failure() {
  hosts 20
  # Fan-out 2: mpirun -> sim2 -> sim6 -> sim13.
  SIM_FAIL_HOSTS="sim13" run 2 -n 20 sleep "$MARK"
  [ "$STATUS" -ne 0 ] || fail "mpirun exited 0"
  grep -q "^mpirun: could not start ferryd on sim13 (via sim2, sim6): launch agent .*/sim_agent.sh exited with status 255: ssh: connect to host sim13 port 22: Connection refused$" \
    "$WORK/err" || fail "no line naming sim13 with its path"
  [ "$ELAPSED" -lt 20000 ] || fail "took $ELAPSED ms"
  expect_nothing_left
}

# Ctrl-C reaches ranks three daemons down, and everything ends.
case_interrupt_deep() {
  local i
  hosts 14
  FERRY_LAUNCH_FANOUT=2 timeout 60 "$MPIRUN" --hostfile "$WORK/hosts" --launch-agent "$AGENT" --bind-to none --no-torch-env \
    -n 14 sleep "$MARK" >"$WORK/out" 2>"$WORK/err" </dev/null &
  local job=$!
  for i in $(seq 1 300); do
    [ "$(pgrep -fc "sleep $MARK")" -ge 14 ] && break
    sleep 0.1
  done
  [ "$(pgrep -fc "sleep $MARK")" -ge 14 ] || { kill $job; fail "the 14 ranks did not start"; }
  local start
  start=$(now_ms)
  kill -INT $job
  wait $job
  STATUS=$?
  ELAPSED=$(($(now_ms) - start))
  [ "$STATUS" -ne 0 ] || fail "mpirun exited 0 after SIGINT"
  [ "$ELAPSED" -lt 5000 ] || fail "took $ELAPSED ms to end after SIGINT"
  expect_nothing_left
}

# start_slow_chain: mpirun of 4 ranks over sim1..sim4 in a chain (fanout 1),
# each start of a daemon taking 3 s, in the background; JOB is timeout(1)'s
# pid, MPIRUN_PID mpirun's (timeout(1) would pass neither SIGKILL nor a
# SIGTERM meant for mpirun alone).
start_slow_chain() {
  local i
  hosts 4
  SIM_DELAY=3 FERRY_LAUNCH_FANOUT=1 timeout 60 "$MPIRUN" --hostfile "$WORK/hosts" --launch-agent "$AGENT" \
    --bind-to none --no-torch-env -n 4 sleep "$MARK" >"$WORK/out" 2>"$WORK/err" </dev/null &
  JOB=$!
  MPIRUN_PID=""
  for i in $(seq 1 50); do
    MPIRUN_PID=$(pgrep -P $JOB -x mpirun)
    [ -n "$MPIRUN_PID" ] && break
    sleep 0.1
  done
  [ -n "$MPIRUN_PID" ] || { kill $JOB; fail "no mpirun under timeout(1)"; }
}

# mpirun is killed (SIGKILL: no word to the daemons) while the chain
# mpirun -> sim1 -> sim2 -> sim3 is starting, each start taking 3 s: sim1's
# daemon, waiting on sim2's start, sees its parent's link close and ends at
# once, instead of finishing the start (and sim2 its own) for nobody; the
# daemon started late for sim2 finds no parent to connect to and ends too.
case_killed_mid_start() {
  local i
  start_slow_chain
  for i in $(seq 1 100); do
    [ -n "$(our_daemons)" ] && break
    sleep 0.1
  done
  [ -n "$(our_daemons)" ] || { kill $JOB; fail "sim1's daemon did not start"; }
  sleep 0.3  # sim1's daemon is in its start of sim2 now (3 s)
  kill -KILL "$MPIRUN_PID"
  wait $JOB 2>/dev/null
  sleep 1
  [ -z "$(our_daemons)" ] || fail "1 s after mpirun was killed, daemons still run: $(our_daemons | tr '\n' ' ')"
  sleep 4  # the agent's start of sim2 has run its ferryd by now
  [ -z "$(our_daemons)" ] || fail "5 s after mpirun was killed, daemons still run: $(our_daemons | tr '\n' ' ')"
  ! pgrep -f "sleep $MARK" >/dev/null || fail "ranks left: $(pgrep -f "sleep $MARK" | tr '\n' ' ')"
}

# SIGTERM to mpirun alone (as a batch system's scancel or a timeout(1)
# sends it, not to its process group) while it waits 3 s on the start of
# sim1's daemon: mpirun ends within a second with the signal's status and a
# line saying why, rather than after the start; the daemon started late
# finds nobody to connect to and ends too.
case_term_mid_start() {
  local i start
  start_slow_chain
  for i in $(seq 1 50); do
    pgrep -P "$MPIRUN_PID" >/dev/null && break
    sleep 0.1
  done
  sleep 0.5  # mpirun is inside the 3 s start of sim1's daemon now
  start=$(now_ms)
  kill -TERM "$MPIRUN_PID"
  wait $JOB
  STATUS=$?
  ELAPSED=$(($(now_ms) - start))
  [ "$STATUS" -eq 143 ] || fail "exit status $STATUS after SIGTERM, expected 143"
  [ "$ELAPSED" -lt 1000 ] || fail "took $ELAPSED ms to end after SIGTERM (the start of sim1 takes 3 s)"
  grep -q "^mpirun: received signal 15 (Terminated), ending the job$" "$WORK/err" || fail "no line saying why"
  sleep 4  # the agent's start of sim1 has run its ferryd by now
  [ -z "$(our_daemons)" ] || fail "4 s after mpirun ended, daemons still run: $(our_daemons | tr '\n' ' ')"
  ! pgrep -f "sleep $MARK" >/dev/null || fail "ranks left: $(pgrep -f "sleep $MARK" | tr '\n' ' ')"
}

# A rank at the bottom of the tree fails: its exit comes up three links,
# mpirun names it and ends the rest.
case_deep_rank_fails() {
  hosts 14
  cat >"$WORK/rank.sh" <<SCRIPT
#!/bin/sh
[ "\$OMPI_COMM_WORLD_RANK" = 13 ] && exit 3
exec sleep $MARK
SCRIPT
  chmod +x "$WORK/rank.sh"
  run 2 -n 14 "$WORK/rank.sh"
  [ "$STATUS" -eq 3 ] || fail "exit status $STATUS, expected 3"
  grep -q "rank 13 (pid [0-9]* on sim14) exited with status 3" "$WORK/err" || fail "no line naming rank 13 on sim14"
  expect_nothing_left
}

# A host whose logins get a soft limit of 128 open files (as a site may set)
# and 100 ranks: its ferryd raises its own limit for them, as mpirun does
# for its host, instead of failing at the 40th rank's pipe.
case_many_ranks_low_limit() {
  printf 'sim1 slots=100\n' >"$WORK/hosts"
  printf '#!/bin/sh\nulimit -Sn 128\nexec %s "$@"\n' "$AGENT" >"$WORK/agent128"
  chmod +x "$WORK/agent128"
  write_rank_script
  FERRY_DEBUG=launch timeout 60 "$MPIRUN" --hostfile "$WORK/hosts" --launch-agent "$WORK/agent128" --bind-to none \
    --no-torch-env -n 100 "$WORK/rank.sh" >"$WORK/out" 2>"$WORK/err" </dev/null
  STATUS=$?
  [ "$STATUS" -eq 0 ] || fail "exit status $STATUS"
  [ "$(grep -c '^ran [0-9]*$' "$WORK/out")" -eq 100 ] || fail "not every rank ran"
  expect_nothing_left
}

# direct_modex SWITCH: 16 ranks on 8 hosts run every collective with
# FERRY_DIRECT_MODEX_RANKS=SWITCH. At or below 16 the fences carry no data
# and the cards come by direct modex through the tree; above, all-gathered.
case_direct_modex() {
  local switch=$1
  : "${EVERY_COLLECTIVE:?EVERY_COLLECTIVE must name tests/mpi/acceptance/every_collective}"
  : >"$WORK/hosts"
  for i in $(seq 1 8); do echo "sim$i slots=2" >>"$WORK/hosts"; done
  FERRY_DIRECT_MODEX_RANKS=$switch run 2 -n 16 "$EVERY_COLLECTIVE"
  [ "$STATUS" -eq 0 ] || fail "exit status $STATUS"
  grep -q "every_collective: OK on 16 ranks" "$WORK/out" || fail "no OK line"
  local fences with_data asked
  fences=$(grep -c "fence across hosts completed" "$WORK/err")
  with_data=$(grep "fence across hosts completed" "$WORK/err" | grep -vc "(0 bytes of collected data)")
  asked=$(grep -c "direct modex for " "$WORK/err")
  [ "$fences" -gt 0 ] || fail "no fence across hosts"
  if [ "$switch" -le 16 ]; then
    grep -q "mpirun: 16 ranks: contact cards by direct modex" "$WORK/err" || fail "no line saying direct modex"
    [ "$with_data" -eq 0 ] || fail "$with_data fences carried data"
    [ "$asked" -gt 0 ] || fail "no card was fetched by direct modex"
  else
    # MPI_Init's fence collects the cards; MPI_Finalize's collects nothing.
    [ "$with_data" -gt 0 ] || fail "no fence carried the cards below the switch"
    [ "$asked" -eq 0 ] || fail "$asked direct modex requests below the switch"
  fi
  echo "switch $switch: $fences fences across hosts, $with_data with data, $asked direct modex requests"
  expect_nothing_left
}

case_name=$1
shift
"case_$case_name" "$@"
