#!/usr/bin/env bash
# A job that Slurm requeues restores from its checkpoint (issue 15), for real:
# sbatch runs a script whose `srun --mpi=pmix` starts heat2d's ranks directly
# (no mpirun, so Ferry's launcher restarts nothing). In the first run rank 0
# dies after step 130, past the checkpoint of step 100; the script then
# requeues its own job (`scontrol requeue $SLURM_JOB_ID`). Slurm runs it again
# with SLURM_RESTART_COUNT=1: MPIX_Restart_count reports 1, the ranks restore
# step 100 from FERRY_CHECKPOINT_DIR (exported through sbatch and srun) and
# end with the checksum of an uninterrupted run.
#
# Usage: requeue_restores.sh CLUSTER_DIR HEAT
# Exits 77 (ctest's SKIP) when the cluster of slurm.sh is not running.
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: requeue_restores.sh CLUSTER_DIR HEAT" >&2; exit 2; }
cluster=$1
heat=$2
pid=$(cat "$cluster/slurmctld.pid" 2>/dev/null)
if [[ ! -f $cluster/slurm.conf || -z $pid ]] || ! kill -0 "$pid" 2>/dev/null; then
  echo "requeue_restores: SKIPPED: no test cluster running in $cluster (see the slurm.up test)"
  exit 77
fi
export SLURM_CONF=$cluster/slurm.conf
unset FERRY_CHECKPOINT_DIR FERRY_RESTART_COUNT FERRY_RESTART_FROM SLURM_RESTART_COUNT

work=$(mktemp -d /tmp/ferry-requeue.XXXXXX)
job_id=""
cleanup() {
  [[ -n $job_id ]] && scancel --quiet "$job_id" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "requeue_restores: rank -1: FAILED: $*"
  echo "--- job output:"; cat "$work/out" 2>/dev/null
  [[ -n $job_id ]] && scontrol show job "$job_id" 2>/dev/null
  exit 1
}

# The uninterrupted run's answer, without checkpoints.
timeout 60 srun --mpi=pmix -n 3 "$heat" >"$work/plain" 2>&1 || { cat "$work/plain"; fail "uninterrupted run"; }
want=$(grep '^heat2d: checksum' "$work/plain") || { cat "$work/plain"; fail "no checksum in the uninterrupted run"; }

cat >"$work/job.sh" <<EOF
#!/bin/bash
echo "job: SLURM_RESTART_COUNT=\${SLURM_RESTART_COUNT:-unset}"
srun --mpi=pmix -n 3 "$heat" --kill-at 130
rc=\$?
echo "job: srun exited with status \$rc"
if [ \$rc -ne 0 ] && [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
  scontrol requeue "\$SLURM_JOB_ID"
  sleep 60  # the requeue ends this run
fi
exit \$rc
EOF
chmod +x "$work/job.sh"
mkdir "$work/ckpt"
# --open-mode=append: the second run's output follows the first's.
job_id=$(FERRY_CHECKPOINT_DIR=$work/ckpt sbatch --parsable --requeue --open-mode=append -n 3 \
           -o "$work/out" "$work/job.sh") || fail "sbatch failed"
# The requeued run may start cred_expire (10 s, slurm.sh) after the first ended.
for ((i = 0; i < 900; i++)); do
  state=$(squeue --noheader --jobs="$job_id" --format=%T 2>/dev/null)
  [[ -z $state || $state == COMPLETED || $state == FAILED ]] && break
  sleep 0.1
done
[[ -z $state || $state == COMPLETED || $state == FAILED ]] || fail "the job is still $state after 90 s"
cat "$work/out"

grep -q "^job: SLURM_RESTART_COUNT=unset$" "$work/out" || fail "no first run"
grep -Eq "^job: srun exited with status [1-9][0-9]*$" "$work/out" || fail "the first run's srun did not fail"
grep -q "^job: SLURM_RESTART_COUNT=1$" "$work/out" || fail "Slurm did not run the job again"
grep -Eq "^heat2d: restart 1, restored epoch [0-9]+ at step 100$" "$work/out" ||
  fail "the requeued run did not report restart 1 and restore step 100"
grep -q "^job: srun exited with status 0$" "$work/out" || fail "the requeued run's srun failed"
got=$(grep '^heat2d: checksum' "$work/out")
[[ $got == "$want" ]] || fail "the requeued job ended with '$got', an uninterrupted one with '$want'"
scontrol show job "$job_id" | grep -q "Restarts=1 " || fail "Slurm does not count one restart"
if [[ -n $(pgrep -f "^$heat( |$)") ]]; then
  pgrep -af "^$heat( |$)"
  fail "heat2d processes left after the job"
fi
echo "requeue_restores: OK"
