#!/usr/bin/env bash
# Benchmarks of the sbx command line (docs/performance.md, section "sbx").
#   1. start-up: `sbx run --profile strict -- /bin/true`, warm (a `sbx serve`
#      started before, private state directory) and cold (--cold), against
#      bubblewrap and firejail with comparable strict options, in ONE
#      hyperfine run (target: sbx <= 0.7 x bwrap's mean);
#   2. system-call overhead: a getppid loop inside every profile vs no filter.
# Usage: tests/bench/bench_sbx.sh [BUILD_DIR]   (default: build)
# Needs: hyperfine, bwrap, firejail, a C compiler; run as root like CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sbx=$(realpath "$build/runtime/sbx")
[[ -x $sbx ]] || { echo "bench_sbx: no $build/runtime/sbx; build first" >&2; exit 2; }
out=${BENCH_OUT:-$build/bench}
mkdir -p "$out"
work=$(mktemp -d /tmp/bench-sbx.XXXXXX)
serve_pid=
stop_serve() { [[ -z $serve_pid ]] || { kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; serve_pid=; }; }
trap 'stop_serve; rm -rf "$work"' EXIT
# A private admission state, so the benchmark neither waits for nor
# disturbs real runs.
export SBX_STATE_DIR=$work/state
mkdir -m 0700 "$SBX_STATE_DIR"
unset COMMANDER_SECURITY_PROFILE SBX_AUDIT_LOG

# A template whose facts were recorded within 2 s of a change of one of
# them (a bin directory's listing: the system-call section below adds and
# removes a program in /usr/local/bin) never vouches for itself and is
# rebuilt at every request for those 2 s (docs/sbx.md, "Staleness"): a
# run right after an earlier run of this script would time rebuilds.
sleep 3
echo "== start-up ($(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg))"
# The warm-start server of this (private) state directory; the warm row
# uses it, the cold row passes --cold. Its first request builds the
# template: hyperfine's warm-up runs do that.
"$sbx" serve -v --idle 600 2>"$out/serve.log" &
serve_pid=$!
for _ in $(seq 100); do [[ -S $SBX_STATE_DIR/serve-$(id -u)/serve.sock ]] && break; sleep 0.05; done
"$sbx" run -v --profile strict -- /bin/true 2>&1 | grep start-up || true
bwrap_cmd='bwrap --unshare-all --new-session --die-with-parent --clearenv --cap-drop ALL --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --proc /proc --tmpfs /tmp /bin/true'
firejail_cmd='firejail --noprofile --quiet --private --net=none --caps.drop=all --nonewprivs --seccomp /bin/true'
cmds=("$sbx run --profile strict -- /bin/true" "$bwrap_cmd" "$sbx run --cold --profile strict -- /bin/true")
if firejail --noprofile --quiet --private --net=none --caps.drop=all --nonewprivs --seccomp /bin/true 2>/dev/null; then
  cmds+=("$firejail_cmd")
else
  echo "note: firejail does not run here; left out" >&2
fi
hyperfine -N --warmup 10 --runs "${BENCH_RUNS:-100}" --export-json "$out/startup.json" "${cmds[@]}"
python3 - "$out/startup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
warm, bwrap, cold = r[0]["mean"], r[1]["mean"], r[2]["mean"]
names = ["sbx warm", "bwrap", "sbx cold", "firejail"]
for name, x in zip(names, r):
    print("%-10s mean %6.2f ms  median %6.2f ms  sd %5.2f ms  user %5.2f ms  sys %5.2f ms" % (
          name, x["mean"] * 1e3, x["median"] * 1e3, x["stddev"] * 1e3, x["user"] * 1e3,
          x["system"] * 1e3))
print("sbx warm / bwrap = %.2f (target <= 0.70); sbx cold / bwrap = %.2f" % (warm / bwrap, cold / bwrap))
PY
echo "sbx serve: $(grep -c 'started warm' "$out/serve.log") runs started warm," \
  "$(grep -c 'refused' "$out/serve.log") refused (log: $out/serve.log)"
stop_serve

echo "== start-up by profile, and sbx's own front end"
# "--tier nosuch" stops right after the profile lookup and opening the
# shared admission state: the cost of the command line and admission alone.
by_profile=()
for p in $("$sbx" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}'); do
  by_profile+=("$sbx run --cold --profile $p -- /bin/true")
done
hyperfine -N -i --warmup 3 --runs "${BENCH_PROFILE_RUNS:-30}" --export-json "$out/startup_profiles.json" \
  "${by_profile[@]}" "$sbx run --tier nosuch -- /bin/true" "/bin/true" >/dev/null
python3 - "$out/startup_profiles.json" "$sbx" <<'PY'
import json, sys
for x in json.load(open(sys.argv[1]))["results"]:
    print("%-44s mean %6.2f ms  median %6.2f ms" % (x["command"].replace(sys.argv[2], "sbx"),
          x["mean"] * 1e3, x["median"] * 1e3))
PY

echo "== system-call overhead (getppid, ns per call; median of ${BENCH_REPS:-9} interleaved runs)"
# The loop binary is put in /usr/local/bin for the run: strict and hardened
# execute only the files of the system bin directories (no shells), and the
# workspace is data to them.
# Its own workspace, beside the state directory: a profile that writes
# its workspace refuses to run when sbx's state lies in it.
mkdir -p "$work/ws"
loop=$(mktemp /usr/local/bin/sbx-bench-getppid.XXXXXX)
trap 'rm -rf "$work" "$loop"' EXIT
cc -O2 -o "$loop" tests/bench/getppid_loop.c
chmod 0755 "$loop"
n=${BENCH_CALLS:-2000000}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
profiles=$("$sbx" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}')
configs=("none" $profiles)
# Interleaved (every configuration once per round), so drifting load on a
# shared machine hits all of them alike; the median per configuration.
declare -A vals
for _ in $(seq "${BENCH_REPS:-9}"); do
  for c in "${configs[@]}"; do
    if [[ $c == none ]]; then
      v=$("$loop" "$n")
    else
      v=$("$sbx" run --profile "$c" --workspace "$work/ws" -- "$loop" "$n" 2>"$work/err") ||
        v="not-run:$(head -1 "$work/err" | tr ' ' '_')"
    fi
    vals[$c]+="$v "
  done
done
base=$(tr ' ' '\n' <<<"${vals[none]}" | grep . | median)
printf '%-12s %10s %10s\n' "profile" "ns/call" "overhead"
for c in "${configs[@]}"; do
  if [[ ${vals[$c]} == *not-run* ]]; then
    printf '%-12s %s\n' "$c" "${vals[$c]%% *}"
    continue
  fi
  m=$(tr ' ' '\n' <<<"${vals[$c]}" | grep . | median)
  printf '%-12s %10s %+10.1f\n' "$c" "$m" "$(python3 -c "print($m - $base)")"
done
