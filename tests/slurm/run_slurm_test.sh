#!/bin/sh
# Runs one command against the test cluster of slurm.sh and judges it with
# tests/mpi/run_mpi_test.sh (exit status, output, time, leftover ranks).
#
# Usage: run_slurm_test.sh DIR RUN_MPI_TEST [run_mpi_test options] -- command...
#
# Exits 77 (ctest's SKIP) when the cluster in DIR is not running: ctest still
# runs a fixture's tests when its setup was skipped (no root, no packages).
[ $# -ge 3 ] || { echo "usage: run_slurm_test.sh DIR RUN_MPI_TEST [options] -- command..." >&2; exit 2; }
dir=$1
run_mpi_test=$2
shift 2

pid=$(cat "$dir/slurmctld.pid" 2>/dev/null)
if [ ! -f "$dir/slurm.conf" ] || [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
  echo "run_slurm_test: SKIPPED: no test cluster running in $dir (see the slurm.up test)"
  exit 77
fi
SLURM_CONF=$dir/slurm.conf
export SLURM_CONF
exec sh "$run_mpi_test" "$@"
