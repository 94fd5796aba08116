#!/bin/sh
# Runs a Fortran program built with MPICH's mpif90 the way it runs on Ferry: Ferry's lib directory
# first in LD_LIBRARY_PATH. First ldd must show that libmpichfort.so.12 (and libmpich.so.12 or
# libmpi.so.12, whichever it loads) resolve into that directory and that no other MPI library is loaded (a library of MPICH's in the
# process would answer some calls and make the test prove nothing); then the job runs under mpirun
# with FERRY_DEBUG=init, whose "ferry INFO" line shows that Ferry's library answered.
#
# Usage: run_mpich_fortran.sh LIBDIR MPIRUN RANKS PROGRAM
set -eu
libdir=$1 mpirun=$2 ranks=$3 program=$4

fail() {
  echo "run_mpich_fortran: $*" >&2
  exit 1
}

loaded=$(LD_LIBRARY_PATH=$libdir ldd "$program") || fail "ldd $program failed"
# libmpichfort.so.12 always; libmpich.so.12 when the program calls C too (the linker's --as-needed
# drops it otherwise) and libmpi.so.12 through libmpichfort: each found must be Ferry's.
for lib in libmpichfort.so.12 libmpich.so.12 libmpi.so.12; do
  path=$(printf '%s\n' "$loaded" | awk -v lib="$lib" '$1 == lib { print $3 }')
  case $path in
    "") [ "$lib" != libmpichfort.so.12 ] || fail "$program does not load $lib:
$loaded" ;;
    "$libdir"/*) ;;
    *) fail "$lib resolves to $path, not into $libdir:
$loaded" ;;
  esac
done
# Nothing else MPI-ish from outside (Debian's libmpich's own dependencies would show here).
outside=$(printf '%s\n' "$loaded" | grep -E 'mpi|hydra|ucx|libfabric' | grep -v -F "$libdir/" || true)
[ -z "$outside" ] || fail "$program loads MPI libraries from outside $libdir:
$outside"
echo "ldd: $program loads only Ferry's MPI libraries from $libdir"

exec env LD_LIBRARY_PATH="$libdir" FERRY_DEBUG=init "$mpirun" -n "$ranks" "$program"
