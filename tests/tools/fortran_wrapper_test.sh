# mpifort, mpif90 and mpif77 speak mpicc's dialects (wrapper_flags_test.sh) with Fortran's
# differences: the include directory holds mpif.h (generated into the build tree), the libraries are
# libmpifort then libmpi, gfortran is told to accept mpif.h's interface-less calls, and the compiler
# comes from MPICH_FC, OMPI_FC or -fc=. Then each wrapper builds and runs a program: a mpif.h
# program in fixed form (as mpif77 users write) and in free form, linked against Ferry's libraries.
#
# Usage: fortran_wrapper_test.sh BINDIR FORTRAN_INCLUDEDIR LIBDIR
# The flag lists below are split into words on purpose.
# shellcheck disable=SC2086
bindir=$1 includedir=$2 libdir=$3
. "$(dirname "$0")/testlib.sh"

link_flags="-L$libdir -Wl,-rpath,$libdir -Wl,--enable-new-dtags -lmpifort -lmpi"
for name in mpifort mpif90 mpif77; do
  wrapper=$bindir/$name
  [ -x "$wrapper" ] || fail "$wrapper is missing"
  show=$("$wrapper" -show prog.f90 -o prog) || fail "$name -show exited $?"
  expect_words "$show" "-I$includedir" $link_flags prog.f90 -o prog
  case $show in
    *" prog.f90 "*" -lmpifort -lmpi"*) ;;
    *) fail "$name: -lmpifort -lmpi must follow the inputs: $show" ;;
  esac
  out=$("$wrapper" -show -c prog.f90)
  expect_no_words "$out" -lmpifort -lmpi "-L$libdir"
  [ "$("$wrapper" -showme:libs)" = "mpifort mpi" ] || fail "$name -showme:libs: $("$wrapper" -showme:libs)"
  [ "$("$wrapper" -showme:link)" = "$link_flags" ] || fail "$name -showme:link: $("$wrapper" -showme:link)"
  [ "$("$wrapper" -showme:incdirs)" = "$includedir" ] || fail "$name -showme:incdirs"
  expect_words "$("$wrapper" -showme:compile)" "-I$includedir"
  [ -f "$includedir/mpif.h" ] || fail "no mpif.h in $includedir"

  first_word() { set -- $1; echo "$1"; }
  [ "$(first_word "$(env -u MPICH_FC OMPI_FC=ofc "$wrapper" -show)")" = ofc ] || fail "$name: OMPI_FC ignored"
  [ "$(first_word "$(env MPICH_FC=mfc OMPI_FC=ofc "$wrapper" -show)")" = mfc ] || fail "$name: MPICH_FC ignored"
  [ "$(first_word "$(env MPICH_FC=mfc "$wrapper" -fc=opt -show)")" = opt ] || fail "$name: -fc= ignored"
done

# Built and run: a fixed-form program through mpif77, a free-form one through mpifort, each passing a
# REAL and an INTEGER buffer to MPI_BCAST (an error for gfortran 10 without the wrapper's flag).
cat >"$scratch/fixed.f" <<'FORTRAN'
      program fixed
      include 'mpif.h'
      integer ierr, n
      real x
      call MPI_INIT(ierr)
      n = 1
      x = 2.5
      call MPI_BCAST(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      call MPI_BCAST(x, 1, MPI_REAL, 0, MPI_COMM_WORLD, ierr)
      call MPI_FINALIZE(ierr)
      print '(a)', 'fixed: OK'
      end
FORTRAN
sed -e 's/^      //' -e 's/fixed/free/g' "$scratch/fixed.f" >"$scratch/free.f90"
"$bindir/mpif77" -o "$scratch/fixed" "$scratch/fixed.f" || fail "mpif77 could not build a fixed-form program"
"$bindir/mpifort" -o "$scratch/free" "$scratch/free.f90" || fail "mpifort could not build a free-form program"
[ "$("$scratch/fixed")" = "fixed: OK" ] || fail "the mpif77-built program did not run as a singleton"
[ "$("$scratch/free")" = "free: OK" ] || fail "the mpifort-built program did not run as a singleton"
case $(ldd "$scratch/free") in
  *"libmpifort.so.12 => $libdir/libmpifort.so.12"*) ;;
  *) fail "the mpifort-built program does not load $libdir/libmpifort.so.12: $(ldd "$scratch/free")" ;;
esac

echo "mpifort, mpif90 and mpif77 flags: ok"
