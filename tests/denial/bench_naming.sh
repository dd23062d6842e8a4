#!/usr/bin/env bash
# Per-run cost of naming refusals (docs/performance.md, "Naming refusals").
# One command: bash tests/denial/bench_naming.sh [BUILD_DIR] [ROUNDS]
# Five repetitions of the interleaved measurement; needs root.
set -euo pipefail
build=${1:-build}
rounds=${2:-2000}
bin="$build/tests/denial/bench_naming"
[[ -x $bin ]] || { echo "build $bin first (cmake --build $build --target bench_naming)" >&2; exit 2; }
for i in 1 2 3 4 5; do "$bin" "$rounds"; done
