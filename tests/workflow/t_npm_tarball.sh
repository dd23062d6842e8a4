#!/bin/bash
# workflow_npm_tarball: npm install of a local package tarball (npm pack)
# under standard, no terminal, no approver, no network (issue 13): npm
# succeeds, sbx says nothing, the package is in node_modules on the host
# and node loads it.
set -u
. "$(dirname "$0")/workflow_lib.sh"
command -v node >/dev/null && command -v npm >/dev/null || skip "node or npm not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; mkdir -p "$ws"; err="$tmp/err"
workflow_preflight
# The package, packed on the host (npm pack of a directory reaches no
# registry).
mkdir -p "$tmp/pkg"
printf '{"name":"sbx-demo","version":"1.0.0","main":"index.js"}\n' > "$tmp/pkg/package.json"
echo 'module.exports = 42;' > "$tmp/pkg/index.js"
(cd "$tmp/pkg" && npm pack --silent --pack-destination "$ws" >/dev/null 2>&1) || fail "host npm pack"
[ -f "$ws/sbx-demo-1.0.0.tgz" ] || fail "npm pack made no tarball: $(ls "$ws")"
printf '{"name":"app","version":"1.0.0","private":true}\n' > "$ws/package.json"
# --offline: nothing from a registry (the sandbox has no network); no
# audit or funding requests, no update check.
quiet "npm install ./sbx-demo-1.0.0.tgz" npm install --offline --no-audit --no-fund \
  --no-update-notifier --loglevel=error ./sbx-demo-1.0.0.tgz >/dev/null
[ -f "$ws/node_modules/sbx-demo/index.js" ] || fail "sbx-demo not in node_modules: $(ls -R "$ws" | head -20)"
grep -q '"sbx-demo"' "$ws/package.json" || fail "package.json does not name sbx-demo"
[ "$(quiet "node require" node -e 'console.log(require("sbx-demo"))')" = 42 ] || fail "node does not load sbx-demo"
# A second install over the first (npm replaces what it installed: its
# own files from the previous run, removed by rename and unlink).
quiet "npm install again" npm install --offline --no-audit --no-fund --no-update-notifier \
  --loglevel=error >/dev/null
[ -f "$ws/node_modules/sbx-demo/index.js" ] || fail "the second install lost sbx-demo"
echo "PASS"
