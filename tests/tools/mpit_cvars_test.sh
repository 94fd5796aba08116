#!/bin/sh
# MPI_T's control variables are exactly ferry_info's settings, in the same
# order: both come from the one registry (common/config.cc), and this checks
# that neither side drops or invents one.
#   mpit_cvars_test.sh <ferry_info> <mpit_list>
set -eu
ferry_info=$1
mpit_list=$2
from_info=$("$ferry_info" --markdown | sed -n 's/^| `\(FERRY_[A-Z0-9_]*\)`.*/\1/p')
from_mpit=$(env -u FERRY_DEBUG "$mpit_list" --cvar-names)
if [ -z "$from_info" ]; then echo "mpit_cvars_test: FAILED: ferry_info listed no settings"; exit 1; fi
if [ "$from_info" != "$from_mpit" ]; then
  echo "mpit_cvars_test: FAILED: the lists differ (< ferry_info, > MPI_T):"
  printf '%s\n' "$from_info" > /tmp/mpit_cvars_info.$$
  printf '%s\n' "$from_mpit" > /tmp/mpit_cvars_mpit.$$
  diff /tmp/mpit_cvars_info.$$ /tmp/mpit_cvars_mpit.$$ || true
  rm -f /tmp/mpit_cvars_info.$$ /tmp/mpit_cvars_mpit.$$
  exit 1
fi
echo "mpit_cvars_test: OK ($(printf '%s\n' "$from_info" | wc -l) settings)"
