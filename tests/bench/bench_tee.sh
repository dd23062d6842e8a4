#!/usr/bin/env bash
# The isolated worker's round trip: one small function on a 1 KB JSON
# input, through a ready sbx-tee-worker (cs_tee pool), against Node's
# worker_threads postMessage round trip (the seed's design, new Function()
# in the worker) and against a node spawned per evaluation; also `sbx eval`
# per evaluation (admission, a new worker, the audit record left out).
# Side by side in one run. Results go to docs/performance.md ("The
# isolated worker"). Usage:
#   tests/bench/bench_tee.sh [BUILD_DIR] [ROUNDS] [REPEATS]
# Builds BUILD_DIR (default build-bench, RelWithDebInfo, never a sanitizer
# build) and runs the benchmark.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
rounds=${2:-20000}
repeats=${3:-5}
spawns=${SPAWNS:-50}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_SANITIZE=OFF >/dev/null
cmake --build "$build" -j2 --target bench_tee sbx-tee-worker sbx >/dev/null
command -v node >/dev/null || { echo "bench_tee: node is not installed" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SBX_STATE_DIR="$tmp/state"
mkdir -m 0700 "$SBX_STATE_DIR"
# The input: an object of 1 KB (60 short strings).
python3 - "$tmp/input.json" <<'PY'
import json, sys
items = ["item-%03d-%s" % (i, "abcdefghij"[: i % 10]) for i in range(200)]
doc = {"name": "bench", "items": []}
while len(json.dumps(doc, separators=(",", ":"))) < 1000:
    doc["items"].append(items[len(doc["items"])])
open(sys.argv[1], "w").write(json.dumps(doc, separators=(",", ":")))
PY
# Three small functions: one that loops over the items (the interpreter's
# speed shows), one that only looks at the input, and one that ignores it
# (what is left is the round trip and the input's parse).
# shellcheck disable=SC2034 # both are read through ${!name}
loop='function (x) { var n = 0, m = 0; for (var i = 0; i < x.items.length; i++) { n += x.items[i].length; if (x.items[i].indexOf("e") >= 0) m++; } return { n: n, m: m }; }'
# shellcheck disable=SC2034
look='function (x) { return x.items.length; }'
# shellcheck disable=SC2034
none='function () { return 0; }'
bytes=$(wc -c <"$tmp/input.json")
worker=$(realpath "$build/runtime/sbx-tee-worker")
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# node $(node --version); input $bytes bytes; $rounds rounds x $repeats repeats; $spawns spawns"
for name in loop look none; do
  code=${!name}
  echo "# function '$name': $code"
  echo "## $name: isolated worker (cs_tee pool, one ready worker)"
  "$build/tests/bench/bench_tee" "$worker" "$code" "$tmp/input.json" "$rounds" "$repeats"
  echo "## $name: node worker_threads postMessage"
  node tests/bench/bench_tee_node.js threads "$code" "$tmp/input.json" "$rounds" "$repeats"
done
per_spawn() { # LABEL CMD...
  local label=$1
  shift
  "$@" >/dev/null # once, to warm the page cache
  local t0 t1
  t0=$(date +%s%N)
  for _ in $(seq "$spawns"); do "$@" >/dev/null; done
  t1=$(date +%s%N)
  echo "$label: $(((t1 - t0) / spawns / 1000)) us per evaluation"
}
echo "## loop: one process per evaluation"
echo "result $(node tests/bench/bench_tee_node.js child "$loop" "$tmp/input.json")"
per_spawn "node spawned per evaluation" node tests/bench/bench_tee_node.js child "$loop" "$tmp/input.json"
per_spawn "sbx eval per evaluation" "$build/runtime/sbx" eval --input-file "$tmp/input.json" "$loop"
