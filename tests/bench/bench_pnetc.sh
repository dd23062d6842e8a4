#!/usr/bin/env bash
# bench_pnetc.sh BUILD_DIR: how long pnetc takes to turn a model into C
# tables, and how long the C compiler then takes on them, next to Spin
# turning the same model (pnetc --emit promela) into its C verifier.
# Results: docs/performance.md, section "pnetc: model to C tables".
#
#   bash tests/bench/bench_pnetc.sh build
#
# Models: models/default.pnet (10 017 markings: lanes 6, 2, 2 over tiers
# 10, 4, 2, 1) and the same net with its tiers scaled to
# {v8: 40, seccomp: 20, wasm: 10, tee: 5} (45 860 markings; the lanes
# bound the runs).
set -euo pipefail
build=$(realpath "${1:-build}")
src=$(cd "$(dirname "$0")/../.." && pwd)
pnetc=$build/dsl/pnetc
work=$(mktemp -d /tmp/bench_pnetc.XXXXXX)
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}

sed -e 's/family tiers = {v8: 10, seccomp: 4, wasm: 2, tee: 1};/family tiers = {v8: 40, seccomp: 20, wasm: 10, tee: 5};/' \
    -e 's/const total_slots = 10 + 4 + 2 + 1;/const total_slots = 40 + 20 + 10 + 5;/' \
    "$src/models/default.pnet" > "$work/scaled.pnet"
cp "$src/models/default.pnet" "$work/default.pnet"

for m in default scaled; do
  "$pnetc" -q -o "$work" "$work/$m.pnet"
  "$pnetc" --emit promela -o "$work/$m.pml" "$work/$m.pnet"
  (cd "$work" && mkdir -p "spin_$m" && cd "spin_$m" && spin -a "../$m.pml" >/dev/null)
  echo "== $m: $(grep -o 'N_STATES = [0-9]*' "$work/$m.h") ; $m.c $(stat -c %s "$work/$m.c") bytes; Spin pan.c $(stat -c %s "$work/spin_$m/pan.c") bytes"
  hyperfine -N --warmup 2 --runs 10 \
    -n "pnetc --check ($m)" "$pnetc --check -q $work/$m.pnet" \
    -n "pnetc tables ($m)" "$pnetc -q -o $work $work/$m.pnet" \
    -n "spin -a ($m, peer)" "sh -c 'cd $work/spin_$m && spin -a ../$m.pml'"
  hyperfine -N --warmup 1 --runs 3 \
    -n "cc -O2 $m.c" "$cc -std=c11 -O2 -c -I$src/runtime/include $work/$m.c -o $work/$m.o" \
    -n "cc -O2 pan.c ($m, peer)" "$cc -O2 -c $work/spin_$m/pan.c -o $work/pan_$m.o"
done
