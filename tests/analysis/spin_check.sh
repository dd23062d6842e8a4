#!/usr/bin/env bash
# Cross-checks the analysis with Spin (docs/analysis.md, "Spin"): the
# Promela model of the net must have exactly as many states as the
# analysis finds markings, and Spin's invalid end states must be the dead
# markings. Skipped (77) when spin or a C compiler is missing.
#   spin_check.sh PN_STAT GEN_NETS MODEL N          (generated benchmark net)
#   spin_check.sh PN_STAT - FILE.pnml               (a given net)
set -euo pipefail
pn_stat=$1 gen=$2
command -v spin >/dev/null || { echo "SKIP: spin not installed"; exit 77; }
cc=$(command -v cc || command -v gcc || command -v clang) || { echo "SKIP: no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $gen == - ]]; then
  cp "$3" "$tmp/net.pnml"
else
  command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
  python3 "$gen" "$3" "$4" -o "$tmp/net.pnml"
fi
"$pn_stat" "$tmp/net.pnml" >"$tmp/ours" || true
"$pn_stat" --promela "$tmp/net.pnml" >"$tmp/net.pml"
cd "$tmp"
spin -a net.pml >spin.log
# Sanitizer flags from the environment must not leak into pan.
env -u CFLAGS "$cc" -O2 -DBFS -DSAFETY -DMEMLIM=2048 -w -o pan pan.c
# -c0: do not stop at the first invalid end state, count them all.
./pan -c0 >pan.log 2>&1 || true
ours_states=$(sed -n 's/^states=//p' ours)
ours_dead=$(sed -n 's/^dead=//p' ours)
spin_states=$(sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' pan.log)
spin_errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.log)
echo "analysis: $ours_states markings, $ours_dead dead; spin: $spin_states states, $spin_errors errors"
grep -q "assertion violated" pan.log && { echo "FAIL: a byte overflowed in the Promela model"; exit 1; }
[[ -n $spin_states && $spin_states == "$ours_states" ]] || { echo "FAIL: state counts differ"; cat pan.log; exit 1; }
[[ $spin_errors == "$ours_dead" ]] || { echo "FAIL: dead markings differ from Spin's invalid end states"; cat pan.log; exit 1; }
