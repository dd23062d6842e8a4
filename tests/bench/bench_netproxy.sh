#!/usr/bin/env bash
# Benchmarks of the network proxy's relay (docs/performance.md, section
# "Network proxy"), side by side in one run, all on 127.0.0.1:
#   1. bulk throughput: 1 GiB over one connection, each way, in one
#      hyperfine run per direction (target: the proxy >= 80% of direct);
#   2. connection set-up latency: 1,000 connections one after the other,
#      each until its first byte came back (target: the proxy no slower
#      than socat).
# Rows: directly to the origin; through the engine (tests/netproxy/
# np_driver, CONNECT 127.0.0.1:PORT), spliced (the default) and copied
# (--relay copy); for set-up also CONNECT to a name, resolved by the
# engine's worker threads (np_driver's resolver reads a hosts file);
# through a socat relay that forks per connection (what sandbox-runtime
# puts between the sandbox and its proxy). The origin and the clients are
# tests/bench/np_load.
# Usage: tests/bench/bench_netproxy.sh [BUILD_DIR]   (default: build)
# Needs: hyperfine, socat, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
load=$build/tests/bench/np_load
driver=$build/tests/netproxy/np_driver
for f in "$load" "$driver"; do
  [[ -x $f ]] || { echo "bench_netproxy: no $f; build first" >&2; exit 2; }
done
for tool in hyperfine socat python3; do
  command -v "$tool" >/dev/null || { echo "bench_netproxy: $tool is not installed" >&2; exit 2; }
done
out=${BENCH_OUT:-$build/bench}
mkdir -p "$out"
work=$(mktemp -d /tmp/bench-netproxy.XXXXXX)
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap stop_all EXIT
wait_file() {
  for _ in $(seq 600); do [[ -s $1 ]] && return 0; sleep 0.05; done
  echo "bench_netproxy: $1 never appeared" >&2; exit 1
}
bytes=${BENCH_BYTES:-1073741824}
count=${BENCH_CONNS:-1000}

"$load" serve "$work/origin.port" & pids+=($!)
wait_file "$work/origin.port"
origin=$(cat "$work/origin.port")
echo "127.0.0.1 origin.bench.test" >"$work/hosts"
for mode in splice copy; do
  "$driver" --ports-file "$work/$mode.ports" --relay "$mode" --allow 127.0.0.1 \
    --allow origin.bench.test --hosts "$work/hosts" --local 127.0.0.0/8 2>"$work/$mode.err" & pids+=($!)
  wait_file "$work/$mode.ports"
done
read -r splice_port _ <"$work/splice.ports"
read -r copy_port _ <"$work/copy.ports"
socat_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
socat TCP-LISTEN:"$socat_port",bind=127.0.0.1,fork,reuseaddr,backlog=1024 \
  TCP:127.0.0.1:"$origin" 2>"$work/socat.err" & pids+=($!)
for _ in $(seq 600); do "$load" setup "$socat_port" --count 1 >/dev/null 2>&1 && break; sleep 0.05; done

names=(direct "proxy (splice)" "proxy (copy)" socat)
args=("$origin" "$splice_port --connect $origin" "$copy_port --connect $origin" "$socat_port")

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) CPUs," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for dir in down up; do
  what=$([[ $dir == down ]] && echo "destination to client" || echo "client to destination")
  echo "== bulk throughput: $bytes bytes over one connection, $dir ($what)"
  cmds=()
  for a in "${args[@]}"; do cmds+=("$load bulk $a --dir $dir --bytes $bytes"); done
  hyperfine -N --warmup 1 --runs "${BENCH_RUNS:-10}" --export-json "$out/netproxy_bulk_$dir.json" \
    "${cmds[@]}" >/dev/null
  python3 - "$out/netproxy_bulk_$dir.json" "$bytes" "${names[@]}" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
