#!/usr/bin/env bash
# The watch that vouches for a template's facts (runtime/warm/sbx_watch.c,
# docs/sbx.md "Staleness"): once armed, runs skip the full check ("facts
# watched" in the server's log), and a change of a fact after that is
# still seen before the next run: a denied path that appears later is
# hidden, and so is one whose directory is swapped behind a symlink.
# The workspace lives under /var/tmp: every directory on its path is
# watched, and /tmp, where the other tests work, would keep the epoch
# moving (correct, but then nothing is ever vouched for and this test
# could not see the fast path).
SBX_TEST_WARM=1
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
# stale changes /usr/local/bin and the mount table, which every server on
# the machine watches; watch needs them quiet. RUN_SERIAL orders one
# ctest's tests; this lock also keeps them apart from the same tests of
# another checkout or build running on the machine.
exec 8>/run/lock/commander-sandbox-warm-facts.lock || skip "cannot open the warm tests' lock file"
flock -w 600 8 || fail "the warm tests' lock was held for 600 s by another test"
Q=$(mktemp -d /var/tmp/sbx-watch-test.XXXXXX)
trap 'warm_stop; rm -rf "$T" "$Q"' EXIT
# ~/.ssh is a symlink to a directory of the workspace (visible in the
# view, where the denied path's mask covers it).
mkdir -p "$Q/ws/keys/k1"
echo old-key >"$Q/ws/keys/k1/id"
ln -s "$Q/ws/keys/k1" "$Q/ws/.ssh"
cd "$Q/ws" || exit 1
export HOME=$Q/ws

watched() { grep -c "started warm (profile strict, $Q/ws; facts watched)" "$T/serve.log"; }
# arm: runs until one is vouched for by the watch (built, then checked and
# armed, then watched; a busy directory on the way postpones arming by a
# second, hence the retries).
arm() {
  local before
  before=$(watched)
  for _ in $(seq 10); do
    run_sbx run -v --profile strict -- true
    (($(watched) > before)) && return 0
    sleep 0.3
  done
  return 1
}
if arm; then pass "runs start without re-probing the facts"; else
  fail "no run was vouched for by the watch; server log: $(tail -20 "$T/serve.log")"; fi

# A denied path created after the template was armed.
mkdir "$Q/ws/.aws"
echo aws-secret >"$Q/ws/.aws/credentials"
run_sbx run -v --profile strict -- cat "$Q/ws/.aws/credentials"
expect_hidden aws-secret "a denied path created after the watch vouched is hidden"
expect_err "start-up: warm \(template rebuilt: .*\.aws" "rebuilt because ~/.aws appeared"

# Arm again, then swap the directory ~/.ssh points to: the same path names
# a new directory, which the old view's mask (on the old one) does not
# cover.
arm || fail "the rebuilt template was never armed; server log: $(tail -20 "$T/serve.log")"
mv "$Q/ws/keys" "$Q/ws/keys.old"
mkdir -p "$Q/ws/keys/k1"
echo new-key >"$Q/ws/keys/k1/id"
run_sbx run -v --profile strict -- cat "$Q/ws/.ssh/id"
expect_hidden new-key "a swapped denied directory is hidden"
expect_err "start-up: warm \(template rebuilt" "rebuilt because ~/.ssh's target changed"
finish
