#!/bin/sh
# A launch agent for simulated hosts (tree_cases.sh, tests/bench/tree_start.sh):
# called as `sim_agent.sh HOST COMMAND` like `ssh HOST COMMAND`, it runs
# COMMAND on this machine, so that hosts sim1..simN, each a name mpirun and
# the daemons take for another host, are all this one: one ferryd per name,
# each starting its own children through this agent again.
# SIM_FAIL_HOSTS (space-separated names): refused as ssh refuses a host.
# SIM_DELAY (seconds): waited before the command runs, standing in for
# ssh's connection and authentication (about 0.25 s per hop on the test bed).
host=$1
shift
[ -n "${SIM_DELAY:-}" ] && sleep "$SIM_DELAY"
case " ${SIM_FAIL_HOSTS:-} " in
  *" $host "*)
    echo "ssh: connect to host $host port 22: Connection refused" >&2
    exit 255 ;;
esac
exec sh -c "$1"
