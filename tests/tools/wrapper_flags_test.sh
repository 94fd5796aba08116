# mpicc/mpicxx print and pass the flags that build against Ferry, in both the
# MPICH and the Open MPI dialects, keep the user's arguments intact and add no
# link flags when the compiler will not link. Needs no libmpi.
#
# Usage: wrapper_flags_test.sh BINDIR INCLUDEDIR LIBDIR
# The flag lists below are split into words on purpose.
# shellcheck disable=SC2086
bindir=$1 includedir=$2 libdir=$3
. "$(dirname "$0")/testlib.sh"

mpicc=$bindir/mpicc
mpicxx=$bindir/mpicxx
compile_flags="-I$includedir"
link_flags="-L$libdir -Wl,-rpath,$libdir -Wl,--enable-new-dtags -lmpi"

# MPICH's -show: the whole command, the input before -lmpi.
show=$("$mpicc" -show hello.c -o hello) || fail "mpicc -show exited $?"
expect_words "$show" $compile_flags $link_flags hello.c -o hello
case $show in
  *" hello.c "*" -lmpi"*) ;;
  *) fail "-lmpi must follow the inputs: $show" ;;
esac
# With no arguments too (FindMPI and configure scripts ask exactly this).
expect_words "$("$mpicc" -show)" $compile_flags $link_flags
expect_words "$("$mpicc" -showme)" $compile_flags $link_flags

# Compile-only invocations get no link flags.
for opt in -c -S -E -M -MM; do
  out=$("$mpicc" -show $opt x.c) || fail "mpicc -show $opt exited $?"
  expect_words "$out" $compile_flags "$opt" x.c
  expect_no_words "$out" -lmpi "-L$libdir" -Wl,--enable-new-dtags
done

# The parts, in both dialects.
[ "$("$mpicc" -showme:compile)" = "$compile_flags" ] || fail "-showme:compile: $("$mpicc" -showme:compile)"
[ "$("$mpicc" -showme:link)" = "$link_flags" ] || fail "-showme:link: $("$mpicc" -showme:link)"
[ "$("$mpicc" --showme:compile)" = "$compile_flags" ] || fail "--showme:compile"
[ "$("$mpicc" -show-compile-info)" = "$compile_flags" ] || fail "-show-compile-info"
[ "$("$mpicc" -show-link-info)" = "$link_flags" ] || fail "-show-link-info"
[ "$("$mpicc" -showme:incdirs)" = "$includedir" ] || fail "-showme:incdirs"
[ "$("$mpicc" -showme:libdirs)" = "$libdir" ] || fail "-showme:libdirs"
[ "$("$mpicc" -showme:libs)" = "mpi" ] || fail "-showme:libs"
out=$("$mpicc" -compile_info) || fail "-compile_info exited $?"
expect_words "$out" $compile_flags
expect_no_words "$out" -lmpi
expect_words "$("$mpicc" -link_info)" $compile_flags $link_flags
expect_words "$("$mpicc" -compile-info)" $compile_flags
expect_words "$("$mpicc" -link-info)" $link_flags
if "$mpicc" -showme:nonsense >/dev/null 2>&1; then fail "an unknown -showme: option must fail"; fi

# Choosing the compiler: option > MPICH_* > OMPI_* > default.
first_word() { set -- $1; echo "$1"; }
[ "$(first_word "$(env -u MPICH_CC -u OMPI_CC OMPI_CC=occ "$mpicc" -show)")" = occ ] || fail "OMPI_CC ignored"
[ "$(first_word "$(env -u OMPI_CC MPICH_CC=mcc "$mpicc" -show)")" = mcc ] || fail "MPICH_CC ignored"
[ "$(first_word "$(env MPICH_CC=mcc OMPI_CC=occ "$mpicc" -show)")" = mcc ] || fail "MPICH_CC must beat OMPI_CC"
[ "$(first_word "$(env MPICH_CC=mcc "$mpicc" -cc=opt -show)")" = opt ] || fail "-cc= must beat MPICH_CC"
[ "$(first_word "$(env -u MPICH_CXX -u OMPI_CXX OMPI_CXX=oxx "$mpicxx" -show)")" = oxx ] || fail "OMPI_CXX ignored"
[ "$(first_word "$(env MPICH_CXX=mxx OMPI_CXX=oxx "$mpicxx" -show)")" = mxx ] || fail "MPICH_CXX ignored"
[ "$(first_word "$(env MPICH_CXX=mxx "$mpicxx" -cxx=opt -show)")" = opt ] || fail "-cxx= ignored"
expect_words "$("$mpicxx" -show x.cc)" $compile_flags $link_flags x.cc
# A compiler given with a launcher in front (MPICH_CC="ccache gcc") is split into words.
case $(env MPICH_CC="ccache gcc" "$mpicc" -show x.c) in
  "ccache gcc "*) ;;
  *) fail "MPICH_CC='ccache gcc' not split into words" ;;
esac

# The arguments reach the compiler unchanged (spaces, quotes, globs).
fake=$scratch/fakecc
printf '#!/bin/sh\nfor a do printf "<%%s>\\n" "$a"; done\n' >"$fake"
chmod +x "$fake"
got=$(MPICH_CC=$fake "$mpicc" 'a b.c' -DX='"1 2"' '*.c' -o out)
want="<-I$includedir>
<-L$libdir>
<a b.c>
<-DX=\"1 2\">
<*.c>
<-o>
<out>
<-Wl,-rpath,$libdir>
<-Wl,--enable-new-dtags>
<-lmpi>"
[ "$got" = "$want" ] || fail "arguments changed on the way to the compiler:
$got
instead of
$want"

# No input: "mpicc --version" must not link (a link without main would fail).
got=$(MPICH_CC=$fake "$mpicc" --version)
[ "$got" = "<-I$includedir>
<--version>" ] || fail "mpicc --version passed link flags: $got"

# MPICH_CC naming the wrapper itself fails at once instead of recursing.
if out=$(MPICH_CC=$mpicc "$mpicc" x.c 2>&1); then fail "MPICH_CC=mpicc must fail"; fi
case $out in
  *"runs mpicc again"*) ;;
  *) fail "unexpected message for MPICH_CC=mpicc: $out" ;;
esac

echo "mpicc and mpicxx flags: ok"
