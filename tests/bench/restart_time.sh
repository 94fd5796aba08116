#!/bin/sh
# How long mpirun takes to restart a failed job on one host (issue 15): from
# the failing rank's last word to every rank of the next attempt running
# (its main() entered), against a first launch measured the same way (mpirun
# started to every rank running). Figures, not a verdict: not run by ctest.
#
#   tests/bench/restart_time.sh build/bin/mpirun build/bin/restart_probe [RANKS] [RUNS]
#
# Prints the median and the worst of RUNS runs, in milliseconds.
set -eu
MPIRUN=$1
PROBE=$2
RANKS=${3:-4}
RUNS=${4:-20}
out=$(mktemp)
trap 'rm -f "$out" "$out.r" "$out.l"' EXIT

now_us() { echo $(($(date +%s%N) / 1000)); }

i=0
while [ $i -lt "$RUNS" ]; do
  start=$(now_us)
  "$MPIRUN" --max-restarts 1 -n "$RANKS" "$PROBE" fail-once exit 0 >"$out" 2>/dev/null </dev/null
  failed=$(sed -n 's/.*attempt 0 fails at=\([0-9]*\).*/\1/p' "$out")
  first=$(sed -n 's/.*attempt 0 started at=\([0-9]*\).*/\1/p' "$out" | sort -n | tail -1)
  again=$(sed -n 's/.*attempt 1 started at=\([0-9]*\).*/\1/p' "$out" | sort -n | tail -1)
  n0=$(grep -c "attempt 0 started" "$out" || true)
  n1=$(grep -c "attempt 1 started" "$out" || true)
  # A run counts when the failing rank spoke and every rank ran again; for
  # the first launch, only when every rank of attempt 0 came up before the
  # failure ended them.
  if [ -n "$failed" ] && [ "$n1" -eq "$RANKS" ]; then
    echo $(((again - failed))) >>"$out.r"
    [ "$n0" -eq "$RANKS" ] && echo $(((first - start))) >>"$out.l"
  fi
  i=$((i + 1))
done

report() {  # FILE WHAT
  sort -n "$1" | awk -v what="$2" '{ v[NR] = $1 } END {
    if (NR == 0) { print what ": no complete run"; exit }
    printf "%s: median %.1f ms, worst %.1f ms (%d runs)\n", what, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000, NR }'
}
echo "restart_time: $RANKS ranks on one host, $(nproc) cores"
report "$out.r" "failure to ranks running again"
[ -s "$out.l" ] && report "$out.l" "first launch, mpirun start to ranks running"
exit 0
