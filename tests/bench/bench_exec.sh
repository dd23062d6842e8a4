#!/usr/bin/env bash
# Benchmark of `sbx exec` against `sbx run` (docs/performance.md, "sbx
# exec against sbx run"): the same command, /bin/true under strict, warm
# (a `sbx serve` of a private state directory) and cold (--cold), the
# four side by side in ONE hyperfine run, so that they share the machine's
# state. What exec adds: reading and parsing the request, three pipes and
# the thread draining them, the memory file of sbx's messages, building
# and writing the result. Two more rows: exec keeping about 1 MiB of
# stdout, text (`seq 1 150000`, 938,895 bytes, kept as UTF-8) and binary (/dev/urandom, base64).
# Every row goes through bash (hyperfine subtracts its start-up): exec
# needs its request on stdin, and the run rows pay the same shell.
# Usage: tests/bench/bench_exec.sh [BUILD_DIR]   (default: build)
# Needs: hyperfine; run as root like CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sbx=$(realpath "$build/runtime/sbx")
[[ -x $sbx ]] || { echo "bench_exec: no $build/runtime/sbx; build first" >&2; exit 2; }
out=${BENCH_OUT:-$build/bench}
mkdir -p "$out"
work=$(mktemp -d /tmp/bench-exec.XXXXXX)
serve_pid=
stop_serve() { [[ -z $serve_pid ]] || { kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=; }; }
trap 'stop_serve; rm -rf "$work"' EXIT
export SBX_STATE_DIR=$work/state
mkdir -m 0700 "$SBX_STATE_DIR"
unset COMMANDER_SECURITY_PROFILE SBX_AUDIT_LOG
printf '%s' '{"argv":["/bin/true"],"profile":"strict"}' > "$work/true.json"
printf '%s' '{"argv":["seq","1","150000"],"profile":"strict","output_limit":1048576}' \
  > "$work/text.json"
printf '%s' '{"argv":["head","-c","1048576","/dev/urandom"],"profile":"strict","output_limit":1048576}' \
  > "$work/binary.json"
# The answers are checked once before they are timed: a benchmark of a
# refusal would measure nothing.
"$sbx" exec --cold --approver none < "$work/true.json" | grep -q '"sbx_exit":0' ||
  { echo "bench_exec: sbx exec does not run /bin/true here" >&2; exit 1; }
"$sbx" exec --cold --approver none < "$work/text.json" | grep -q '"bytes":938895' ||
  { echo "bench_exec: sbx exec does not keep seq's output here" >&2; exit 1; }
"$sbx" exec --cold --approver none < "$work/binary.json" | grep -q '"encoding":"base64","bytes":1048576' ||
  { echo "bench_exec: sbx exec does not keep 1 MiB of binary here" >&2; exit 1; }

echo "== sbx exec against sbx run ($(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg))"
"$sbx" serve --idle 600 2>"$out/serve-exec.log" &
serve_pid=$!
for _ in $(seq 100); do [[ -S $SBX_STATE_DIR/serve-$(id -u)/serve.sock ]] && break; sleep 0.05; done
cmds=("$sbx run --approver none --profile strict -- /bin/true"
      "$sbx exec --approver none < $work/true.json"
      "$sbx run --cold --approver none --profile strict -- /bin/true"
      "$sbx exec --cold --approver none < $work/true.json"
      "$sbx exec --cold --approver none < $work/text.json"
      "$sbx exec --cold --approver none < $work/binary.json")
hyperfine --shell bash --warmup 10 --runs "${BENCH_RUNS:-100}" --export-json "$out/exec.json" \
  "${cmds[@]}"
python3 - "$out/exec.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
names = ["run warm", "exec warm", "run cold", "exec cold", "exec cold text", "exec cold binary"]
for name, x in zip(names, r):
    print("%-16s mean %6.2f ms  median %6.2f ms  sd %5.2f ms  user %5.2f ms  sys %5.2f ms" % (
          name, x["mean"] * 1e3, x["median"] * 1e3, x["stddev"] * 1e3, x["user"] * 1e3,
          x["system"] * 1e3))
print("exec - run: warm %+.2f ms, cold %+.2f ms" % ((r[1]["mean"] - r[0]["mean"]) * 1e3,
                                                    (r[3]["mean"] - r[2]["mean"]) * 1e3))
PY
