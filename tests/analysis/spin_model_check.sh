#!/usr/bin/env bash
# Cross-checks `pnetc --check` on a real .pnet model (environment places,
# admissions, capacities) with Spin on `pnetc --emit promela` of the same
# model: same number of reachable markings, and Spin's invalid end states
# are exactly the dead markings. Skipped (77) without spin or a C compiler.
#   spin_model_check.sh PNETC MODEL.pnet
set -euo pipefail
pnetc=$1 model=$2
command -v spin >/dev/null || { echo "SKIP: spin not installed"; exit 77; }
cc=$(command -v cc || command -v gcc || command -v clang) || { echo "SKIP: no C compiler"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$pnetc" --check --json "$model" >"$tmp/report.json" || true
read -r ours_states ours_dead < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["states"], d["deadlocks"])' "$tmp/report.json")
"$pnetc" --emit promela -o "$tmp/net.pml" "$model"
cd "$tmp"
spin -a net.pml >spin.log
env -u CFLAGS "$cc" -O2 -DBFS -DSAFETY -DMEMLIM=2048 -w -o pan pan.c
./pan -c0 >pan.log 2>&1 || true
spin_states=$(sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' pan.log)
spin_errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log)
echo "pnetc: $ours_states markings, $ours_dead dead; spin: $spin_states states, $spin_errors errors"
grep -q "assertion violated" pan.log && { echo "FAIL: a byte overflowed in the Promela model"; exit 1; }
[[ -n $spin_states && $spin_states == "$ours_states" ]] || { echo "FAIL: state counts differ"; cat pan.log; exit 1; }
[[ $spin_errors == "$ours_dead" ]] || { echo "FAIL: dead markings differ from Spin's invalid end states"; cat pan.log; exit 1; }
