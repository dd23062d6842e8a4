#!/usr/bin/env bash
# An audit log that cannot take the record refuses the run BEFORE the
# command starts (exit 125, and the command's marker file never appears).
source "$SBX_TEST_DIR/lib.sh"
require_sandbox

# A profile that lets the command write the workspace, so a marker would
# appear if the command ran.
writer=$("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}' | while read -r p; do
  "$SBX" explain --profile "$p" | grep -q '^File writes:    allowed' && { echo "$p"; break; }; done)
[[ -n $writer ]] || skip "no profile allows writing the workspace"
cp "$SBX_EXIT_HELPER" "$WS/helper"
run_sbx run --profile "$writer" --workspace "$WS" -- touch "$WS/probe"
[[ $RC == 0 && -e $WS/probe ]] || { fail "profile $writer cannot touch the workspace: $RC $ERR"; finish; }
rm -f "$WS/probe"

refused() { # DESCRIPTION LOG
  rm -f "$WS/marker"
  run_sbx run --profile "$writer" --workspace "$WS" --audit "$2" -- touch "$WS/marker"
  expect_rc 125 "$1"
  expect_err "audit log" "$1: message names the audit log"
  [[ ! -e $WS/marker ]] && pass "$1: the command did not run" || fail "$1: the command ran"
}

refused "log is a directory" "$T"
refused "log inside the writable workspace" "$WS/audit.jsonl"
expect_err "lets the command write" "the exposure is named"
rm -f "$WS/audit.jsonl"
refused "log directory missing" "$T/missing/audit.jsonl"
mkfifo "$T/fifo"
refused "log is a FIFO" "$T/fifo"

# Read-only and full file systems need a private mount namespace.
if unshare -m true 2>/dev/null; then
  mkdir "$T/ro" "$T/full"
  unshare -m bash -c '
    mount -t tmpfs -o size=1m tmpfs "$1/ro" && touch "$1/ro/audit.jsonl" && mount -o remount,ro "$1/ro" &&
    mount -t tmpfs -o size=64k tmpfs "$1/full" &&
    { dd if=/dev/zero of="$1/full/fill" bs=4k 2>/dev/null; true; } &&
    touch "$1/full/audit.jsonl" &&
    for case in ro full; do
      rm -f "$2/marker"
      "$3" run --profile "$4" --workspace "$2" --audit "$1/$case/audit.jsonl" -- touch "$2/marker" 2>"$1/err.$case"
      echo "$case $? $( [[ -e $2/marker ]] && echo ran || echo not-run)"
    done' _ "$T" "$WS" "$SBX" "$writer" >"$T/mnt.out" 2>&1
  while read -r case rc ran; do
    [[ $rc == 125 ]] && pass "$case file system: exit 125" || fail "$case file system: exit $rc ($(cat "$T/err.$case" 2>/dev/null))"
    [[ $ran == not-run ]] && pass "$case file system: the command did not run" || fail "$case file system: the command ran"
  done <"$T/mnt.out"
  grep -q "read-only\|Read-only" "$T/err.ro" 2>/dev/null && pass "read-only named" || fail "read-only not named: $(cat "$T/err.ro" 2>/dev/null)"
  grep -q "bytes free" "$T/err.full" 2>/dev/null && pass "full disk named" || fail "full disk not named: $(cat "$T/err.full" 2>/dev/null)"
  [[ $(wc -l <"$T/mnt.out") == 2 ]] || fail "mount cases did not run: $(cat "$T/mnt.out")"

  # The command itself fills the log's file system: the record can no
  # longer be stored, which is an error (125) that shows the record on
  # stderr instead of losing it.
  mkdir "$T/fill"
  unshare -m bash -c '
    mount -t tmpfs -o size=512k tmpfs "$1/fill" && mkdir "$1/fill/ws" &&
    "$2" run --profile "$3" --workspace "$1/fill/ws" --audit "$1/fill/audit.jsonl" -- \
      dd if=/dev/zero of="$1/fill/ws/big" bs=4k 2>"$1/fill.err" >/dev/null
    echo "$?" >"$1/fill.rc"' _ "$T" "$SBX" "$writer" >/dev/null 2>&1
  [[ $(cat "$T/fill.rc" 2>/dev/null) == 125 ]] && pass "log filled during the run: exit 125" ||
    fail "log filled during the run: exit $(cat "$T/fill.rc" 2>/dev/null): $(cat "$T/fill.err" 2>/dev/null)"
  grep -q "audit record not written, here it is: {" "$T/fill.err" &&
    pass "the unstored record is shown on stderr" || fail "record lost: $(cat "$T/fill.err" 2>/dev/null)"
else
  echo "note: no mount namespace; read-only and full file system cases not run" >&2
fi

# A profile that shows the host's root writable ("/" with write) reaches
# any log outside the sandbox's private /tmp, /dev, /proc.
rootw=$("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}' | while read -r q; do
  "$SBX" explain --profile "$q" | grep -Eq '^  / +read\+write' && { echo "$q"; break; }; done)
if [[ -n $rootw ]]; then
  vt=$(mktemp -d /var/tmp/sbx-cli-test.XXXXXX)
  run_sbx run --profile "$rootw" --workspace "$WS" --audit "$vt/audit.jsonl" -- touch "$WS/marker"
  expect_rc 125 "$rootw: a log on the host's writable root"
  [[ ! -e $WS/marker ]] || fail "$rootw: the command ran with an exposed log"
  run_sbx run --profile "$rootw" --workspace "$WS" --audit "$T/rootw.jsonl" -- true
  expect_rc 0 "$rootw: a log under the host's /tmp (private in the sandbox)"
  rm -rf "$vt"
fi

# A read-only workspace may hold the log: the command cannot touch it.
if "$SBX" explain --profile strict | grep -q '^File writes: *none'; then
  run_sbx run --profile strict --workspace "$WS" --audit "$WS/ro-audit.jsonl" -- true
  expect_rc 0 "log in a workspace the profile keeps read-only"
fi

# And a usable log does let it run.
run_sbx run --profile "$writer" --workspace "$WS" --audit "$T/ok.jsonl" -- touch "$WS/marker"
expect_rc 0 "usable log"
[[ -e $WS/marker ]] && pass "the command ran with a usable log" || fail "marker missing"
finish
