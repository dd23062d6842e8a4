#!/usr/bin/env bash
# Start-up cost of confinement, layer by layer (docs/performance.md,
# section "confinement"). One hyperfine run, side by side with bubblewrap
# and firejail doing comparable work:
#   sbx strict    no shell: per-file Landlock EXECUTE grants, net namespace
#   sbx standard  shell allowed, network allowed (no net namespace)
#   bwrap         --unshare-all, read-only /usr, new /proc, /dev, /tmp
#   firejail      --private --net=none --caps.drop=all --nonewprivs --seccomp
# Usage: tests/confine/bench_confine.sh [BUILD_DIR]   (default: build)
# SBX_BEFORE=/path/to/an/older/sbx adds its strict and standard runs to the
# same hyperfine run (before/after numbers of a change, docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
sbx=$(realpath "$build/runtime/sbx")
[[ -x $sbx ]] || { echo "bench_confine: no $build/runtime/sbx; build first" >&2; exit 2; }
out=${BENCH_OUT:-$build/bench}
mkdir -p "$out"
work=$(mktemp -d /tmp/bench-confine.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SBX_STATE_DIR=$work/state
mkdir -m 0700 "$SBX_STATE_DIR" "$work/ws"
unset COMMANDER_SECURITY_PROFILE SBX_AUDIT_LOG
echo "== confinement start-up ($(nproc) CPUs, $(uname -r))"
"$sbx" check | sed -n '/^cgroup/p'
bwrap_cmd="bwrap --unshare-all --new-session --die-with-parent --clearenv --cap-drop ALL --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --dev /dev --proc /proc --tmpfs /tmp --ro-bind $work/ws $work/ws /bin/true"
firejail_cmd="firejail --noprofile --quiet --private --net=none --caps.drop=all --nonewprivs --seccomp /bin/true"
cmds=("$sbx run --profile strict --workspace $work/ws -- /bin/true"
      "$sbx run --profile standard --workspace $work/ws -- /bin/true"
      "$bwrap_cmd")
if [[ -n ${SBX_BEFORE:-} ]]; then
  before=$(realpath "$SBX_BEFORE")
  cmds+=("$before run --profile strict --workspace $work/ws -- /bin/true"
         "$before run --profile standard --workspace $work/ws -- /bin/true")
fi
if $firejail_cmd 2>/dev/null; then cmds+=("$firejail_cmd"); else echo "note: firejail does not run here" >&2; fi
hyperfine -N --warmup 5 --runs "${BENCH_RUNS:-50}" --export-markdown "$out/confine.md" \
  --export-json "$out/confine.json" "${cmds[@]}"
cat "$out/confine.md"
