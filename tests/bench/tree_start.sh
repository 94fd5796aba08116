#!/usr/bin/env bash
# Time to start a job vs the number of hosts, on simulated hosts (issue 32):
# sim1..simN through tests/launcher/sim_agent.sh (every "host" is this
# machine, each with its own ferryd), one rank per host, each rank a PMIx
# client that does PMIx_Init, a fence and PMIx_Finalize
# (tests/launcher/pmix_client_probe bench).
#   tree_start.sh MPIRUN PROBE [HOSTS...]        (default 3 8 16 32 64 128 256)
# Environment: FANOUTS (default "32 2"), REPS (default 1), SIM_DELAY (seconds
# the agent waits per start, as ssh's round trips would take; default 0).
# Prints one row per run: hosts, fan-out, tree depth, ms until mpirun heard
# that every daemon was up (FERRY_DEBUG=launch), ms for the whole mpirun,
# and the load average at the start.
set -u
MPIRUN=$(readlink -f "$1")
PROBE=$(readlink -f "$2")
shift 2
HOSTS_LIST=${*:-3 8 16 32 64 128 256}
AGENT=$(cd "$(dirname "$0")/../launcher" && pwd)/sim_agent.sh
WORK=$(mktemp -d /tmp/tree-start.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
printf '#!/bin/sh\nexec "%s" bench\n' "$PROBE" >"$WORK/rank.sh"
chmod +x "$WORK/rank.sh"

printf '%-6s %-7s %-6s %-12s %-10s %s\n' hosts fanout depth daemons_ms total_ms load
for n in $HOSTS_LIST; do
  : >"$WORK/hosts"
  for i in $(seq 1 "$n"); do echo "sim$i slots=1" >>"$WORK/hosts"; done
  for fanout in ${FANOUTS:-32 2}; do
    for _ in $(seq 1 "${REPS:-1}"); do
      load=$(cut -d' ' -f1 /proc/loadavg)
      start=$(date +%s%N)
      FERRY_LAUNCH_FANOUT=$fanout FERRY_DEBUG=launch timeout 300 "$MPIRUN" --hostfile "$WORK/hosts" \
        --launch-agent "$AGENT" --bind-to none --no-torch-env -n "$n" "$WORK/rank.sh" >"$WORK/out" 2>"$WORK/err" </dev/null
      status=$?
      total=$((($(date +%s%N) - start) / 1000000))
      up=$(sed -n 's/.*all [0-9]* node daemons up in \([0-9.]*\) ms (tree depth \([0-9]*\).*/\1 \2/p' "$WORK/err")
      # An mpirun before the tree start (which started every daemon itself):
      # its own line.
      [ -n "$up" ] || up=$(sed -n 's/.*mpirun: [0-9]* node daemons started in \([0-9.]*\) ms.*/\1 -/p' "$WORK/err")
      [ $status -eq 0 ] || { echo "hosts $n fanout $fanout: exit status $status" >&2; tail -5 "$WORK/err" >&2; }
      printf '%-6s %-7s %-6s %-12s %-10s %s\n' "$n" "$fanout" "${up#* }" "${up%% *}" "$total" "$load"
    done
  done
done
