#!/usr/bin/env bash
# bench_statespace.sh [BUILD_DIR] [RUNS]: the whole `pnetc --check --json`
# analysis (exploration, safe set, classes, assertions, report) of Kanban
# N=5 and FMS N=5, next to Spin's exhaustive breadth-first search of the
# same net (pnetc --emit promela; pan built with -DBFS -DSAFETY), in the
# same run. Records wall time, states/s, peak RSS (/usr/bin/time -v) and
# bytes per state. RUNS rounds (default 3), each running every tool once
# in turn (interleaved, so a burst of background load hits both sides
# alike); the fastest run of each tool is reported.
# pnetc runs twice: with its default thread count (the online CPUs, at
# most 4) and with PNETC_THREADS=1, because Spin's search is one thread.
# Results: docs/performance.md, section "State-space search".
#
#   bash tests/bench/bench_statespace.sh build
set -euo pipefail
build=$(realpath "${1:-build}")
runs=${2:-3}
src=$(cd "$(dirname "$0")/../.." && pwd)
pnetc=$build/dsl/pnetc
gen=$src/tests/analysis/gen_nets.py
[[ -x $pnetc ]] || { echo "bench: $pnetc not built" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time missing (.ci/deps.sh installs 'time')" >&2; exit 1; }
command -v spin >/dev/null || { echo "bench: spin missing" >&2; exit 1; }
cc=${CC:-cc}
work=$(mktemp -d /tmp/bench_statespace.XXXXXX)
trap 'rm -rf "$work"' EXIT

# run_keep TAG CMD...: runs CMD once under /usr/bin/time -v; when it is
# the fastest run of TAG so far, keeps its stdout in $work/TAG.out and its
# time -v report in $work/TAG.tv.
run_keep() {
  local tag=$1
  shift
  /usr/bin/time -v -o "$work/tv.try" "$@" >"$work/out.try" 2>"$work/err.try" || true
  local wall
  wall=$(wall_seconds "$work/tv.try")
  if [[ ! -f $work/$tag.tv ]] || awk -v a="$wall" -v b="$(wall_seconds "$work/$tag.tv")" 'BEGIN{exit !(a < b)}'; then
    cp "$work/tv.try" "$work/$tag.tv"
    cp "$work/out.try" "$work/$tag.out"
  fi
}

# Elapsed (wall clock) time from a time -v report, in seconds.
wall_seconds() {
  sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$1" |
    awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }'
}
rss_kib() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
# User + system CPU seconds: less sensitive than wall time to other load.
cpu_seconds() {
  awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { t += $2 } END { print t }' "$1"
}

echo "load at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-34s %10s %8s %8s %10s %9s %8s\n' model tool states wall_s cpu_s states/s peak_MiB B/state
for model in "kanban 5" "fms 5"; do
  set -- $model
  name=$1-$2
  python3 "$gen" "$1" "$2" -o "$work/$name.pnml"

  "$pnetc" --emit promela -o "$work/$name.pml" "$work/$name.pnml"
  mkdir -p "$work/spin_$name"
  (cd "$work/spin_$name" && spin -a "../$name.pml" >/dev/null &&
     "$cc" -O2 -DBFS -DSAFETY -DMEMLIM=16384 -w -o pan pan.c)
  rm -f "$work"/{ours,one,spin}.tv
  for ((round = 0; round < runs; round++)); do
    run_keep ours "$pnetc" --check --json "$work/$name.pnml"
    PNETC_THREADS=1 run_keep one "$pnetc" --check --json "$work/$name.pnml"
    (cd "$work/spin_$name" && run_keep spin ./pan)
  done
  ours_states=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["states"])' "$work/ours.out")
  ours_wall=$(wall_seconds "$work/ours.tv")
  ours_rss=$(rss_kib "$work/ours.tv")
  ours_cpu=$(cpu_seconds "$work/ours.tv")
  one_wall=$(wall_seconds "$work/one.tv")
  one_rss=$(rss_kib "$work/one.tv")
  one_cpu=$(cpu_seconds "$work/one.tv")
  spin_states=$(sed -n 's/^ *\([0-9][0-9]*\) states, stored.*/\1/p' "$work/spin.out")
  spin_wall=$(wall_seconds "$work/spin.tv")
  spin_rss=$(rss_kib "$work/spin.tv")
  spin_cpu=$(cpu_seconds "$work/spin.tv")

  for row in "pnetc --check --json ($(nproc) CPUs)|$ours_states|$ours_wall|$ours_cpu|$ours_rss" \
             "pnetc --check --json (1 thread)|$ours_states|$one_wall|$one_cpu|$one_rss" \
             "spin pan -DBFS -DSAFETY (peer)|$spin_states|$spin_wall|$spin_cpu|$spin_rss"; do
    IFS='|' read -r tool states wall cpu rss <<<"$row"
    awk -v m="$name" -v t="$tool" -v s="$states" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
      printf "%-10s %-34s %10d %8.2f %8.2f %10.0f %9.1f %8.1f\n", m, t, s, w, c, s / w, r / 1024, r * 1024 / s }'
  done
  awk -v a="$ours_wall" -v b="$spin_wall" -v c="$ours_cpu" -v d="$spin_cpu" -v m="$name" \
    'BEGIN { printf "%-10s speed-up over Spin: %.2fx wall, %.2fx CPU\n", m, b / a, d / c }'
  awk -v a="$one_wall" -v b="$spin_wall" -v m="$name" \
    'BEGIN { printf "%-10s speed-up over Spin, 1 thread: %.2fx wall\n", m, b / a }'
  [[ $ours_states == "$spin_states" ]] || echo "WARNING: $name: state counts differ ($ours_states vs $spin_states)"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
