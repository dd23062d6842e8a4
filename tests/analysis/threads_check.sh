#!/usr/bin/env bash
# The analysis of a published net must not depend on the thread count or
# on thread timing (docs/analysis.md, "Parallel searches"): pn_stat's
# figures (states, firings, classes, bits, depth, bounds, semiflows) with
# PNETC_THREADS=1 are compared with REPEAT runs each of 2 and 3 threads.
# A net of a few hundred thousand markings exercises the parallel chunks,
# the pre-expansion, table rebuilds during phase 2 and the pull sweeps.
#   threads_check.sh PN_STAT GEN_NETS MODEL N [REPEAT]
set -euo pipefail
pn_stat=$1 gen=$2 model=$3 n=$4 repeat=${5:-3}
source "$(dirname "$0")/net_lib.sh"
net_setup "$gen" "$model" "$n"
run() { PNETC_THREADS=$1 "$pn_stat" "$tmp/net.pnml" >"$2" || [[ $? == 1 ]]; }
run 1 "$tmp/one"
fail=0
for ((i = 0; i < repeat; i++)); do
  for t in 2 3; do
    run "$t" "$tmp/par"
    if ! cmp -s "$tmp/one" "$tmp/par"; then
      echo "FAIL: $t threads (run $i) differ from one thread:"
      diff "$tmp/one" "$tmp/par" | head -10
      fail=1
    fi
  done
done
[[ $fail == 0 ]] && echo "$model N=$n: same figures with 1, 2 and 3 threads ($repeat runs each)"
exit $fail
