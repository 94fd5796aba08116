# mpicc passes the probes an autoconf configure script makes with CC=mpicc
# (AC_PROG_CC, AC_PROG_CPP, AC_CHECK_HEADER(mpi.h), AC_CHECK_FUNC(MPI_Init) as
# AX_MPI uses it), and what it links runs without LD_LIBRARY_PATH.
# Needs libmpi.so and the headers.
#
# Usage: autoconf_cc_test.sh BINDIR INCLUDEDIR LIBDIR
bindir=$1 includedir=$2 libdir=$3
. "$(dirname "$0")/testlib.sh"

CC=$bindir/mpicc
cd "$scratch" || fail "cd $scratch"

# AC_PROG_CC: version probes with no input, then a trivial program that links and runs.
"$CC" --version >/dev/null 2>&1 || fail "mpicc --version exited $?"
"$CC" -v >/dev/null 2>&1 || fail "mpicc -v exited $?"
printf 'int main(void) { return 0; }\n' >conftest.c
"$CC" -o conftest conftest.c || fail "mpicc could not link a trivial program"
env -u LD_LIBRARY_PATH ./conftest || fail "the trivial program did not run"
"$CC" -c conftest.c || fail "mpicc -c exited $?"
[ -f conftest.o ] || fail "mpicc -c did not produce conftest.o"
"$CC" -o conftest2 conftest.o || fail "mpicc could not link an object file"

# AC_PROG_CPP with CPP="$CC -E"; AC_CHECK_HEADER(mpi.h) compiles with it.
printf '#include <mpi.h>\n#if MPI_VERSION < 3\n#error old\n#endif\nint x;\n' >conftest_h.c
"$CC" -E conftest_h.c >/dev/null || fail "mpicc -E could not preprocess #include <mpi.h>"
"$CC" -c conftest_h.c || fail "mpicc -c could not compile #include <mpi.h>"

# AC_CHECK_FUNC(MPI_Init): links a call through a prototype-less declaration.
cat >conftest_f.c <<'SRC'
char MPI_Init (void);
int main (void) { return MPI_Init (); }
SRC
"$CC" -o conftest_f conftest_f.c || fail "AC_CHECK_FUNC(MPI_Init) would fail: MPI_Init did not link"

# A real MPI program, compiled and linked in one step and in two.
cat >conftest_mpi.c <<'SRC'
#include <mpi.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
SRC
"$CC" -o conftest_mpi conftest_mpi.c || fail "could not build an MPI program"
"$CC" -c conftest_mpi.c || fail "could not compile an MPI program with -c"
"$CC" -o conftest_mpi2 conftest_mpi.o || fail "could not link an MPI object file"
expect_words "$(runpath conftest_mpi)" "$libdir"
[ "$(resolved_lib conftest_mpi libmpi.so.12)" = "$libdir/libmpi.so.12" ] ||
  fail "libmpi.so.12 resolves to '$(resolved_lib conftest_mpi libmpi.so.12)', not $libdir/libmpi.so.12"

# Scripts that parse -show: the compiler, then the flags.
# shellcheck disable=SC2046
set -- $("$CC" -show)
[ -n "$(command -v "$1")" ] || fail "the first word of mpicc -show is not a command: $1"
shift
expect_words "$*" "-I$includedir" -lmpi "-L$libdir"

echo "mpicc as autoconf's CC: ok"