size, names = int(sys.argv[2]), sys.argv[3:]
direct = results[0]["median"]
print("| path | median s | mean s | sd s | MiB/s (median) | of direct |")
print("|---|---:|---:|---:|---:|---:|")
for name, r in zip(names, results):
    print("| %s | %.3f | %.3f | %.3f | %.0f | %.0f%% |" % (name, r["median"], r["mean"], r["stddev"],
          size / r["median"] / 1048576, 100 * direct / r["median"]))
PY
done

echo "== CPU time per GiB: one transfer of ${BENCH_CPU_GIB:-4} GiB down per path (clock ticks of the processes)"
# What bounds the throughput on a small machine: the relay is a third
# party doing a second connection's TCP work. The client's time from
# /usr/bin/time, the origin's and the relay's from /proc (socat: its
# children, reaped after each connection).
ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
relay_pid=("" "${pids[1]}" "${pids[2]}" "${pids[3]}")
echo "| path | wall s/GiB | client CPU s/GiB | origin CPU s/GiB | relay CPU s/GiB | total CPU s/GiB |"
echo "|---|---:|---:|---:|---:|---:|"
gib=${BENCH_CPU_GIB:-4}
for i in "${!names[@]}"; do
  o0=$(ticks "${pids[0]}"); r0=0
  [[ -z ${relay_pid[$i]} ]] || r0=$(ticks "${relay_pid[$i]}")
  # shellcheck disable=SC2086 # the arguments are words
  /usr/bin/time -f "%U %S" -o "$work/time" "$load" bulk ${args[$i]} --dir down \
    --bytes $((gib * 1073741824)) >"$work/bulk.out"
  o1=$(ticks "${pids[0]}"); r1=0
  [[ -z ${relay_pid[$i]} ]] || r1=$(ticks "${relay_pid[$i]}")
  wall=$(sed 's/.*seconds=\([0-9.]*\).*/\1/' "$work/bulk.out")
  read -r cu cs <"$work/time"
  awk -v n="${names[$i]}" -v g="$gib" -v w="$wall" -v c="$cu + $cs" -v cu="$cu" -v cs="$cs" \
    -v o=$((o1 - o0)) -v r=$((r1 - r0)) -v hz="$hz" 'BEGIN {
      client = (cu + cs) / g; origin = o / hz / g; relay = r / hz / g
      printf "| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", n, w / g, client, origin, relay,
             client + origin + relay }'
done

echo "== connection set-up: $count connections one after the other, each to its first echoed byte"
# Interleaved rounds (every path once per round), so drifting load hits all
# alike; each figure is the median over the rounds.
rounds=${BENCH_ROUNDS:-5}
names=("${names[@]:0:2}" "proxy (splice), by name" "${names[@]:2}")
args=("${args[@]:0:2}" "$splice_port --connect $origin --name origin.bench.test" "${args[@]:2}")
for _ in $(seq "$rounds"); do
  for i in "${!names[@]}"; do
    # shellcheck disable=SC2086 # the arguments are words
    echo "$i $("$load" setup ${args[$i]} --count "$count")" >>"$work/setup.txt"
  done
done
python3 - "$work/setup.txt" "${names[@]}" <<'PY'
import statistics, sys
names = sys.argv[2:]
rows = {}
for line in open(sys.argv[1]):
    i, _, *fields = line.split()
    vals = dict(f.split("=") for f in fields)
    rows.setdefault(int(i), []).append(vals)
socat = statistics.median(float(v["mean_us"]) for v in rows[len(names) - 1])
print("| path | mean µs | median µs | p90 µs | p99 µs | of socat's mean |")
print("|---|---:|---:|---:|---:|---:|")
for i, name in enumerate(names):
    m = {k: statistics.median(float(v[k]) for v in rows[i])
         for k in ("mean_us", "median_us", "p90_us", "p99_us")}
    print("| %s | %.1f | %.1f | %.1f | %.1f | %.2f |" % (name, m["mean_us"], m["median_us"],
          m["p90_us"], m["p99_us"], m["mean_us"] / socat))
print("(each figure: the median over %d rounds)" % len(rows[0]))
PY
