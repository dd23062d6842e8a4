#!/usr/bin/env bash
# bench_container.sh SBX WORKDIR [RUNS]
#
# The container backend against plain `podman run` of the same image
# with the same options (docs/performance.md, "Container backend").
# WORKDIR is the one t_container.sh left (its private podman, image and
# seccomp profiles): run platform_container_backend first.
set -euo pipefail
sbx=$1 work=$2 runs=${3:-5}
export CONTAINERS_CONF=$work/containers.conf CONTAINERS_STORAGE_CONF=$work/storage.conf
export SBX_STATE_DIR=$work/state SBX_CONTAINER_SECCOMP_DIR=$work/seccomp HOME=$work/home
image=localhost/commander-sandbox-ctr:latest
# The options sbx gives for strict, printed by an engine that only echoes.
# Named podman, so that sbx gives podman's options (its masks).
mkdir -p "$work/echo"
printf '#!/bin/sh\nshift\nfor a; do printf "%%s\\n" "$a"; done\n' >"$work/echo/podman"
chmod +x "$work/echo/podman"
mapfile -t opts < <(SBX_CONTAINER_ENGINE=$work/echo/podman "$sbx" run --backend container \
  --image "$image" --profile strict --workspace "$work/ws" -- /ctr_probe exit 0 |
  awk -v img="$image" '$0 == img { exit } !/^--name=/ { print }')
plain="podman run ${opts[*]} $image /ctr_probe exit 0"

hyperfine --warmup 0 --runs "$runs" \
  -n "podman run (same options)" "$plain" \
  -n "sbx run --backend container" \
  "$sbx run --backend container --image $image --profile strict --workspace $work/ws -- /ctr_probe exit 0"
