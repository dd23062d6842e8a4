#!/usr/bin/env bash
# t_k8s_podman.sh PNETC PROBE POLICY WORKDIR
#
# Runs pnetc's Kubernetes manifests with `podman kube play
# --seccomp-profile-root DIR` (docs/platforms.md, "Tests"): the image is
# imported locally from one static program of this build (no registry),
# podman runs from a private configuration and a private store under
# WORKDIR (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF; never the machine's).
#
#   strict, k8s_probe inet    socket(AF_INET) refused inside the pod (EPERM)
#   strict, k8s_probe basic   an allowed command succeeds, as uid 65534
#   strict, k8s_probe rootfs  the root file system is read-only (EROFS)
#   standard, k8s_probe inet  negative control: the same call in the same
#                             image is made under a profile that allows it,
#                             so the refusal above was the profile's
#
# Exit 77 (skip) with the reason when podman cannot run a container here.
set -uo pipefail
pnetc=$1 probe=$2 policy=$3 work=$4

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

command -v podman >/dev/null || skip "podman is not installed (.ci/deps.sh installs it)"
command -v runc >/dev/null || skip "runc is not installed (.ci/deps.sh installs it)"
# Rootless podman needs subordinate ids this machine may not have; the
# test's store and configuration are private either way.
[ "$(id -u)" = 0 ] || skip "podman runs here as root only (no subordinate uid range)"

rm -rf "$work"
mkdir -p "$work/seccomp" "$work/image" "$work/run" "$work/cwd" || fail "mkdir $work"
# crun fails on this machine's hybrid cgroup layout; runc with cgroupfs
# works. default_ulimits = [] keeps podman from raising limits the
# machine refuses. The image's own program is the pod's infra process,
# so no pause image (and no catatonit) is needed.
cat >"$work/containers.conf" <<EOF || fail "write containers.conf"
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$work/run/libpod"
infra_image = "localhost/commander-sandbox-job:latest"
EOF
cat >"$work/storage.conf" <<EOF || fail "write storage.conf"
[storage]
driver = "vfs"
graphroot = "$work/store"
runroot = "$work/run/storage"
EOF
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
# podman kube play looks for a build context named after the image in the
# current directory: run it from an empty one.
cd "$work/cwd" || fail "cd $work/cwd"

cleanup() {
  podman pod rm -f -t 0 commander-strict commander-standard >/dev/null 2>&1
  podman volume rm -f commander-workspace >/dev/null 2>&1
}
trap cleanup EXIT

podman info >/dev/null 2>"$work/info.err" || skip "podman info fails here: $(tail -1 "$work/info.err")"
cp "$probe" "$work/image/k8s_probe" || fail "copy the probe"
tar -C "$work/image" -cf "$work/image.tar" . || fail "tar the image"
podman import --change 'CMD ["/k8s_probe", "pause"]' "$work/image.tar" \
  localhost/commander-sandbox-job:latest >/dev/null 2>"$work/import.err" ||
  skip "podman import fails here: $(tail -1 "$work/import.err")"
# Can this machine run a container at all? Without our profile, so that a
# failure here is the machine's, not the profile's.
out=$(podman run --rm --network none localhost/commander-sandbox-job:latest /k8s_probe inet 2>&1) ||
  skip "podman cannot run a container here: $(echo "$out" | tail -1)"
[ "$out" = "inet: made" ] || fail "without a profile, socket(AF_INET) should be made: $out"

# run_pod PROFILE MODE: plays the profile's manifest with the probe in
# MODE as its command; sets out (the container's output) and rc (its
# status). Runs in this shell, so a fail() in it ends the test.
run_pod() {
  local profile=$1 mode=$2 manifest=$work/$1.yaml
  "$pnetc" --emit oci --profile "$profile" -o "$work/seccomp/commander-sandbox-$profile.json" \
    "$policy" || fail "pnetc --emit oci --profile $profile"
  "$pnetc" --emit k8s --profile "$profile" -o "$work/$profile.gen.yaml" "$policy" 2>/dev/null ||
    fail "pnetc --emit k8s --profile $profile"
  # The one line a user edits: the command.
  grep -q '^    command: \["/bin/true"\]$' "$work/$profile.gen.yaml" || fail "no command line to replace"
  sed "s|^    command: \[\"/bin/true\"\]$|    command: [\"/k8s_probe\", \"$mode\"]|" \
    "$work/$profile.gen.yaml" >"$manifest" || fail "edit the manifest"
  podman pod rm -f -t 0 "commander-$profile" >/dev/null 2>&1
  podman kube play --network none --seccomp-profile-root "$work/seccomp" "$manifest" \
    >"$work/play.out" 2>&1 || fail "podman kube play $profile: $(cat "$work/play.out")"
  rc=$(podman wait "commander-$profile-job") || fail "podman wait commander-$profile-job"
  out=$(podman logs "commander-$profile-job" 2>&1)
  # What podman made of the manifest: no capabilities, no privilege
  # escalation (the seccomp filter is shown by the probes themselves:
  # podman 4.3 does not list a kube profile among the options).
  podman inspect "commander-$profile-job" \
    --format '{{.EffectiveCaps}} {{.HostConfig.SecurityOpt}}' >"$work/secopt" 2>&1
  [ "$(cat "$work/secopt")" = "[] [no-new-privileges]" ] ||
    fail "podman did not drop every capability and privilege escalation: $(cat "$work/secopt")"
  podman pod rm -f -t 0 "commander-$profile" >/dev/null 2>&1
}

run_pod strict inet
echo "strict, inet: $out (exit $rc)"
[ "$rc" = 1 ] && [[ "$out" == *"refused: Operation not permitted"* ]] ||
  fail "strict must refuse socket(AF_INET) with EPERM inside the pod"

run_pod strict basic
echo "strict, basic: $out (exit $rc)"
[ "$rc" = 0 ] && [[ "$out" == *"uid 65534 gid 65534"* ]] ||
  fail "strict must let an ordinary command run, as uid 65534"

run_pod strict rootfs
echo "strict, rootfs: $out (exit $rc)"
[ "$rc" = 0 ] && [[ "$out" == *"Read-only file system"* ]] || fail "the root file system must be read-only"

run_pod standard inet
echo "standard, inet (control): $out (exit $rc)"
[ "$rc" = 0 ] && [ "$out" = "inet: made" ] ||
  fail "standard allows socket(AF_INET): the same probe must succeed there"
echo "PASS"
