#!/usr/bin/env bash
# mpirun across hosts, as a user would run it: the three hosts h1..h3 of
# the test bed (hosts.sh), reached through ssh (libssh in mpirun), with a
# node daemon (ferryd) on each. One case per invocation:
#   mpirun_cases.sh CASE
# Environment: MPIRUN, HOSTS_SH, TESTBED (the test bed's directory), and
# the programs HELLO, ENV_VARS, EVERY_COLLECTIVE, ABORT, CRASH, SLEEPER,
# SPAWN_PROBE, SPAWN_HOSTS, RESTART_PROBE, SHARED_FILE_POINTER, KNOWN_TRAFFIC, SPAWN_TRAFFIC,
# PROFILE_CHECK (tests/profile/check_report.py), HIER_COLLECTIVES.
# Every case checks what mpirun printed and its exit status, and that no
# daemon or rank is left running on any host.
set -uo pipefail

case_name=$1
bash "$HOSTS_SH" check "$TESTBED" || exit $?
work=$(mktemp -d /tmp/ferry-multihost.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAILED ($case_name): $*" >&2; exit 1; }

# Runs mpirun as the test bed's user (its ~/.ssh); output in $work/out and
# $work/err, exit status in $status, seconds taken in $seconds.
run_mpirun() {
  local start=$(date +%s.%N)
  bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" "$@" >"$work/out" 2>"$work/err"
  status=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
}

show() { echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; }

# Nothing of a job may outlive it: no ferryd, no test program. All hosts
# share this machine's process table, and so do the tests that ctest runs
# beside this one (tests/profile runs known_traffic, tests/launcher ferryd),
# so only the test bed's processes count: those in another mount namespace
# than this script's (every host's sshd runs in its own, and `hosts.sh run`
# starts mpirun in a private one, which the ranks and daemons it starts
# inherit). Zombies do not count: a detached daemon is reaped by init, which
# in a container may never do it.
readonly OWN_MOUNTS=$(readlink /proc/$$/ns/mnt)
# "PID COMM" of the test bed's live processes whose command name (not their
# arguments, which this script's own command line would match) is one of
# NAMES, each cut to the kernel's 15 characters.
bed_processes() {
  local names=" " name stat pid comm
  for name in "$@"; do names+="$(basename "$name" | cut -c1-15) "; done
  while read -r stat pid comm; do
    [[ $stat == Z* || $names != *" $comm "* ]] && continue
    [[ $(readlink "/proc/$pid/ns/mnt" 2>/dev/null) == "$OWN_MOUNTS" ]] && continue
    [[ -e /proc/$pid ]] && echo "$pid $comm"
  done < <(ps -eo stat=,pid=,comm=)
}
# How many of them run the program (mpirun's own command line names it too).
running_count() { bed_processes "$1" | wc -l; }
survivors() { bed_processes ferryd "$1"; }
expect_nothing_left() {
  local i
  for i in $(seq 1 50); do
    [[ -z $(survivors "$1") ]] && return 0
    sleep 0.1
  done
  survivors "$1" >&2
  fail "processes left running 5 s after the job ended"
}

# Starts `mpirun --hostfile $work/hosts -n N sleeper 60` in the background
# ($job) and waits until its N ranks run; fails if they never do.
# Signals this test's own mpirun, never another test's (ctest runs several
# at once): the one whose command line starts with this job's hostfile.
signal_our_mpirun() {
  pkill "-$1" -f "^$MPIRUN --hostfile $work/hosts "
}

start_sleeping_job() {
  local n=$1 i
  bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n "$n" "$SLEEPER" 60 \
    >"$work/out" 2>"$work/err" &
  job=$!
  for i in $(seq 1 100); do
    [[ $(running_count "$SLEEPER") -ge $n ]] && return 0
    sleep 0.1
  done
  show
  fail "the job did not start"
}

write_hosts() { printf "$1" >"$work/hosts"; }

# Nothing of the job runs in any host's namespace (ip netns pids: the hosts'
# own processes, whatever other tests run on this machine).
expect_nothing_on_hosts() {
  local h p left=""
  for h in h1 h2 h3; do
    for p in $(ip netns pids "ferry-$h" 2>/dev/null); do
      case $(cat "/proc/$p/comm" 2>/dev/null) in
        ferryd | "$(basename "$1" | cut -c1-15)") left+="$h: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)
" ;;
      esac
    done
  done
  [[ -z $left ]] || { printf '%s' "$left" >&2; fail "processes left in the hosts' namespaces"; }
}

# Lines "Hello from rank R of N on HOST" -> "R HOST", sorted by rank.
placement() { sed -n 's/^Hello from rank \([0-9]*\) of [0-9]* on \(.*\)$/\1 \2/p' "$work/out" | sort -n | tr '\n' ' '; }

