# `cmake --install` gives a relocatable tree: the expected layout, no build
# paths in what was installed (RUNPATHs only $ORIGIN-relative or the system's
# PMIx), wrappers and ferry.pc that still work after the tree is moved, and an
# installed mpicc whose programs run under the installed mpirun -n 2.
#
# Usage: install_tree_test.sh BUILDDIR SOURCEDIR PMIX_LIBDIR CMAKE GENERATOR
builddir=$1 sourcedir=$2 pmix_libdir=$3 cmake=$4 generator=$5
. "$(dirname "$0")/testlib.sh"
here=$(cd "$(dirname "$0")" && pwd)

prefix=$scratch/installed
"$cmake" --install "$builddir" --prefix "$prefix" >"$scratch/install.log" 2>&1 || {
  cat "$scratch/install.log"
  fail "cmake --install failed"
}

# --- Layout ---------------------------------------------------------------------
for f in bin/mpirun bin/mpicc bin/mpicxx bin/ferry_info; do
  [ -f "$prefix/$f" ] || fail "missing $f"
  [ -x "$prefix/$f" ] || fail "$f is not executable"
done
for f in lib/libmpi.so.12 lib/libmpi.so include/mpi.h include/mpio.h include/mpix.h \
  lib/pkgconfig/ferry.pc lib/pkgconfig/mpi.pc; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
expect_link() {  # expect_link LINK TARGET: LINK is a symlink whose text is TARGET
  [ -L "$prefix/$1" ] || fail "$1 is not a symlink"
  [ "$(readlink "$prefix/$1")" = "$2" ] || fail "$1 points to $(readlink "$prefix/$1"), not $2"
}
expect_link bin/mpiexec mpirun
expect_link lib/libmpich.so.12 libmpi.so.12
expect_link lib/libmpich.so libmpi.so.12
[ "$(readelf -d "$prefix/lib/libmpi.so.12" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = libmpi.so.12 ] ||
  fail "libmpi.so.12 has SONAME $(readelf -d "$prefix/lib/libmpi.so.12" | grep SONAME)"

# --- No build paths -------------------------------------------------------------
fortran_files=
[ -e "$prefix/bin/mpifort" ] && fortran_files="bin/mpifort bin/mpif90 bin/mpif77"
for f in bin/mpirun bin/ferry_info lib/libmpi.so.12 $( [ -e "$prefix/lib/libmpifort.so.12" ] && echo lib/libmpifort.so.12); do
  for entry in $(runpath "$prefix/$f"); do
    case $entry in
      '$ORIGIN' | '$ORIGIN/'*) ;;
      "$pmix_libdir") ;;
      *) fail "$f has RUNPATH entry $entry (only \$ORIGIN-relative ones and $pmix_libdir are allowed)" ;;
    esac
  done
done
for f in bin/mpicc bin/mpicxx lib/pkgconfig/ferry.pc lib/pkgconfig/mpi.pc $fortran_files; do
  if grep -q -e "$builddir" -e "$sourcedir" "$prefix/$f"; then
    fail "$f names the build or source tree: $(grep -e "$builddir" -e "$sourcedir" "$prefix/$f")"
  fi
done

# --- Relocation: everything below runs from a moved tree ------------------------
mv "$prefix" "$scratch/moved"
prefix=$scratch/moved

expect_words "$("$prefix/bin/mpicc" -show)" "-I$prefix/include" "-L$prefix/lib" "-Wl,-rpath,$prefix/lib" -lmpi
# Reached through a symlink from elsewhere (as from /usr/local/bin).
mkdir "$scratch/links"
ln -s "$prefix/bin/mpicc" "$scratch/links/mpicc"
[ "$("$scratch/links/mpicc" -showme:compile)" = "-I$prefix/include" ] ||
  fail "mpicc through a symlink: $("$scratch/links/mpicc" -showme:compile)"
# And found through PATH.
[ "$(PATH=$prefix/bin:$PATH mpicxx -showme:libdirs)" = "$prefix/lib" ] || fail "mpicxx through PATH"

# pkg-config: the directories it names hold mpi.h and libmpi.so.
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags ferry) || fail "pkg-config --cflags ferry"
libs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs ferry) || fail "pkg-config --libs ferry"
expect_words "$libs" -lmpi
inc=${cflags#-I}
inc=${inc%% *}
[ -f "$inc/mpi.h" ] || fail "pkg-config --cflags ferry gives '$cflags': no mpi.h there"
[ "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags mpi)" = "$cflags" ] || fail "mpi.pc differs from ferry.pc"
if [ -e "$prefix/lib/libmpifort.so.12" ]; then
  for pc in ferry-fort mpi-fort; do
    fortlibs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs $pc) || fail "pkg-config --libs $pc"
    expect_words "$fortlibs" -lmpifort -lmpi
    [ "$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags $pc)" = "$cflags" ] || fail "$pc.pc: other Cflags"
  done
