#!/usr/bin/env bash
# seccomp-BPF filter quality: pnetc's generator next to libseccomp
# (optimize levels 1 and 2) for Docker's default profile and the seed
# policy's profiles. Results go to docs/performance.md ("seccomp-BPF").
# Usage: tests/bench/bench_bpf.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_SANITIZE=OFF >/dev/null
cmake --build "$build" -j2 --target bench_bpf >/dev/null
inputs=()
[ -f ../shared/data/oci/moby-default.json ] && inputs+=(../shared/data/oci/moby-default.json)
[ -f models/profiles.pol ] && inputs+=(models/profiles.pol)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm)"
echo "# $build/tests/bpf/bench_bpf ${inputs[*]}"
"$build/tests/bpf/bench_bpf" "${inputs[@]}"
