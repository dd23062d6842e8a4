#!/usr/bin/env bash
# Template staleness: a fact the plan was computed from changes after the
# template was made; the next run must not use the old template (it would
# show a denied path, or lack the Landlock rule of a new program), but one
# rebuilt from a fresh plan, and say so.
SBX_TEST_WARM=1
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
# stale changes /usr/local/bin and the mount table, which every server on
# the machine watches; watch needs them quiet. RUN_SERIAL orders one
# ctest's tests; this lock also keeps them apart from the same tests of
# another checkout or build running on the machine.
exec 8>/run/lock/commander-sandbox-warm-facts.lock || skip "cannot open the warm tests' lock file"
flock -w 600 8 || fail "the warm tests' lock was held for 600 s by another test"
# HOME is part of the template's key, and ~/.ssh a denied path of strict:
# with the workspace as HOME, ~/.ssh lies inside the view.
export HOME=$WS
# A listing that changed within 2 s of the template's making never vouches
# for it (docs/sbx.md, "Staleness"): the second run below is only warm from
# the same template if no bin directory changed just before the first, as
# this test's own last step does, so a repeated run would see it.
for _ in $(seq 40); do
  newest=$(stat -c '%Y %Z' /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin 2>/dev/null | tr ' ' '\n' | sort -n | tail -1)
  (($(date +%s) - ${newest:-0} > 3)) && break
  sleep 0.1
done
run_sbx run -v --profile strict -- true
expect_rc 0 "template made"
run_sbx run -v --profile strict -- true
expect_err "start-up: warm$" "second run from the same template"

mkdir "$WS/.ssh"
echo secret-key >"$WS/.ssh/id"
run_sbx run -v --profile strict -- cat "$WS/.ssh/id"
expect_hidden secret-key "a denied path created later is hidden"
expect_err "start-up: warm \(template rebuilt: .*\.ssh" "rebuilt because ~/.ssh appeared"

# A program added to a bin directory: strict grants execute file by file.
bin=$(mktemp /usr/local/bin/sbx-warm-stale.XXXXXX)
trap 'warm_stop; rm -f "$bin"; rm -rf "$T"' EXIT
cp /bin/true "$bin"
chmod 0755 "$bin"
run_sbx run -v --profile strict -- "$(basename "$bin")"
expect_rc 0 "a program added after the template runs"
expect_err "template rebuilt: .*/usr/local/bin changed since" "rebuilt because /usr/local/bin changed"
# That rebuilt template recorded the listing moments after its change: its
# timestamps cannot tell a later change apart, so it never vouches for
# itself (unless this machine took over 2 s between the two runs).
run_sbx run -v --profile strict -- "$(basename "$bin")"
expect_rc 0 "the new program again"
expect_err "start-up: warm( \(template rebuilt: /usr/local/bin changed within 2 s before the template was made \(coarse timestamps\)\))?$" \
  "a listing changed just before the template was made counts as changed"
rm -f "$bin"

# A mount anywhere: every template is dropped.
mkdir "$T/mnt"
if mount -t tmpfs sbx-warm-test "$T/mnt" 2>/dev/null; then
  run_sbx run -v --profile strict -- true
  expect_err "start-up: warm \(template built\)" "a mount-table change drops the templates"
  umount "$T/mnt"
else
  echo "note: cannot mount a tmpfs here; mount-table change not tested" >&2
fi
grep -q "mount table changed" "$T/serve.log" && pass "server noticed the mount" ||
  fail "server log lacks the mount-table change"
finish
