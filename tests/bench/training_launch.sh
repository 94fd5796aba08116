#!/bin/sh
# Launch to the first training step (issue 30): examples/train_torch.py at RANKS
# ranks on this host, started by mpirun and by torchrun's launcher, alternately
# in one run; then, with mpirun --max-restarts 1, from a rank's SIGKILL to the
# restarted job's first step. Figures, not a verdict: not run by ctest.
#
#   tests/bench/training_launch.sh build/bin/mpirun [RANKS] [RUNS]
#
# Prints each run and the medians, in seconds. Needs python3-torch.
set -eu
# torchrun --standalone --nproc_per_node N is elastic_launch with a c10d
# rendezvous on a free local port. Debian 12's torchrun command cannot start a
# job (torch 1.13 parses --redirects/--tee with an enum comparison that Python
# 3.11 changed: every value becomes None), so its launcher is called directly.
torchrun_standalone() {
  "$PYTHON" - "$@" <<'PY'
import sys, uuid
from torch.distributed.launcher.api import LaunchConfig, elastic_launch
config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=int(sys.argv[1]), run_id=str(uuid.uuid4()),
                      rdzv_backend="c10d", rdzv_endpoint="localhost:0", max_restarts=0, monitor_interval=5)
elastic_launch(config, sys.executable)(*sys.argv[2:])
PY
}
MPIRUN=$1
RANKS=${2:-4}
RUNS=${3:-5}
PYTHON=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
script=$here/../../examples/train_torch.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
first_step() { sed -n 's/^first step [0-9]* at \([0-9.]*\) (restart '"$2"')$/\1/p' "$1" | head -n 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

i=0
while [ $i -lt "$RUNS" ]; do
  t0=$(now)
  "$MPIRUN" -n "$RANKS" "$PYTHON" "$script" --steps 5 >"$work/m" 2>&1
  m=$(echo "$(first_step "$work/m" 0) - $t0" | bc)
  t0=$(now)
  torchrun_standalone "$RANKS" "$script" --steps 5 >"$work/t" 2>&1
  t=$(echo "$(first_step "$work/t" 0) - $t0" | bc)
  echo "run $i: launch to first step: mpirun $m s, torchrun $t s"
  echo "$m" >>"$work/mpirun"
  echo "$t" >>"$work/torchrun"

  # A rank killed after the first checkpoint; the restarted job's first step.
  rm -f "$work/ck.pt"
  "$MPIRUN" --max-restarts 1 -n "$RANKS" "$PYTHON" "$script" --steps 200 --step-seconds 0.02 \
    --checkpoint "$work/ck.pt" --checkpoint-every 20 >"$work/r" 2>&1 &
  job=$!
  while [ ! -f "$work/ck.pt" ]; do sleep 0.05; done
  victim=""
  for pid in $(pgrep -f "$PYTHON $script"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=1"; then victim=$pid; fi
  done
  killed=$(now)
  kill -KILL "$victim"
  wait "$job" || true
  r=$(echo "$(first_step "$work/r" 1) - $killed" | bc)
  echo "run $i: SIGKILL of rank 1 to the restarted job's first step: $r s"
  echo "$r" >>"$work/restart"
  i=$((i + 1))
done
echo "median launch to first step, $RANKS ranks: mpirun $(median <"$work/mpirun") s, torchrun $(median <"$work/torchrun") s"
echo "median rank killed to first step of the restarted job: $(median <"$work/restart") s"
