#!/usr/bin/env bash
# seccomp-BPF filter quality: pnetc's generator next to libseccomp
# (optimize levels 1 and 2) for Docker's default profile and the seed
# policy's profiles, then how far pnetc's decision tree is from the best
# tree of jge/jgt/jeq tests (tests/bpf/bpf_bound.c). Results go to
# docs/performance.md ("seccomp-BPF").
# Usage: tests/bench/bench_bpf.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_SANITIZE=OFF >/dev/null
cmake --build "$build" -j2 --target bench_bpf bpf_bound pnetc >/dev/null
inputs=()
[ -f ../shared/data/oci/moby-default.json ] && inputs+=(../shared/data/oci/moby-default.json)
[ -f models/profiles.pol ] && inputs+=(models/profiles.pol)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm)"
echo "# $build/tests/bpf/bench_bpf ${inputs[*]}"
"$build/tests/bpf/bench_bpf" "${inputs[@]}"
echo
echo "# comparisons after 'ld nr' for the allowed numbers (total, per allowed number)"
echo "| rule set | allowed | pnetc's tree | best jge/jeq tree, jeq chains at the bottom | fewest any jge/jgt/jeq tree can make |"
echo "|---|---|---|---|---|"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for in in "${inputs[@]}"; do
  case "$in" in
  *.json)
    "$build/dsl/pnetc" --emit bpf -o "$tmp/f.bpf" "$in" 2>/dev/null
    "$build/tests/bpf/bpf_bound" "$tmp/f.bpf" "$(basename "$in")"
    ;;
  *.pol)
    for p in $(sed -n 's/^profile \([A-Za-z0-9_-]*\).*/\1/p' "$in"); do
      "$build/dsl/pnetc" --emit bpf --profile "$p" -o "$tmp/f.bpf" "$in"
      "$build/tests/bpf/bpf_bound" "$tmp/f.bpf" "$(basename "$in"): $p"
    done
    ;;
  esac
done
