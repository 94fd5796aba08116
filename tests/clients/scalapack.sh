#!/usr/bin/env bash
# ScaLAPACK's own test programs (Debian's scalapack-mpi-test, built for MPICH)
# run against Ferry: a real client that no one here wrote, whose BLACS layer
# uses many communicators (MPI_Comm_create, _split, _dup), derived datatypes
# (vector, indexed, struct), MPI_Pack, MPI_Rsend, MPI_Isend/MPI_Testall and
# reductions with user-defined operations.
#
#   scalapack.sh --build-dir build                 all 70 programs, 4 ranks each
#   scalapack.sh --build-dir build --tests xslu,xdllt
#   scalapack.sh --reference mpich                 the same with Debian's MPICH
#
# Each program runs as `mpirun -n <ranks> ./xNAME` (ranks as Debian's
# CTestTestfile.cmake gives them: 4), with Ferry's libmpi found first through
# LD_LIBRARY_PATH (the programs link libmpich.so.12, which the build provides),
# in a work directory holding links to the programs and their *.dat input
# files, stopped after --timeout seconds (default 300). One line per program
# (outcome and seconds), then the counts; exit status 0 when all passed, 1 when
# any failed or hung, 77 when scalapack-mpi-test is not installed. Each
# program's output and exit status stay in <work>/logs/<name>.log and .rc.
#
# A program passes when it exits 0 and its output reports no failed check:
# no "FAILED" (or "Failed": the SVD tests) row, no "illegal value" from a
# routine's argument check, no nonzero "N tests completed and failed" count
# in its summary, and it reached its last line ("END OF TESTS.", "End of
# tests" for the SVD tests) or, for the xshseqr/xdhseqr that print none, a
# PASSED row.
#
# ScaLAPACK 2.2.1's PSLACON and PDLACON (the condition estimators that
# P?GERFS, P?PORFS, ... call) read their argument EST before setting it
# (upstream commit aed609a, "Fix uninitialized EST in Placon", in 2.2.3). EST
# is the caller's uninitialized local, so its value is whatever the stack held:
# when that differs between ranks, their copies of the estimator take different
# branches, and the ranks end up in different collectives (xslu: PSGETRS called with
# TRANS='T' on some ranks and 'N' on others, which ScaLAPACK's own consistency
# check reports as "parameter number 1 had an illegal value"; xsllt/xdllt: an
# MPI_Bcast whose ranks disagree on the size, or a hang). So by default each
# program runs with a small preloaded library that sets EST to zero on entry
# to PSLACON and PDLACON, as the upstream fix does; --raw runs without it.
set -uo pipefail

tests_dir=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests
build_dir=
reference=ferry
only=
timeout_s=300
work=
raw=0
quiet=0

usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
say() { echo "scalapack: $*"; }

while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build_dir=$2; shift 2 ;;
    --tests-dir) tests_dir=$2; shift 2 ;;
    --tests) only=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --work-dir) work=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --raw) raw=1; shift ;;
    --quiet) quiet=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "scalapack.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

if [[ ! -f $tests_dir/CTestTestfile.cmake ]]; then
  say "SKIPPED: Debian's scalapack-mpi-test is not installed ($tests_dir/CTestTestfile.cmake is missing;" \
      "scripts/install-packages --tests installs it)"
  exit 77
fi

case $reference in
  ferry)
    root=$(cd "$(dirname "$0")/../.." && pwd)
    build_dir=${build_dir:-$root/build}
    build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || { say "no build directory '$build_dir'"; exit 2; }
    if [[ ! -x $build_dir/bin/mpirun || ! -e $build_dir/lib/libmpich.so.12 ]]; then
      say "$build_dir has no bin/mpirun or lib/libmpich.so.12 (build the targets mpi and mpirun)"
      exit 2
    fi
    launcher=("$build_dir/bin/mpirun")
    libpath=$build_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    ;;
  mpich)
    command -v mpiexec.mpich >/dev/null || { say "SKIPPED: mpiexec.mpich is not installed"; exit 77; }
    launcher=(mpiexec.mpich)
    libpath=${LD_LIBRARY_PATH:-}
    ;;
  *) echo "scalapack.sh: --reference takes ferry or mpich, not '$reference'" >&2; exit 2 ;;
esac

# The programs and their rank counts, as Debian's CTest file lists them:
#   add_test(xslu "/usr/bin/mpiexec.mpich" "-n" "4" ${MPIEXEC_PREFLAGS} "./xslu")
declare -A ranks_of=()
names=()
while read -r name ranks; do
  names+=("$name")
  ranks_of[$name]=$ranks
