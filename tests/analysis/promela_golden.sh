#!/usr/bin/env bash
# The Promela emitter's output for a PNML net must match its golden file
# byte for byte, and be identical when generated twice (determinism).
#   promela_golden.sh PN_STAT PNML_DIR NAME GOLDEN
set -euo pipefail
pn_stat=$1 dir=$2 name=$3 golden=$4
cd "$dir"   # the banner names the input as given: keep it relative
first=$("$pn_stat" --promela "$name")
second=$("$pn_stat" --promela "$name")
[[ $first == "$second" ]] || { echo "FAIL: two runs differ"; exit 1; }
diff -u "$golden" <(printf '%s\n' "$first") || { echo "FAIL: output differs from $golden"; exit 1; }