case $case_name in
  openmpi_hostfile)
    # Two slots per host: ranks fill h1, then h2, then h3, in order.
    write_hosts "# three hosts\nh1 slots=2\n\nh2 slots=2   # the second\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$HELLO"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    got=$(placement)
    [[ $got == "0 h1 1 h1 2 h2 3 h2 4 h3 5 h3 " ]] || { show; fail "placement: $got"; }
    ;;
  hydra_ppn)
    # Hydra style: -f with host:N lines, one rank per host with -ppn 1.
    write_hosts "h1:4\nh2:4\nh3:4\n"
    run_mpirun -f "$work/hosts" -n 3 -ppn 1 "$HELLO"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    got=$(placement)
    [[ $got == "0 h1 1 h2 2 h3 " ]] || { show; fail "placement: $got"; }
    ;;
  host_option_map_by_node)
    run_mpirun -H h1:2,h2:2,h3:2 --map-by node -n 5 "$HELLO"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    got=$(placement)
    [[ $got == "0 h1 1 h2 2 h3 3 h1 4 h2 " ]] || { show; fail "placement: $got"; }
    ;;
  local_variables)
    # OMPI_COMM_WORLD_LOCAL_RANK/LOCAL_SIZE/NODE_RANK per host (3, 2, 1 ranks).
    write_hosts "h1 slots=3\nh2 slots=2\nh3 slots=1\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$ENV_VARS"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "env_vars: OK" "$work/out" || { show; fail "env_vars did not pass"; }
    ;;
  point_to_point)
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$P2P"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "OK" "$work/out" || { show; fail "no OK line"; }
    ;;
  shared_file_pointer)
    # One shared file pointer for ranks on three hosts: write_shared and
    # write_ordered into one file of a directory they all see ($work: the
    # hosts share this machine's file system, and so its fcntl locks).
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$SHARED_FILE_POINTER" "$work"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "shared_file_pointer: OK on 6 ranks on 3 hosts" "$work/out" || { show; fail "no OK line"; }
    expect_nothing_left "$SHARED_FILE_POINTER"
    ;;
  universe_across_hosts)
    # PMIX_UNIV_SIZE reaches the daemons' ranks: the allocation's 2+3 slots.
    run_mpirun -H h1:2,h2:3 -n 2 "$SPAWN_PROBE" universe 5
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    [[ $(grep -c "spawn-probe: universe 5 ok" "$work/out") -eq 2 ]] || { show; fail "not 2 ok lines"; }
    ;;
  spawn_from_remote_answered)
    # Ranks on hosts other than mpirun's: their spawns and names go through
    # their node daemons to mpirun and are answered (no hang). The spawn is
    # placed on h1 (mpirun's host is not in the allocation; oversubscribed),
    # whose daemon does not find the program.
    run_mpirun --oversubscribe -H h1,h2 -n 2 "$SPAWN_PROBE" remote
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    [[ $(grep -c "spawn-probe: remote [01] ok" "$work/out") -eq 2 ]] || { show; fail "not 2 ok lines"; }
    [[ $(grep -c "^mpirun: cannot spawn '/nonexistent/spawn-probe-missing' for rank [01] of .*: program '/nonexistent/spawn-probe-missing' does not exist (on h1)$" "$work/err") -eq 2 ]] ||
      { show; fail "no reason given for each refused spawn"; }
    ;;
  spawn_onto_named_host)
    # Parents on h1 and h2; the last one (h2) spawns two children with
    # info host=h1: they run there, under h1's daemon, and reach both
    # parents (h2's server asks h1's for their contact cards).
    write_hosts "h1 slots=3\nh2 slots=1\n"
    FERRY_DEBUG=launch run_mpirun --map-by node --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" spawn h1 h1 2
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "spawning ferry\.[0-9]*\.1 on h1 (daemon 1) for rank 1 of ferry\.[0-9]*$" "$work/err" ||
      { show; fail "the children were not sent to h1's daemon"; }
    grep -q "direct modex for ferry\.[0-9]*\.1:[01] from position 2: at position 1" "$work/err" ||
      { show; fail "h2 did not ask h1 for a child's data"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  spawn_across_hosts)
    # Parents on h1, h2 and h3; the last (h3) spawns four children with info
    # host=h3,h2,h1: they fill the free slots in that order (one on h3, two
    # on h2, one on h1), and their fences (MPI_Init's cards) go through mpirun.
    write_hosts "h1 slots=2\nh2 slots=3\nh3 slots=2\n"
    FERRY_DEBUG=launch run_mpirun --map-by node --hostfile "$work/hosts" -n 3 "$SPAWN_HOSTS" spawn h3,h2,h1 h3,h2,h2,h1 4
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "spawned ferry\.[0-9]*\.1 on 3 hosts for rank 2 of" "$work/err" || { show; fail "not spawned on 3 hosts"; }
    grep -q "fence 0 of ferry\.[0-9]*\.1 complete on its 3 hosts" "$work/err" ||
      { show; fail "no fence of the children through mpirun"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  spawn_default_placement)
    # No host named, mpirun's host not in the allocation, h1 full: the two
    # children go to h2, the first host with two free slots.
    write_hosts "h1 slots=1\nh2 slots=3\n"
    FERRY_DEBUG=launch run_mpirun --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" spawn - h2 2
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "spawning ferry\.[0-9]*\.1 on h2 (daemon 2)" "$work/err" || { show; fail "the children did not go to h2"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  spawn_default_spreads)
    # No host named and no host with two free slots: the two children fill
    # the free slot of h1, then that of h2, as the first job's ranks would.
    write_hosts "h1 slots=2\nh2 slots=2\n"
    FERRY_DEBUG=launch run_mpirun --map-by node --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" spawn - h1,h2 2
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "spawned ferry\.[0-9]*\.1 on 2 hosts" "$work/err" || { show; fail "not spread over 2 hosts"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  spawn_multiple_per_app_hosts)
    # MPI_Comm_spawn_multiple, app 0 with host=h2 and app 1 with host=h1:
    # each app's child runs on its own app's host (not both on h2, which
    # has room for both).
    write_hosts "h1 slots=2\nh2 slots=3\n"
    run_mpirun --map-by node --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" multiple h2 h1
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  names_across_hosts)
    # A rank on h1 publishes a port name and accepts, a rank on h2 looks it
    # up and connects; the acceptor's lookup of the request waits for it.
    run_mpirun -H h1,h2 -n 2 "$SPAWN_HOSTS" names
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    ;;
  spawn_refused_remote)
    # The rank on h2 spawns a program missing on h1, then onto h3, which is in
    # the allocation but runs no rank (no daemon there): MPI_ERR_SPAWN at
    # every rank, with one line each, and the job goes on.
    write_hosts "h1 slots=2\nh2 slots=1\nh3 slots=1\n"
    run_mpirun --map-by node --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" refused h1 h3
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "^mpirun: cannot spawn '/nonexistent/ferry-multihost-missing' for rank 1 of ferry\.[0-9]*: program '/nonexistent/ferry-multihost-missing' does not exist (on h1)$" "$work/err" ||
      { show; fail "no line for the missing program"; }
    grep -q "^mpirun: cannot spawn '/bin/true' for rank 1 of ferry\.[0-9]*: host 'h3' runs no rank of the job, so mpirun has no node daemon there" "$work/err" ||
      { show; fail "no line for the host without a daemon"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  spawned_remote_child_fails)
    # A process spawned onto h1 exits 3: h1's daemon reports it, and the job
    # ends with 3 as after a rank's failure.
    run_mpirun --oversubscribe --timeout 25 -H h1,h2 -n 2 "$SPAWN_PROBE" spawn_run /bin/sh -c 'sleep 0.2; exit 3'
    [[ $status -eq 3 ]] || { show; fail "exit status $status, expected 3"; }
    grep -q "^mpirun: rank 0 of ferry\.[0-9]*\.1 (pid [0-9]*) exited with status 3$" "$work/err" ||
      { show; fail "no line for the failed spawned process"; }
    expect_nothing_left "$SPAWN_PROBE"
    ;;
  spawned_remote_output)
    # A process spawned onto h1 has its output forwarded through h1's
    # daemon, tagged "[job,rank]" under --tag-output like one on mpirun's host.
    run_mpirun --tag-output --oversubscribe --timeout 3 -H h1,h2 -n 2 "$SPAWN_PROBE" spawn_run /bin/sh -c 'echo "from $(hostname)"'
    [[ $status -eq 124 ]] || { show; fail "exit status $status, expected 124 (--timeout)"; }
    grep -q "^\[1,0\] from h1$" "$work/out" || { show; fail "no tagged line from the child on h1"; }
    expect_nothing_left "$SPAWN_PROBE"
    ;;
  spawned_remote_teardown)
    # --timeout ends a process spawned onto h1 too, through h1's daemon.
    # (A copy of sleep under a name of its own, to count it.)
    sleeper="$work/mhsleep$$"
    cp /bin/sleep "$sleeper"
    FERRY_DEBUG=launch run_mpirun --oversubscribe --timeout 3 -H h1,h2 -n 2 "$SPAWN_PROBE" spawn_run "$sleeper" 60
    [[ $status -eq 124 ]] || { show; fail "exit status $status, expected 124"; }
    grep -q "^spawn-probe: spawned ferry\.[0-9]*\.1$" "$work/out" || { show; fail "nothing was spawned"; }
    grep -q "started ferry\.[0-9]*\.1: 1 processes of $sleeper on h1" "$work/err" ||
      { show; fail "the process did not run on h1"; }
    expect_nothing_left "$sleeper"
    expect_nothing_left "$SPAWN_PROBE"
    ;;
  stdin_to_remote_rank0)
    # mpirun's stdin reaches rank 0 on h1 through its daemon; rank 1 reads
    # nothing (/dev/null), so cat prints only rank 0's input.
    start=$(date +%s.%N)
    printf 'first line\nsecond line\n' | bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" -H h1,h2 -n 2 cat \
      >"$work/out" 2>"$work/err"
    status=$?
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    [[ $(cat "$work/out") == $'first line\nsecond line' ]] || { show; fail "rank 0 did not get stdin"; }
    ;;
  every_collective)
    # Point-to-point and every collective across hosts over TCP, with the
    # shared-memory transport between the two ranks of each host.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$EVERY_COLLECTIVE"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "every_collective: OK on 6 ranks" "$work/out" || { show; fail "no OK line"; }
    ;;
  hier_collectives)
    # Hierarchical collectives across real hosts (coll/hier): 2 ranks per
    # host meet through their host's segment, one per host sends. Every
    # operation ran hierarchically (FERRY_DEBUG=coll; FERRY_COLL_HIER=on, so
    # reduce too), with right results.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 -x FERRY_DEBUG=coll -x FERRY_COLL_HIER=on "$HIER_COLLECTIVES"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "hier_collectives: OK" "$work/out" || { show; fail "no OK line"; }
    for op in allreduce reduce bcast barrier allgather; do
      grep -Eq "$op [0-9]+ [KMi]*B on 6 ranks: hierarchical" "$work/out" "$work/err" ||
        { show | tail -40; fail "no hierarchical $op"; }
    done
    grep -q "hierarchical collectives: 3 hosts (ranks per host: 2 2 2)" "$work/out" "$work/err" ||
      { show | tail -40; fail "no host structure line"; }
    ;;
  daemon_tree_chain)
    # One child per daemon: mpirun -> h1 -> h2 -> h3, so messages and
    # fences pass through two daemons on their way, and each daemon starts
    # the next over ssh from its own host.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    FERRY_LAUNCH_FANOUT=1 FERRY_DEBUG=launch run_mpirun --hostfile "$work/hosts" -n 3 "$EVERY_COLLECTIVE"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "every_collective: OK on 3 ranks" "$work/out" || { show; fail "no OK line"; }
    grep -q "INFO mpirun: starting the daemon on h1 (position 1)$" "$work/err" || { show; fail "h1 not started by mpirun"; }
    grep -q "INFO ferryd h1: starting the daemon on h2 (position 2)$" "$work/err" || { show; fail "h2 not started by h1"; }
    grep -q "INFO ferryd h2: starting the daemon on h3 (position 3)$" "$work/err" || { show; fail "h3 not started by h2"; }
    grep -q "mpirun: all 3 node daemons up in [0-9.]* ms (tree depth 3, fan-out 1)" "$work/err" ||
      { show; fail "no line saying the tree of depth 3 is up"; }
    expect_nothing_left "$EVERY_COLLECTIVE"
    ;;
  daemon_tree_fanout_2)
    # mpirun starts h1 and h2, h1 starts h3: a tree of depth 2 with ranks on
    # every level, output and exits from all of them.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    FERRY_LAUNCH_FANOUT=2 FERRY_DEBUG=launch run_mpirun --hostfile "$work/hosts" -n 6 "$HELLO"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    for r in 0 1 2 3 4 5; do
      grep -q "Hello from rank $r of 6 on h$((r / 2 + 1))" "$work/out" || { show; fail "no hello from rank $r"; }
    done
    grep -q "INFO ferryd h1: starting the daemon on h3 (position 3)$" "$work/err" || { show; fail "h3 not started by h1"; }
    grep -q "mpirun: all 3 node daemons up in [0-9.]* ms (tree depth 2, fan-out 2)" "$work/err" ||
      { show; fail "no line saying the tree of depth 2 is up"; }
    expect_nothing_left "$HELLO"
    ;;
  direct_modex_deep_tree)
    # Cards fetched on first contact through a chain mpirun -> h1 -> h2 ->
    # h3 (FERRY_DIRECT_MODEX_RANKS=1): every collective across the hosts,
    # with fences that carry no data.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    FERRY_DIRECT_MODEX_RANKS=1 FERRY_LAUNCH_FANOUT=1 FERRY_DEBUG=launch run_mpirun --hostfile "$work/hosts" -n 6 \
      "$EVERY_COLLECTIVE"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "every_collective: OK on 6 ranks" "$work/out" || { show; fail "no OK line"; }
    grep -q "direct modex for .* at position 3" "$work/err" || { show; fail "no card fetched from h3"; }
    ! grep "fence across hosts completed" "$work/err" | grep -vq "(0 bytes of collected data)" ||
      { show; fail "a fence carried data"; }
    expect_nothing_left "$EVERY_COLLECTIVE"
    ;;
  daemon_tree_deep_start_fails)
    # mpirun -> h1 -> h2 -> h1-closed-port (~/.ssh/config: h1's address,
    # port 2222, where nothing listens): h2's daemon cannot start it;
    # mpirun names the host with the daemons it was to come through and
    # ends the ranks already running on h1 and h2.
    write_hosts "h1 slots=1\nh2 slots=1\nh1-closed-port slots=1\n"
    FERRY_LAUNCH_FANOUT=1 run_mpirun --hostfile "$work/hosts" -n 3 "$SLEEPER" 60
    [[ $status -ne 0 ]] || { show; fail "mpirun exited 0"; }
    grep -q "^mpirun: could not start ferryd on h1-closed-port (via h1, h2): .*2222.*refused" "$work/err" ||
      { show; fail "no line naming the host with its path"; }
    (($(echo "$seconds < 8" | bc))) || { show; fail "took $seconds s"; }
    expect_nothing_left "$SLEEPER"
    ;;
  report_bindings)
    write_hosts "h1 slots=2\nh2 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 4 --bind-to core --report-bindings "$HELLO"
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    for r in 0 1 2 3; do
      host=h$((r / 2 + 1))
      grep -Eq "^\[$host:[0-9]+\] MCW rank $r bound to " "$work/err" || { show; fail "no binding line for rank $r"; }
    done
    ;;
  remote_abort)
    # The last rank (on h3) calls MPI_Abort(7) while the others wait.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    run_mpirun --hostfile "$work/hosts" -n 6 "$ABORT" 7 last
    [[ $status -eq 7 ]] || { show; fail "exit status $status, expected 7"; }
    grep -q "rank 5 on h3 called MPI_Abort with error code 7" "$work/err" || { show; fail "no abort message"; }
    (($(echo "$seconds < 5" | bc))) || fail "took $seconds s"
    expect_nothing_left "$ABORT"
    ;;
  remote_crash)
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    run_mpirun --hostfile "$work/hosts" -n 3 "$CRASH" kill
    [[ $status -eq 137 ]] || { show; fail "exit status $status, expected 137"; }
    grep -Eq "rank 2 \(pid [0-9]+ on h3\) was killed by signal 9" "$work/err" || { show; fail "no message naming rank 2 on h3"; }
    expect_nothing_left "$CRASH"
    ;;
  daemon_killed)
    # ferryd on h2 dies (SIGKILL) while the job runs: mpirun says so and
    # ends everything.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    start_sleeping_job 3
    victim=$(ip netns pids ferry-h2 | while read -r p; do
               [[ $(cat /proc/$p/comm 2>/dev/null) == ferryd ]] && echo "$p"; done | head -n1)
    [[ -n $victim ]] || { kill $job; fail "no ferryd on h2"; }
    kill -KILL "$victim"
    wait $job
    status=$?
    [[ $status -ne 0 ]] || { show; fail "mpirun exited 0"; }
    grep -q "lost the node daemon on h2" "$work/err" || { show; fail "no message about h2"; }
    expect_nothing_left "$SLEEPER"
    ;;
  mpirun_killed)
    # mpirun dies by SIGKILL: every daemon and rank on every host follows.
    write_hosts "h1 slots=2\nh2 slots=2\nh3 slots=2\n"
    start_sleeping_job 6
    signal_our_mpirun KILL
    expect_nothing_left "$SLEEPER"
    ;;
  interrupted)
    # Ctrl-C (SIGINT to mpirun) ends every rank on every host.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    start_sleeping_job 3
    signal_our_mpirun INT
    wait $job
    status=$?
    [[ $status -eq 130 ]] || { show; fail "exit status $status, expected 130"; }
    expect_nothing_left "$SLEEPER"
    ;;
  unreachable_host)
    # 10.77.5.5 swallows packets: a clear error within the launch timeout.
    write_hosts "h1 slots=1\n10.77.5.5 slots=1\n"
    FERRY_LAUNCH_TIMEOUT=3 run_mpirun --hostfile "$work/hosts" -n 2 "$HELLO"
    [[ $status -ne 0 ]] || { show; fail "mpirun exited 0"; }
    [[ $(wc -l <"$work/err") -ge 1 ]] && grep -q "10.77.5.5" "$work/err" || { show; fail "no error naming the host"; }
    (($(echo "$seconds < 10" | bc))) || fail "took $seconds s"
    expect_nothing_left "$HELLO"
    ;;
  unknown_host_key)
    # An empty known_hosts: mpirun refuses the host and says how to accept it.
    mkdir -p "$work/home/.ssh"
    cp -r "$TESTBED/home/.ssh/." "$work/home/.ssh/"
    : >"$work/home/.ssh/known_hosts"
    write_hosts "h1 slots=1\n"
    start=$(date +%s)
    bash "$HOSTS_SH" run "$TESTBED" --home "$work/home" -- "$MPIRUN" --hostfile "$work/hosts" -n 1 "$HELLO" >"$work/out" 2>"$work/err"
    status=$?
    [[ $status -ne 0 ]] || { show; fail "mpirun exited 0"; }
    grep -q "unknown host key SHA256:" "$work/err" || { show; fail "no unknown-key message"; }
    bash "$HOSTS_SH" run "$TESTBED" --home "$work/home" -- "$MPIRUN" --accept-new-host-keys --hostfile "$work/hosts" -n 1 "$HELLO" >"$work/out" 2>"$work/err"
    status=$?
    [[ $status -eq 0 ]] || { show; fail "with --accept-new-host-keys: exit status $status"; }
    grep -q "Hello from rank 0 of 1 on h1" "$work/out" || { show; fail "no hello"; }
    ;;
  unknown_host_name)
    write_hosts "h1 slots=1\nno-such-host.invalid slots=1\n"
    run_mpirun --hostfile "$work/hosts" -n 2 "$HELLO"
    [[ $status -ne 0 ]] || { show; fail "mpirun exited 0"; }
    grep -q "no-such-host.invalid" "$work/err" || { show; fail "no error naming the host"; }
    ;;
  restart_leaves_out_lost_host)
    # ferryd on h2 dies while attempt 0 hangs: mpirun restarts the job on
    # h1 and h3, whose 3 slots hold its 3 ranks, and says why h2 is out.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=2\n"
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 3 --max-restarts 1 \
      "$RESTART_PROBE" fail-once hang 9 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 100); do
      [[ $(grep -c "attempt 0 started" "$work/out") -ge 3 ]] && break
      sleep 0.1
    done
    victim=$(ip netns pids ferry-h2 | while read -r p; do
               [[ $(cat /proc/$p/comm 2>/dev/null) == ferryd ]] && echo "$p"; done | head -n1)
    [[ -n $victim ]] || { kill $job; show; fail "no ferryd on h2"; }
    kill -KILL "$victim"
    wait $job
    status=$?
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "lost the node daemon on h2" "$work/err" || { show; fail "no message about h2"; }
    grep -q "^mpirun: leaving out h2: its node daemon was lost (connection closed); the 3 ranks restart on 2 other hosts (3 slots)$" \
      "$work/err" || { show; fail "no line leaving out h2"; }
    got=$(sed -n 's/^restart-probe: rank \([0-9]\) attempt 1 ok at=[0-9]* host=\(.*\)$/\1 \2/p' "$work/out" | sort -n | tr '\n' ' ')
    [[ $got == "0 h1 1 h3 2 h3 " ]] || { show; fail "attempt 1 placement: $got"; }
    expect_nothing_left "$RESTART_PROBE"
    ;;
  restart_leaves_out_unreachable_host)
    # Rank 0 fails in attempt 0; then h2 cannot be reached (a launch agent
    # that refuses it from its second start on): attempt 1 cannot start
    # there, and attempt 2 runs without it.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=2\n"
    cat >"$work/agent" <<EOF