done < <(sed -n 's/^add_test(\([A-Za-z0-9_]*\) "[^"]*" "-n" "\([0-9]*\)".*/\1 \2/p' "$tests_dir/CTestTestfile.cmake")
if [[ ${#names[@]} -eq 0 ]]; then
  say "found no test programs in $tests_dir/CTestTestfile.cmake"
  exit 1
fi
if [[ -n $only ]]; then
  IFS=, read -r -a wanted <<<"$only"
  for name in "${wanted[@]}"; do
    [[ -n ${ranks_of[$name]:-} ]] || { say "no test program '$name' in $tests_dir"; exit 2; }
  done
  names=("${wanted[@]}")
fi

# The programs read their *.dat files from the working directory, and some
# name an output file there, so they run in a directory of our own.
if [[ -z $work ]]; then
  if [[ $reference == ferry ]]; then work=$build_dir/clients/scalapack; else work=${TMPDIR:-/tmp}/scalapack-mpich.$$; fi
fi
mkdir -p "$work/logs" || exit 1
for f in "$tests_dir"/*.dat "$tests_dir"/x*; do
  [[ -f $f ]] && ln -sf "$f" "$work/"
done

preload=${LD_PRELOAD:-}
if [[ $raw -eq 0 ]]; then
  shim=$work/lacon_est_zero.so
  src=$(dirname "$0")/scalapack_lacon_est_zero.c
  if [[ ! -f $shim || $src -nt $shim ]]; then
    cc=${CC:-cc}
    "$cc" -shared -fPIC -O2 -o "$shim" "$src" -ldl ||
      { say "cannot build $shim with $cc (--raw runs without it)"; exit 2; }
  fi
  preload=$shim${preload:+:$preload}
fi

# Exit status 0 and no failed check in the output (see the top of this file).
verdict() {
  local rc=$1 log=$2
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then echo "TIMEOUT"; return; fi
  if [[ $rc -ne 0 ]]; then echo "FAIL (exit $rc)"; return; fi
  if grep -q "illegal value" "$log"; then echo "FAIL (illegal value)"; return; fi
  if grep -qE '(^|[[:space:]])(FAILED|Failed)([[:space:]]|$)' "$log"; then echo "FAIL (a check failed)"; return; fi
  if grep -qE '^[[:space:]]*[1-9][0-9]* tests? (completed and )?failed' "$log"; then echo "FAIL (failed checks)"; return; fi
  if ! grep -qiE "end of tests|passed" "$log"; then echo "FAIL (no 'end of tests', nothing passed)"; return; fi
  echo "ok"
}

child=
trap '[[ -n $child ]] && kill -TERM -- "-$child" 2>/dev/null; exit 143' TERM INT
passed=0 failed=0 hung=0
failures=()
start_all=$(date +%s.%N)
for name in "${names[@]}"; do
  log=$work/logs/$name.log
  start=$(date +%s.%N)
  # timeout runs in a process group of its own: the trap ends that group
  # when this script is stopped (ctest's time limit, ^C), leaving no job.
  (cd "$work" && exec env LD_LIBRARY_PATH="$libpath" LD_PRELOAD="$preload" \
     timeout -k 10 "$timeout_s" "${launcher[@]}" -n "${ranks_of[$name]}" "./$name") >"$log" 2>&1 &
  child=$!
  wait "$child"
  rc=$?
  child=
  echo "$rc" >"$work/logs/$name.rc"
  seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  outcome=$(verdict "$rc" "$log")
  case $outcome in
    ok) passed=$((passed + 1)) ;;
    TIMEOUT) hung=$((hung + 1)); failures+=("$name") ;;
    *) failed=$((failed + 1)); failures+=("$name") ;;
  esac
  if [[ $quiet -eq 0 || $outcome != ok ]]; then
    printf 'scalapack: %-9s %-24s %6s s\n' "$name" "$outcome" "$seconds"
  fi
  if [[ $outcome != ok ]]; then
    grep -m 3 -E "illegal value|FAILED|ferry:|mpirun:|Fatal|error" "$log" | sed 's/^/    /'
  fi
done
total=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
say "$reference$([[ $raw -eq 1 ]] && echo ' (raw)'): ${#names[@]} run, $passed passed, $failed failed, $hung timed out" \
    "(limit ${timeout_s} s), ${total} s in all; logs in $work/logs"
[[ ${#failures[@]} -eq 0 ]] || say "not passed: ${failures[*]}"
[[ $passed -eq ${#names[@]} ]]
