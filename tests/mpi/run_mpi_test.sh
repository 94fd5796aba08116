#!/bin/sh
# Runs one MPI test command and judges it from the outside: exit status,
# output, elapsed time, and ranks left running. tests/mpi/CMakeLists.txt uses
# it for the tests whose verdict is more than "exit status 0": MPI_Abort,
# crashing ranks, fatal errors, and tests with required output.
#
# Usage: run_mpi_test.sh [options] -- command [args...]
#   --expect-exit N|nonzero  exit status the command must end with (default 0)
#   --regex ERE              its output (stdout and stderr) must match ERE;
#                            may be given several times, each must match
#   --within S               it must end within S seconds; it is killed after
#                            that (default 0: no limit here, ctest's applies)
#   --no-leftovers PROGRAM   once it has ended, no process may still be
#                            running the executable PROGRAM (after a grace
#                            period of a few seconds); any left are killed
#
# The command's output is copied to stdout so that ctest's log shows it; the
# verdict follows as lines starting with "run_mpi_test:".

expect=0
regexes=""
within=0
program=""

usage() {
  echo "usage: run_mpi_test.sh [--expect-exit N|nonzero] [--regex ERE]... [--within S]" \
       "[--no-leftovers PROGRAM] -- command [args...]" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --expect-exit) [ $# -ge 2 ] || usage; expect=$2; shift 2 ;;
    --regex) [ $# -ge 2 ] || usage
             regexes="$regexes$2
"
             shift 2 ;;
    --within) [ $# -ge 2 ] || usage; within=$2; shift 2 ;;
    --no-leftovers) [ $# -ge 2 ] || usage; program=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[ $# -gt 0 ] || usage

failures=0
fail() {
  echo "run_mpi_test: FAILED: $*"
  failures=$((failures + 1))
}

out=$(mktemp "${TMPDIR:-/tmp}/run_mpi_test.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT

start=$(date +%s)
if [ "$within" -gt 0 ]; then
  # A hung launcher gets SIGTERM at the limit and SIGKILL 10 s later.
  timeout -k 10 "$within" "$@" >"$out" 2>&1
else
  "$@" >"$out" 2>&1
fi
status=$?
elapsed=$(($(date +%s) - start))
cat "$out"
echo "run_mpi_test: exit status $status after ${elapsed} s: $*"

# Exit status 124 or 137 may also be the command's own; the clock decides.
if [ "$within" -gt 0 ] && [ "$elapsed" -ge "$within" ]; then
  fail "did not end within $within s (it was killed)"
elif [ "$expect" = nonzero ]; then
  [ "$status" -ne 0 ] || fail "exit status 0, expected a failure status"
elif [ "$status" -ne "$expect" ]; then
  fail "exit status $status, expected $expect"
fi

while IFS= read -r re; do
  [ -n "$re" ] || continue
  grep -E -q -e "$re" "$out" || fail "output does not match the regular expression: $re"
done <<EOF
$regexes
EOF

# Processes (not zombies: those have no exe link) still running PROGRAM.
running() {
  for dir in /proc/[0-9]*; do
    [ "$(readlink "$dir/exe" 2>/dev/null)" = "$target" ] && echo "${dir#/proc/}"
  done
}

if [ -n "$program" ]; then
  target=$(readlink -f "$program")
  left=$(running)
  waited=0
  while [ -n "$left" ] && [ "$waited" -lt 10 ]; do
    sleep 1
    waited=$((waited + 1))
    left=$(running)
  done
  if [ -n "$left" ]; then
    fail "ranks still running $target $waited s after the launcher ended:" \
         "$(echo "$left" | tr '\n' ' ')"
    for pid in $left; do
      ps -o pid=,ppid=,stat=,args= -p "$pid" 2>/dev/null
      kill -9 "$pid" 2>/dev/null
    done
  fi
fi

if [ "$failures" -gt 0 ]; then
  exit 1
fi
echo "run_mpi_test: passed"
exit 0
