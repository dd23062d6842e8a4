#!/usr/bin/env bash
# Benchmarks of the sbx command line (docs/performance.md, section "sbx").
#   1. start-up: `sbx run --profile strict -- /bin/true` against bubblewrap and
#      firejail with comparable strict options, in ONE hyperfine run
#      (target: sbx <= 0.7 x bwrap's mean);
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
trap 'rm -rf "$work"' EXIT
# A private admission state, so the benchmark neither waits for nor
# disturbs real runs.
export SBX_STATE_DIR=$work/state
mkdir -m 0700 "$SBX_STATE_DIR"
unset COMMANDER_SECURITY_PROFILE SBX_AUDIT_LOG

echo "== start-up ($(nproc) CPUs, $(uname -r))"
bwrap_cmd='bwrap --unshare-all --new-session --die-with-parent --clearenv --cap-drop ALL --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --proc /proc --tmpfs /tmp /bin/true'
firejail_cmd='firejail --noprofile --quiet --private --net=none --caps.drop=all --nonewprivs --seccomp /bin/true'
cmds=("$sbx run --profile strict -- /bin/true" "$bwrap_cmd")
if firejail --noprofile --quiet --private --net=none --caps.drop=all --nonewprivs --seccomp /bin/true 2>/dev/null; then
  cmds+=("$firejail_cmd")
else
  echo "note: firejail does not run here; left out" >&2
fi
hyperfine -N --warmup 5 --runs "${BENCH_RUNS:-100}" --export-json "$out/startup.json" "${cmds[@]}"
python3 - "$out/startup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
sbx, bwrap = r[0]["mean"], r[1]["mean"]
for x in r:
    print("%-10s mean %6.2f ms  median %6.2f ms  sd %5.2f ms" % (x["command"].split()[0].split("/")[-1],
          x["mean"] * 1e3, x["median"] * 1e3, x["stddev"] * 1e3))
print("sbx / bwrap = %.2f (target <= 0.70)" % (sbx / bwrap))
PY

echo "== system-call overhead (getppid, ns per call)"
cc -O2 -o "$work/getppid_loop" tests/bench/getppid_loop.c
n=${BENCH_CALLS:-2000000}
printf '%-16s %s\n' "no sandbox" "$("$work/getppid_loop" "$n")"
profiles=$("$sbx" check | awk '/^Profiles/ {p=1; next} p && /^  [^ ]/ {print $1}')
for p in $profiles; do
  # The loop runs from the workspace; a profile that may not execute it
  # there gets it through /usr-like paths it may: none, so it is reported.
  if r=$("$sbx" run --profile "$p" --workspace "$work" -- "$work/getppid_loop" "$n" 2>"$work/err"); then
    printf '%-16s %s\n' "$p" "$r"
  else
    printf '%-16s %s\n' "$p" "not run: $(head -1 "$work/err")"
  fi
done
