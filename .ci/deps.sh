#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the benchmarks need.
# Idempotent: only asks apt for what is missing.
set -euo pipefail
packages=(build-essential cmake pkg-config flex bison
          libseccomp-dev seccomp libcap-dev libjansson-dev libxml2-dev libpsl-dev check
          spin clang libclang-rt-14-dev git iproute2 python3 time ninja-build graphviz
          musl-tools binutils clang-format podman runc duktape-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
