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
# A home of the test's own: the sandbox's kept ~/.npm goes below it.
export HOME="$tmp/home"; mkdir -p "$HOME"; unset XDG_STATE_HOME
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
# ~/.npm is kept between runs (sbx's cache), and npm prunes its old logs
# there at every command: with --logs-max=1 each run removes the log an
# earlier run left. Removals in the kept home are free (docs/approvals.md),
# also of what runs in ANOTHER workspace left (so not by the record of
# this workspace's runs: runs 2 and 3 are in a second workspace).
quiet "npm ls, run 1 (a log left in the kept ~/.npm)" npm ls --logs-max=1 --no-update-notifier >/dev/null
ws2="$tmp/ws2"; mkdir -p "$ws2"; printf '{"name":"app2","version":"1.0.0","private":true}\n' >"$ws2/package.json"
for i in 2 3; do
  ws=$ws2 quiet "npm ls, run $i, another workspace (old logs pruned)" npm ls --logs-max=1 --no-update-notifier >/dev/null
done
logs=$(find "$HOME/.local/state/commander-sandbox/home/standard" -path '*/.npm/_logs/*' -type f | wc -l)
[ "$logs" -ge 1 ] && [ "$logs" -le 2 ] || fail "kept ~/.npm/_logs holds $logs logs, not 1 or 2: pruning failed"
echo "ok: npm prunes its old logs in the kept ~/.npm across runs: exit 0, sbx silent ($logs left)"
# Control: with every removal asked (the test knob), the same pruning is
# asked about and named.
out=$(cd "$ws" && SBX_TEST_DELETE_AS_BEFORE=1 run -- npm ls --logs-max=1 --no-update-notifier 2>"$err" >/dev/null)
grep -q '^sbx: approval: denied delete .*_logs' "$err" ||
  fail "control: pruning in the kept home asked nothing with every removal asked: $(cat "$err")"
echo "ok: control: with every removal asked, npm's pruning is named"
echo "PASS"
