#!/usr/bin/env bash
# Admission latency: cs_admit + cs_complete against sem_wait + sem_post on
# the same 10 slots, 1 and 2 threads, in one run. Results go to
# docs/performance.md ("Admission latency"). Usage:
#   tests/bench/bench_admission.sh [BUILD_DIR] [PAIRS_PER_THREAD] [REPEATS]
# Builds BUILD_DIR (default build-bench, RelWithDebInfo, never a sanitizer
# build: the numbers would be meaningless) and runs the benchmark.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
pairs=${2:-5000000}
repeats=${3:-9}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_SANITIZE=OFF >/dev/null
cmake --build "$build" -j2 --target bench_admission >/dev/null
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# $build/tests/bench/bench_admission $pairs $repeats"
"$build/tests/bench/bench_admission" "$pairs" "$repeats"
