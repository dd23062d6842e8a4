#!/usr/bin/env bash
# t_check_output.sh PNETC KIND PROFILE POLICY OUT CHECKER [CHECKER-ARGS...]
# Writes `pnetc --emit KIND --profile PROFILE POLICY` to OUT and runs the
# target's checker (sbpl_check, wsb_check) on it; the checker's status is
# the test's.
set -u
pnetc=$1 kind=$2 profile=$3 policy=$4 out=$5 checker=$6
shift 6
mkdir -p "$(dirname "$out")" || exit 1
"$pnetc" --emit "$kind" --profile "$profile" -o "$out" "$policy" 2>/dev/null || {
  echo "FAIL: pnetc --emit $kind --profile $profile exited $?"
  exit 1
}
exec "$checker" "$@" "$out"
