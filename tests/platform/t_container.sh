#!/usr/bin/env bash
# t_container.sh SBX PNETC PROBE POLICY WORKDIR
#
# sbx run --backend container (docs/sbx.md, "The container backend"), in
# podman from a private configuration and store under WORKDIR, with an
# image imported from one static program (ctr_probe), as t_k8s_podman.sh
# does. Each refusal has its negative control:
#
#   strict, exit 3          output and status come back (3)
#   strict, inet            socket(AF_INET) refused by the profile's filter;
#   permissive, inet        the same call made (the refusal was the profile's)
#   strict, read ~/.ssh/id  a denied path is empty inside; a file beside it
#                           in the workspace is read
#   standard                refused (asks a person at the system-call layer)
#   permissive, write /x    the root is read-only; the workspace is written
#   strict, write ws        strict mounts the workspace read-only
#   hardened, mem 900       512 MiB limit: killed (128+9); mem 64 runs
#   strict, sleep 30        --timeout 1: 124, and the container is gone
#   strict, netifs          only lo
#   the audit record        names backend container and the image
#   no seccomp profile      exit 125, layer seccomp, nothing ran
#
# Exit 77 (skip) with the reason when podman cannot run a container here.
set -uo pipefail
sbx=$1 pnetc=$2 probe=$3 policy=$4 work=$5

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

command -v podman >/dev/null || skip "podman is not installed (.ci/deps.sh installs it)"
command -v runc >/dev/null || skip "runc is not installed (.ci/deps.sh installs it)"
[ "$(id -u)" = 0 ] || skip "podman runs here as root only (no subordinate uid range)"

rm -rf "$work"
mkdir -p "$work/home" "$work/seccomp" "$work/image" "$work/run" "$work/ws/.ssh" "$work/state" ||
  fail "mkdir $work"
# The same private podman as t_k8s_podman.sh (runc and cgroupfs: crun
# fails on this machine's hybrid cgroup layout).
cat >"$work/containers.conf" <<EOC || fail "write containers.conf"
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$work/run/libpod"
EOC
cat >"$work/storage.conf" <<EOC || fail "write storage.conf"
[storage]
driver = "vfs"
graphroot = "$work/store"
runroot = "$work/run/storage"
EOC
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
podman info >/dev/null 2>"$work/info.err" || skip "podman info fails here: $(tail -1 "$work/info.err")"
cp "$probe" "$work/image/ctr_probe" || fail "copy the probe"
tar -C "$work/image" -cf "$work/image.tar" . || fail "tar the image"
podman import "$work/image.tar" localhost/commander-sandbox-ctr:latest >/dev/null \
  2>"$work/import.err" || skip "podman import fails here: $(tail -1 "$work/import.err")"
out=$(podman run --rm --network none localhost/commander-sandbox-ctr:latest /ctr_probe exit 0 2>&1) ||
  skip "podman cannot run a container here: $(echo "$out" | tail -1)"

for p in strict standard permissive hardened; do
  "$pnetc" --emit oci --profile "$p" -o "$work/seccomp/$p.json" "$policy" ||
    fail "pnetc --emit oci --profile $p"
done
echo secret >"$work/ws/.ssh/id" && echo public >"$work/ws/readme" || fail "write the workspace"
export SBX_STATE_DIR=$work/state SBX_CONTAINER_SECCOMP_DIR=$work/seccomp
export SBX_CONTAINER_IMAGE=localhost/commander-sandbox-ctr:latest
audit=$work/audit.jsonl

# ct PROFILE ARGS...: sets out and rc.
ct() {
  local profile=$1 log=(--audit "$audit") home=${ct_home:-$work/home}
  shift
  # permissive writes the whole host: sbx refuses a log that the command
  # could forge.
  [ "$profile" = permissive ] && log=()
  out=$(HOME=$home "$sbx" run --backend container --profile "$profile" --workspace "$work/ws" \
    "${log[@]}" "$@" 2>&1)
  rc=$?
  echo "$profile $*: $out (exit $rc)"
}

ct strict -- /ctr_probe exit 3
[ "$rc" = 3 ] && [[ "$out" == ran* ]] || fail "output and status must come back"

ct strict -- /ctr_probe inet
[ "$rc" = 1 ] && [[ "$out" == *"inet: refused: Operation not permitted"* ]] ||
  fail "strict must refuse socket(AF_INET) inside the container"
ct permissive -- /ctr_probe inet
[ "$rc" = 0 ] && [ "$out" = "inet: made" ] || fail "permissive allows socket(AF_INET) (control)"

# The workspace as HOME: the profile's ~/.ssh lies in a mount and must be
# masked there (a writing profile would refuse the approval store there).
ct_home=$work/ws ct strict -- /ctr_probe read "$work/ws/.ssh/id"
[ "$rc" = 1 ] || fail "a denied path must not be readable inside"
ct_home=$work/ws ct strict -- /ctr_probe read "$work/ws/readme"
[ "$rc" = 0 ] && [ "$out" = "read: ok 7 bytes" ] || fail "the workspace must be readable (control)"

# standard asks a person before deletes, at the system-call layer the
# container does not have: refused, nothing runs.
ct standard -- /ctr_probe write "$work/ws/standard"
[ "$rc" = 125 ] && [ ! -e "$work/ws/standard" ] || fail "standard's approvals cannot be kept: refused"
ct permissive -- /ctr_probe write /outside
[ "$rc" = 1 ] && [[ "$out" == *"Read-only file system"* ]] || fail "writes outside the workspace must fail"
ct permissive -- /ctr_probe write "$work/ws/inside"
[ "$rc" = 0 ] && [ -f "$work/ws/inside" ] || fail "permissive writes the workspace (control)"
ct strict -- /ctr_probe write "$work/ws/strict"
[ "$rc" = 1 ] && [ ! -e "$work/ws/strict" ] || fail "strict mounts the workspace read-only"

ct hardened -- /ctr_probe mem 64
[ "$rc" = 0 ] || fail "64 MiB fits hardened's 512 MiB (control)"
ct hardened -- /ctr_probe mem 900
[ "$rc" = 137 ] || fail "900 MiB must be killed under hardened's 512 MiB"

ct strict --timeout 1 -- /ctr_probe sleep 30
[ "$rc" = 124 ] || fail "the time limit must end the run with 124"
[ -z "$(podman ps -aq)" ] || fail "the timed-out container is left: $(podman ps -a)"

ct strict -- /ctr_probe netifs
[ "$rc" = 0 ] && [ "$out" = "lo" ] || fail "strict has no network: only lo"

grep -q '"backend":"container"' "$audit" && grep -q '"image":"localhost/commander-sandbox-ctr:latest"' "$audit" ||
  fail "the audit record must name backend container and the image: $(tail -1 "$audit")"

SBX_CONTAINER_SECCOMP_DIR=$work/none ct strict -- /ctr_probe exit 0
[ "$rc" = 125 ] && [[ "$out" == *"no OCI seccomp profile"* ]] ||
  fail "without the profile's seccomp profile nothing may run"
echo PASS
