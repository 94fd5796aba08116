# CMake's FindMPI, pointed at Ferry's mpicc/mpicxx, finds MPI (MPI_C_FOUND),
# reads the include dir and libmpi from the wrappers, and the project builds
# programs that find libmpi.so.12 without LD_LIBRARY_PATH. Where mpifort exists,
# the same for MPI::MPI_Fortran (mpif.h, the mpi module, libmpifort).
#
# Usage: find_mpi_test.sh BINDIR INCLUDEDIR LIBDIR [CMAKE [GENERATOR]]
# BINDIR holds mpicc and mpicxx (the build tree's or an installed one).
bindir=$1 includedir=$2 libdir=$3 cmake=${4:-cmake} generator=${5:-}
. "$(dirname "$0")/testlib.sh"

project=$(cd "$(dirname "$0")/find_mpi_project" && pwd)
# FindMPI reports resolved paths.
includedir=$(cd -P -- "$includedir" && pwd) || fail "no include dir $includedir"
libdir=$(cd -P -- "$libdir" && pwd) || fail "no lib dir $libdir"

set -- -S "$project" -B "$scratch/build" \
  -DMPI_C_COMPILER="$bindir/mpicc" -DMPI_CXX_COMPILER="$bindir/mpicxx" \
  -DEXPECTED_INCLUDE_DIR="$includedir" -DEXPECTED_LIBMPI="$libdir/libmpi.so"
if [ -n "$generator" ]; then set -- "$@" -G "$generator"; fi
"$cmake" "$@" >"$scratch/configure.log" 2>&1 || {
  cat "$scratch/configure.log"
  tail -n 40 "$scratch/build/CMakeFiles/CMakeError.log" 2>/dev/null
  fail "configuring a project with find_package(MPI) failed"
}
grep 'MPI_C:' "$scratch/configure.log"
"$cmake" --build "$scratch/build" >"$scratch/build.log" 2>&1 || {
  cat "$scratch/build.log"
  fail "building with MPI::MPI_C / MPI::MPI_CXX failed"
}
for program in mpi_check_c mpi_check_cxx; do
  got=$(resolved_lib "$scratch/build/$program" libmpi.so.12)
  [ "$got" = "$libdir/libmpi.so.12" ] || fail "$program loads libmpi.so.12 from '$got', not $libdir"
done

# Fortran, where mpifort was built: the include dir is the one holding mpif.h and mpi.mod (the
# build tree's build/include, or the installed include dir).
if [ -x "$bindir/mpifort" ]; then
  fortran_includedir=$("$bindir/mpifort" -showme:incdirs)
  fortran_includedir=$(cd -P -- "$fortran_includedir" && pwd) || fail "no Fortran include dir"
  set -- -S "$(dirname "$project")/find_mpi_fortran_project" -B "$scratch/build_fortran" \
    -DMPI_Fortran_COMPILER="$bindir/mpifort" -DEXPECTED_INCLUDE_DIR="$fortran_includedir" -DEXPECTED_LIBDIR="$libdir"
  if [ -n "$generator" ]; then set -- "$@" -G "$generator"; fi
  "$cmake" "$@" >"$scratch/configure_fortran.log" 2>&1 || {
    cat "$scratch/configure_fortran.log"
    fail "configuring a Fortran project with find_package(MPI COMPONENTS Fortran) failed"
  }
  grep 'MPI_Fortran:' "$scratch/configure_fortran.log"
  "$cmake" --build "$scratch/build_fortran" >"$scratch/build_fortran.log" 2>&1 || {
    cat "$scratch/build_fortran.log"
    fail "building with MPI::MPI_Fortran failed"
  }
  got=$(resolved_lib "$scratch/build_fortran/mpi_check_fortran" libmpifort.so.12)
  [ "$got" = "$libdir/libmpifort.so.12" ] || fail "mpi_check_fortran loads libmpifort.so.12 from '$got', not $libdir"
fi

echo "FindMPI with $bindir/mpicc: ok"
