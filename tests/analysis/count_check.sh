#!/usr/bin/env bash
# Compares the analysis of a published benchmark net with its published
# figures (docs/analysis.md, "Benchmark nets").
#   count_check.sh PN_STAT GEN_NETS MODEL N STATES [EDGES|-] [DEAD]
set -euo pipefail
pn_stat=$1 gen=$2 model=$3 n=$4 want_states=$5 want_edges=${6:--} want_dead=${7:-0}
source "$(dirname "$0")/net_lib.sh"
net_setup "$gen" "$model" "$n"
net_stat "$pn_stat" "$tmp/out"
cat "$tmp/out"
# Exit 1 means "an assertion fails": the implicit no-deadlock one of a PNML net.
want_rc=0
[[ $want_dead != 0 ]] && want_rc=1
[[ $rc == "$want_rc" ]] || { echo "FAIL: exit $rc, want $want_rc"; exit 1; }
get() { sed -n "s/^$1=//p" "$tmp/out"; }
fail=0
[[ $(get states) == "$want_states" ]] || { echo "FAIL: states $(get states), published $want_states"; fail=1; }
[[ $want_edges == - || $(get edges) == "$want_edges" ]] || { echo "FAIL: edges $(get edges), published $want_edges"; fail=1; }
[[ $(get dead) == "$want_dead" ]] || { echo "FAIL: dead $(get dead), published $want_dead"; fail=1; }
exit $fail
