#!/usr/bin/env bash
# Fuzzes both front ends with libFuzzer for N seconds each and prints one
# summary line per harness (runs, execs/s, coverage, corpus growth, crashes)
# for docs/performance.md ("Fuzzing"). The seed corpora in
# tests/fuzz/corpus/ are read, never written: new inputs go to a scratch
# directory, crashes to $build/fuzz-artifacts/ (replay one with
# $build/tests/fuzz/fuzz_pol_replay FILE).
# Usage: tests/bench/fuzz.sh [SECONDS] [BUILD_DIR]
# FUZZ_HARNESSES="exec" (any of tests/fuzz's: pol pnet gitcfg nphttp
# npsocks exec) picks others than the two front ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=${2:-build-fuzz}
harnesses=${FUZZ_HARNESSES:-pol pnet}
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_FUZZ=ON \
      -DCMAKE_C_FLAGS="$flags" >/dev/null
cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' $harnesses) >/dev/null
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/fuzz-artifacts"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm) $(clang --version | head -1)"
status=0
for h in $harnesses; do
  mkdir -p "$scratch/$h"
  seeds=$(ls tests/fuzz/corpus/$h | wc -l)
  log="$scratch/$h.log"
  set +e
  ASAN_OPTIONS=detect_leaks=1 "$build/tests/fuzz/fuzz_$h" -max_total_time="$seconds" -max_len=16384 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$h-" "$scratch/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  grown=$(ls "$scratch/$h" | wc -l)
  crashes=$(ls "$build/fuzz-artifacts" | grep -c "^$h-" || true)
  echo "fuzz_$h: ${seconds}s, $runs runs, $speed exec/s, cov $cov, ft $ft, seeds $seeds, new corpus $grown, exit $rc, artifacts $crashes"
  if [ "$rc" -ne 0 ]; then
    tail -40 "$log"
    status=1
  fi
done
exit $status
