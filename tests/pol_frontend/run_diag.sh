#!/bin/sh
# Golden diagnostics of the .pol front end: for every diag/NAME.pol,
# `pnetc --check -q NAME.pol` (run inside diag/, so messages name the file
# as written) must print exactly diag/NAME.err: its stderr, then a line
# "exit N" with pnetc's exit code.
# Usage: run_diag.sh PNETC DIAG_DIR [--update]
set -u
pnetc=$1
dir=$2
update=${3:-}
fail=0
count=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
cd "$dir" || exit 1
for pol in *.pol; do
  name=${pol%.pol}
  count=$((count + 1))
  "$pnetc" --check -q "$pol" >/dev/null 2>"$tmp"
  echo "exit $?" >>"$tmp"
  if [ "$update" = "--update" ]; then
    cp "$tmp" "$name.err"
  elif ! cmp -s "$tmp" "$name.err"; then
    echo "FAIL $name: diagnostics differ from $name.err:"
    diff -u "$name.err" "$tmp"
    fail=$((fail + 1))
  fi
done
[ "$count" -gt 0 ] || { echo "no cases in $dir"; exit 1; }
echo "$count cases, $fail failed"
[ "$fail" -eq 0 ]