#!/bin/sh
if [ "\$1" = h2 ]; then
  echo x >>"$work/h2-starts"
  if [ \$(wc -l <"$work/h2-starts") -ge 2 ]; then
    echo "ssh: connect to host h2 port 22: Connection refused" >&2
    exit 255
  fi
fi
exec ssh "\$@"
EOF
    chmod +x "$work/agent"
    run_mpirun --hostfile "$work/hosts" --launch-agent "$work/agent" -n 3 --max-restarts 2 \
      "$RESTART_PROBE" fail-once exit 0
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^mpirun: h2: launch agent .* exited with status 255: ssh: connect to host h2 port 22: Connection refused$" \
      "$work/err" || { show; fail "no line about h2's start"; }
    grep -q "^mpirun: leaving out h2: cannot start its node daemon: launch agent .*Connection refused; the 3 ranks restart on 2 other hosts (3 slots)$" \
      "$work/err" || { show; fail "no line leaving out h2"; }
    got=$(sed -n 's/^restart-probe: rank \([0-9]\) attempt 2 ok at=[0-9]* host=\(.*\)$/\1 \2/p' "$work/out" | sort -n | tr '\n' ' ')
    [[ $got == "0 h1 1 h3 2 h3 " ]] || { show; fail "attempt 2 placement: $got"; }
    # In a first run an unreachable host is the host list's fault: no restart.
    echo x >"$work/h2-starts"
    run_mpirun --hostfile "$work/hosts" --launch-agent "$work/agent" -n 3 --max-restarts 2 \
      "$RESTART_PROBE" fail-once exit 0
    [[ $status -eq 1 ]] || { show; fail "first run: exit status $status"; }
    grep -q "restarting" "$work/err" && { show; fail "first run: restarted"; }
    expect_nothing_left "$RESTART_PROBE"
    ;;
  mpirun_killed_while_restarting)
    # mpirun dies of SIGKILL in a restarted attempt, and while it waits to
    # restart: nothing is left. (Not while daemons start: a login shell
    # killed half-way can leave the test bed's shared home in a bad state,
    # e.g. a shell start-up file's lock.)
    write_hosts "h1 slots=1\nh2 slots=1\n"
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 2 --max-restarts 3 \
      "$RESTART_PROBE" fail-then-hang 1 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 300); do
      [[ $(grep -c "attempt 1 started" "$work/out") -ge 2 ]] && break
      sleep 0.1
    done
    [[ $(grep -c "attempt 1 started" "$work/out") -ge 2 ]] || { show; fail "attempt 1 did not start"; }
    signal_our_mpirun KILL
    wait $job
    expect_nothing_left "$RESTART_PROBE"
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 2 --max-restarts 3 \
      --restart-delay 30 "$RESTART_PROBE" fail-then-hang 1 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 300); do
      grep -q "restarting the job" "$work/err" && break
      sleep 0.1
    done
    grep -q "restarting the job" "$work/err" || { show; fail "no restart"; }
    signal_our_mpirun KILL
    wait $job
    expect_nothing_left "$RESTART_PROBE"
    ;;
  restart_without_enough_slots)
    # Without h2 the two other slots cannot hold 3 ranks: the restart fails
    # with a line saying so, the summary, and the failure's status.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 3 --max-restarts 2 \
      "$RESTART_PROBE" fail-once hang 9 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 100); do
      [[ $(grep -c "attempt 0 started" "$work/out") -ge 3 ]] && break
      sleep 0.1
    done
    victim=$(ip netns pids ferry-h2 | while read -r p; do
               [[ $(cat /proc/$p/comm 2>/dev/null) == ferryd ]] && echo "$p"; done | head -n1)
    [[ -n $victim ]] || { kill $job; show; fail "no ferryd on h2"; }
    kill -KILL "$victim"
    wait $job
    status=$?
    [[ $status -eq 1 ]] || { show; fail "exit status $status, expected 1"; }
    grep -q "^mpirun: cannot restart the job without h2 (.*): .*" "$work/err" || { show; fail "no line why"; }
    grep -q "^mpirun:   attempt 1 (FERRY_RESTART_COUNT=0): lost the node daemon on h2" "$work/err" \
      || { show; fail "no summary"; }
    grep -q "attempt 1 started" "$work/out" && { show; fail "restarted anyway"; }
    expect_nothing_left "$RESTART_PROBE"
    ;;
  checkpoint_due_remote)
    # SIGUSR1 to mpirun, then the interval: the event reaches the ranks of
    # every host through their daemons' PMIx servers.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 3 \
      "$RESTART_PROBE" due 1 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 100); do
      [[ $(grep -c "ready" "$work/out") -ge 3 ]] && break
      sleep 0.1
    done
    signal_our_mpirun USR1
    wait $job
    status=$?
    [[ $status -eq 0 ]] || { show; fail "SIGUSR1: exit status $status"; }
    [[ $(grep -c "got 1 due events" "$work/out") -eq 3 ]] || { show; fail "SIGUSR1: not every rank got it"; }
    run_mpirun --hostfile "$work/hosts" --checkpoint-interval 0.3 -n 3 "$RESTART_PROBE" due 3
    [[ $status -eq 0 ]] || { show; fail "interval: exit status $status"; }
    for h in h1 h2 h3; do
      grep -q "got 3 due events at=[0-9]* host=$h$" "$work/out" || { show; fail "interval: none on $h"; }
    done
    expect_nothing_left "$RESTART_PROBE"
    ;;
  checkpoint_settings_remote)
    # --checkpoint-dir, --checkpoint-keep and --restart-from reach the ranks
    # that ferryd starts on the other hosts, and so does FERRY_RESTART_COUNT.
    mkdir -p "$work/ckpt"
    chmod 777 "$work" "$work/ckpt"
    # A restart (attempt 1) reads the latest epoch and knows its count.
    run_mpirun -H h1,h2 -n 2 --checkpoint-dir "$work/ckpt" --checkpoint-keep 4 --restart-from 2 \
      --max-restarts 1 "$RESTART_PROBE" env fail-once
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    # Rank 0 fails in attempt 0 (rank 1 may be ended before it prints).
    for kv in "0 attempt 0 FERRY_CHECKPOINT_DIR=$work/ckpt" "0 attempt 0 FERRY_CHECKPOINT_KEEP=4" \
              "0 attempt 0 FERRY_RESTART_FROM=2"; do
      grep -qx "restart-probe: rank $kv" "$work/out" || { show; fail "no line 'rank $kv'"; }
    done
    for r in 0 1; do
      for kv in "FERRY_CHECKPOINT_DIR=$work/ckpt" FERRY_CHECKPOINT_KEEP=4 FERRY_RESTART_FROM=latest; do
        grep -qx "restart-probe: rank $r attempt 1 $kv" "$work/out" || { show; fail "no line 'rank $r attempt 1 $kv'"; }
      done
    done
    ;;
  heat2d_daemon_killed)
    # Issue 15: heat2d on the three hosts with a shared checkpoint directory
    # (all hosts see this machine's /tmp). h2's ferryd is killed (SIGKILL)
    # while the job is mid-run, past the checkpoint of step 100: mpirun
    # notices within about 1 s (the daemon's connection closes), ends the
    # attempt naming h2, leaves h2 out (h1 and h3 hold the 3 ranks) and the
    # restarted job ends with the checksum of an uninterrupted run.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=2\n"
    mkdir -p "$work/ckpt"
    chmod 777 "$work" "$work/ckpt"
    run_mpirun --hostfile "$work/hosts" -n 3 "$HEAT"
    [[ $status -eq 0 ]] || { show; fail "uninterrupted run: exit status $status"; }
    want=$(grep '^heat2d: checksum' "$work/out") || { show; fail "no checksum in the uninterrupted run"; }
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 3 --checkpoint-dir "$work/ckpt" \
      --max-restarts 1 "$HEAT" --hold-at 130 >"$work/out" 2>"$work/err" &
    job=$!
    for i in $(seq 1 200); do
      grep -q "^heat2d: holding at step 130$" "$work/out" && break
      sleep 0.05
    done
    grep -q "^heat2d: holding at step 130$" "$work/out" || { kill $job; show; fail "the job did not reach step 130"; }
    victim=$(ip netns pids ferry-h2 | while read -r p; do
               [[ $(cat /proc/$p/comm 2>/dev/null) == ferryd ]] && echo "$p"; done | head -n1)
    [[ -n $victim ]] || { kill $job; show; fail "no ferryd on h2"; }
    killed=$(date +%s.%N)
    kill -KILL "$victim"
    for i in $(seq 1 100); do
      grep -q "lost the node daemon on h2" "$work/err" && break
      sleep 0.02
    done
    noticed=$(echo "$(date +%s.%N) - $killed" | bc)
    grep -q "lost the node daemon on h2" "$work/err" || { kill $job; show; fail "no line about h2 2 s after the kill"; }
    echo "mpirun said h2's daemon was lost $noticed s after the kill"
    (($(echo "$noticed < 1.5" | bc))) || { show; fail "mpirun took $noticed s to notice the lost daemon"; }
    timeout 60 tail --pid=$job -f /dev/null || { kill $job; show; fail "the restarted job did not end within 60 s"; }
    wait $job
    status=$?
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^mpirun: leaving out h2: its node daemon was lost (connection closed); the 3 ranks restart on 2 other hosts (3 slots)$" \
      "$work/err" || { show; fail "no line leaving out h2"; }
    grep -q "^mpirun: restarting the job (restart 1 of 1)$" "$work/err" || { show; fail "no restart line"; }
    grep -Eq "^heat2d: restart 1, restored epoch [0-9]+ at step 100$" "$work/out" || { show; fail "step 100 not restored"; }
    got=$(grep '^heat2d: checksum' "$work/out")
    [[ $got == "$want" ]] || { show; fail "the restarted job ended with '$got', an uninterrupted one with '$want'"; }
    expect_nothing_left "$HEAT"
    expect_nothing_on_hosts "$HEAT"
    ;;
  checkpoint_partner_host_wiped)
    # Issue 15, SCR's PARTNER scheme: node-local checkpoints (each host its
    # own directory: %h) with a copy on the next host. Rank 0 dies after step
    # 130; before the restart h1's storage is wiped (the host stays up, so
    # the placement stays). The restarted job gets rank 0's files back from
    # its partner on h2 and ends as an uninterrupted run does, bit for bit.
    write_hosts "h1 slots=1\nh2 slots=1\nh3 slots=1\n"
    chmod 777 "$work"
    run_mpirun --hostfile "$work/hosts" -n 3 "$HEAT"
    [[ $status -eq 0 ]] || { show; fail "uninterrupted run: exit status $status"; }
    want=$(grep '^heat2d: checksum' "$work/out") || { show; fail "no checksum in the uninterrupted run"; }
    bash "$HOSTS_SH" run "$TESTBED" -- "$MPIRUN" --hostfile "$work/hosts" -n 3 \
      --checkpoint-local-dir "$work/local-%h" --checkpoint-redundancy partner --max-restarts 1 \
      --restart-delay 3 -x FERRY_DEBUG=checkpoint "$HEAT" --kill-at 130 >"$work/out" 2>"$work/err" &
    job=$!
    # mpirun says so once every rank of the failed attempt has ended.
    for i in $(seq 1 400); do
      grep -q "restarting the job" "$work/err" && break
      sleep 0.05
    done
    grep -q "restarting the job" "$work/err" || { kill $job; show; fail "mpirun did not restart the job"; }
    for h in h1 h2 h3; do
      [[ -f $work/local-$h/epoch.1/MANIFEST ]] || { kill $job; show; fail "$h has no epoch 1"; }
    done
    [[ -f $work/local-h2/epoch.1/partner/rank.0/plate.bin ]] || { kill $job; show; ls -R "$work"; fail "no copy of rank 0's files on h2"; }
    rm -rf "$work/local-h1"
    wait $job
    status=$?
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^heat2d: restart 1, restored epoch 1 at step 100$" "$work/out" || { show; fail "epoch 1 not restored"; }
    got=$(grep '^heat2d: checksum' "$work/out")
    [[ $got == "$want" ]] || { show; fail "the restarted job ended with '$got', an uninterrupted one with '$want'"; }
    grep -q "rank 0.*: epoch 1: files on h1 restored from the copy on rank 1 (h2); they were lost: " "$work/err" ||
      { show; fail "rank 0 did not say it got its files from h2"; }
    # Restoring epoch 1 on h1 needed the copy from h2; the job then went on
    # checkpointing on h1 (steps 150 to 300: epochs 2 to 5, 2 kept).
    [[ -f $work/local-h1/epoch.5/MANIFEST && -f $work/local-h1/epoch.5/partner/rank.2/plate.bin ]] ||
      { show; ls -R "$work"; fail "h1's store did not go on after the restart"; }
    expect_nothing_left "$HEAT"
    ;;
  profile_through_daemons | profile_through_daemon_chain)
    # FERRY_PROFILE without FERRY_PROFILE_DIR, 6 ranks on h1..h3: every
    # number of known_traffic's report, the remote ranks' counter files
    # carried to mpirun by their node daemons (tests/profile/check_report.py
    # "hosts"); in a chain mpirun -> h1 -> h2 -> h3 too, where h3's files
    # pass through two daemons.
    [[ $case_name == profile_through_daemon_chain ]] && export FERRY_LAUNCH_FANOUT=1
    python3 "$PROFILE_CHECK" "$MPIRUN" "$KNOWN_TRAFFIC" hosts "$HOSTS_SH" "$TESTBED" || fail "check_report.py hosts"
    expect_nothing_left "$KNOWN_TRAFFIC"
    ;;
  profile_spawned_through_daemons | profile_spawned_through_daemon_chain)
    # FERRY_PROFILE without FERRY_PROFILE_DIR, a parent on each of h1..h3 spawning two children
    # onto h2 and h3: the children count in their host's node daemon's directory, not mpirun's
    # (which only mpirun's host has), and those daemons send the spawned job's counter files up
    # the tree: report.spawn1 has every number (tests/profile/check_report.py "spawn_hosts"); in a
    # chain mpirun -> h1 -> h2 -> h3 too, where h3's files pass through two daemons.
    [[ $case_name == profile_spawned_through_daemon_chain ]] && export FERRY_LAUNCH_FANOUT=1
    python3 "$PROFILE_CHECK" "$MPIRUN" "$SPAWN_TRAFFIC" spawn_hosts "$HOSTS_SH" "$TESTBED" ||
      fail "check_report.py spawn_hosts"
    expect_nothing_left "$SPAWN_TRAFFIC"
    ;;
  profile_spawn_refused_remote)
    # FERRY_PROFILE without FERRY_PROFILE_DIR, a spawn that h1's daemon refuses (its program
    # is missing there): mpirun expects no counter files of a part that never started, so the
    # job ends at once with its report, not after the wait for files that never come.
    write_hosts "h1 slots=2\nh2 slots=1\nh3 slots=1\n"
    FERRY_PROFILE=$work/report.html run_mpirun --map-by node --hostfile "$work/hosts" -n 2 "$SPAWN_HOSTS" refused h1 h3
    [[ $status -eq 0 ]] || { show; fail "exit status $status"; }
    grep -q "^spawn_hosts: OK$" "$work/out" || { show; fail "no OK line"; }
    grep -q "did not come within" "$work/err" && { show; fail "mpirun waited for the files of a part that did not start"; }
    (($(echo "$seconds < 8" | bc))) || { show; fail "the job took $seconds s"; }
    grep -q "^mpirun: FERRY_PROFILE: report written to $work/report.html" "$work/err" || { show; fail "no whole report"; }
    expect_nothing_left "$SPAWN_HOSTS"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "$case_name: OK"