fi

"$prefix/bin/ferry_info" >/dev/null || fail "installed ferry_info exited $?"

# --- Build with the installed wrappers ------------------------------------------
hello_c=$sourcedir/examples/hello.c
[ -f "$hello_c" ] || fail "no $hello_c"
"$prefix/bin/mpicc" -o "$scratch/hello" "$hello_c" || fail "installed mpicc could not build examples/hello.c"
[ "$(resolved_lib "$scratch/hello" libmpi.so.12)" = "$prefix/lib/libmpi.so.12" ] ||
  fail "hello loads libmpi.so.12 from '$(resolved_lib "$scratch/hello" libmpi.so.12)'"
# A prefix with a space in it: each flag stays one argument.
cp -a "$prefix" "$scratch/with space"
"$scratch/with space/bin/mpicc" -o "$scratch/hello_space" "$hello_c" ||
  fail "mpicc in a prefix with a space could not build examples/hello.c"
[ "$(resolved_lib "$scratch/hello_space" libmpi.so.12)" = "$scratch/with space/lib/libmpi.so.12" ] ||
  fail "hello_space loads libmpi.so.12 from '$(resolved_lib "$scratch/hello_space" libmpi.so.12)'"
sh "$here/find_mpi_test.sh" "$prefix/bin" "$prefix/include" "$prefix/lib" "$cmake" "$generator" ||
  fail "FindMPI with the installed wrappers"
# Fortran, where it was built: the moved tree's mpifort builds ring.f (mpif.h), a use mpi program and
# hello.f90 (use mpi_f08) against the moved mpif.h, .mod files and libmpifort, which finds libmpi
# beside it.
if [ -x "$prefix/bin/mpifort" ]; then
  for f in include/mpif.h include/mpi.mod include/mpi_f08.mod lib/libmpifort.so.12; do
    [ -e "$prefix/$f" ] || fail "missing $f"
  done
  [ "$(readlink "$prefix/lib/libmpichfort.so.12")" = libmpifort.so.12 ] || fail "libmpichfort.so.12 is not a link to libmpifort.so.12"
  "$prefix/bin/mpifort" -o "$scratch/ring_f" "$sourcedir/examples/ring.f" || fail "installed mpifort could not build examples/ring.f"
  [ "$(resolved_lib "$scratch/ring_f" libmpifort.so.12)" = "$prefix/lib/libmpifort.so.12" ] ||
    fail "ring_f loads libmpifort.so.12 from '$(resolved_lib "$scratch/ring_f" libmpifort.so.12)'"
  printf 'program m\n  use mpi\n  integer :: ierr\n  call MPI_INIT(ierr)\n  call MPI_FINALIZE(ierr)\nend program\n' \
    >"$scratch/use_mpi.f90"
  (cd "$scratch" && "$prefix/bin/mpif90" -o use_mpi use_mpi.f90) || fail "installed mpif90 could not build a use mpi program"
  (cd "$scratch" && "$prefix/bin/mpifort" -o hello_f08 "$sourcedir/examples/hello.f90") ||
    fail "installed mpifort could not build examples/hello.f90 (use mpi_f08)"
fi

# --- Run with the installed mpirun ----------------------------------------------
out=$(cd "$scratch" && env -u LD_LIBRARY_PATH timeout 60 "$prefix/bin/mpirun" -n 2 ./hello 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "installed mpirun -n 2 hello exited $rc:
$out"
echo "$out"
if [ -x "$scratch/ring_f" ]; then
  out=$(cd "$scratch" && env -u LD_LIBRARY_PATH timeout 60 "$prefix/bin/mpirun" -n 2 ./ring_f 2>&1)
  case $out in
    *"came back as 2"*) echo "$out" ;;
    *) fail "installed mpirun -n 2 ring_f: $out" ;;
  esac
  out=$(cd "$scratch" && env -u LD_LIBRARY_PATH timeout 60 "$prefix/bin/mpirun" -n 2 ./hello_f08 2>&1)
  case $out in
    *"Hello from rank 1 of 2"*) echo "$out" ;;
    *) fail "installed mpirun -n 2 hello_f08: $out" ;;
  esac
fi

echo "install tree: ok"
