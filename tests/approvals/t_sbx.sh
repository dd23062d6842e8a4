#!/bin/bash
# approvals_sbx: the workflow end to end through `sbx run` on the real
# kernel, profiles and audit log: command rules (rm, git config, sudo),
# the system-call layer (a program calling unlink(2) directly; a direct
# write of .git/config), scopes and the store, fail-closed approvers.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/approvals_sbx.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; log="$tmp/audit.log"
export SBX_APPROVAL_STORE="$tmp/store.json"
run() { "$SBX" run --profile standard --workspace "$ws" --audit "$log" "$@"; }
reset() {
  rm -rf "$ws"; mkdir -p "$ws/sub"; : > "$log"
  for f in a c e; do echo x > "$ws/$f"; done
  cp "$T_UNLINK" "$ws/t_unlink"; mkdir -p "$ws/emptydir"; echo x > "$ws/sub/b"; echo x > "$ws/f"
}

reset
out=$(run --approver none -- /bin/true 2>&1); rc=$?
if [ $rc != 0 ]; then
  grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" && { echo "SKIP: $out"; exit 77; }
  fail "standard profile does not run at all: $out"
fi

# 1. Command layer: rm asks; a deny means rm never runs (exit 125).
reset
out=$(run --approver "exec:$APPROVERS/deny.sh" -- rm "$ws/a" 2>&1); rc=$?
[ $rc = 125 ] || fail "denied rm: exit $rc ($out)"
grep -q "approval: rm denied (delete, builtin rule 'rm' (delete)): approver: test says no" <<<"$out" || fail "message: $out"
[ -e "$ws/a" ] || fail "denied rm deleted the file"
grep -q '"record":"approval".*"operation":"delete","layer":"command".*"decision":"deny"' "$log" || fail "no approval record: $(cat "$log")"
grep -q '"layer":"approval"' "$log" || fail "run record does not name the approval layer"
for a in garbage.sh crash.sh nonzero.sh closed.sh hang.sh; do
  out=$(run --approval-timeout 0.3 --approver "exec:$APPROVERS/$a" -- rm "$ws/a" 2>&1); rc=$?
  [ $rc = 125 ] && [ -e "$ws/a" ] || fail "$a: rm ran (exit $rc): $out"
done
out=$(run --approver none -- rm "$ws/a" 2>&1); [ $? = 125 ] || fail "no approver: rm ran"
# No terminal (ctest has none): the tty approver denies.
out=$(setsid "$SBX" run --profile standard --workspace "$ws" -- rm "$ws/a" </dev/null 2>&1); rc=$?
[ $rc = 125 ] && [ -e "$ws/a" ] || fail "tty approver without a terminal: exit $rc: $out"

# 2. Allowed rm: runs, and its unlink is not asked about again.
: > "$tmp/asked"
out=$(APPROVAL_LOG="$tmp/asked" run --approver "exec:$APPROVERS/allow.sh" -- rm "$ws/a" 2>&1) || fail "allowed rm: $out"
[ ! -e "$ws/a" ] || fail "allowed rm did not delete"
[ "$(wc -l < "$tmp/asked")" = 1 ] || fail "asked $(wc -l < "$tmp/asked") times for one approved rm"

# 3. System-call layer: a program calling unlink(2) directly.
reset
out=$(run --approver "exec:$APPROVERS/deny.sh" -- ./t_unlink "$ws" 2>&1); rc=$?
[ $rc = 0 ] || fail "t_unlink under deny: exit $rc: $out"
grep -q "unlink a: Operation not permitted" <<<"$out" || fail "direct unlink not refused: $out"
# Replacing a file by rename is a write (issue 13), not a deletion: not
# asked, done. The same under the test knob that restores the old rule
# is asked, and refused (the negative control of this line).
grep -q "rename c over e: ok" <<<"$out" || fail "rename over a file refused: $out"
reset
out=$(SBX_TEST_DELETE_AS_BEFORE=1 run --approver "exec:$APPROVERS/deny.sh" -- ./t_unlink "$ws" 2>&1)
grep -q "rename c over e: Operation not permitted" <<<"$out" || fail "knob: rename over a file not refused: $out"
reset
out=$(run --approver "exec:$APPROVERS/deny.sh" -- ./t_unlink "$ws" 2>&1)
grep -q "rename f to new: ok" <<<"$out" || fail "plain rename broken: $out"
[ -e "$ws/a" ] && [ -e "$ws/sub/b" ] && [ -d "$ws/emptydir" ] && [ -e "$ws/e" ] || fail "something was deleted"
grep -q "sbx: approval: denied delete $ws/a (unlink(2) (system-call layer), profile standard)" <<<"$out" || fail "no denial message: $out"
grep -q '"layer":"syscall","command":\["./t_unlink"' "$log" || fail "no syscall-layer record"
reset
out=$(run --approver "exec:$APPROVERS/allow.sh" -- ./t_unlink "$ws" 2>&1) || fail "t_unlink under allow: $out"
grep -q "unlink a: ok" <<<"$out" && [ ! -e "$ws/a" ] && [ ! -e "$ws/sub/b" ] || fail "allowed unlinks not done: $out"

# 3b. The sandbox's private /tmp dies with the run: deleting there is not
#     asked about (compilers' temporaries), but a workspace file reached
#     through a symlink in /tmp still is.
reset
out=$(run --approver "exec:$APPROVERS/deny.sh" -- sh -c 'echo x > /tmp/t && rm /tmp/t && echo tmp-ok; ln -s '"$ws"' /tmp/w && rm /tmp/w/a' 2>&1)
grep -q tmp-ok <<<"$out" || fail "deleting in the private /tmp was refused: $out"
# The request names the file the call really acts on (the symlink
# resolved), not the name the command used.
grep -q "denied delete $ws/a " <<<"$out" && [ -e "$ws/a" ] || fail "a workspace file behind a /tmp symlink was deleted: $out"

# 4. git config: command rule; without approval .git/config stays read-only
#    even for a program writing it directly.
if command -v git >/dev/null; then
  reset; git -C "$ws" init -q || fail "git init"
  out=$(run --approver "exec:$APPROVERS/deny.sh" -- git config user.name mallory 2>&1); rc=$?
  [ $rc = 125 ] || fail "denied git config ran: $out"
  grep -q "git-config" <<<"$out" || fail "git config denial message: $out"
  out=$(run --approver "exec:$APPROVERS/deny.sh" -- sh -c 'echo "[core] hooksPath = /tmp/x" >> .git/config' 2>&1)
  grep -q hooksPath "$ws/.git/config" && fail "a direct write of .git/config went through"
  out=$(run --approver "exec:$APPROVERS/allow.sh" -- git config user.name alice 2>&1) || fail "approved git config failed: $out"
  [ "$(git -C "$ws" config user.name)" = alice ] || fail "approved git config did not write"
fi

# 5. sudo: asks in standard, refused outright in strict.
out=$(run --approver "exec:$APPROVERS/deny.sh" -- sudo id 2>&1); [ $? = 125 ] || fail "denied sudo ran"
grep -q "builtin rule 'sudo'" <<<"$out" || fail "sudo message: $out"
out=$("$SBX" run --profile strict --workspace "$ws" --approver "exec:$APPROVERS/allow.sh" -- sudo id 2>&1)
[ $? = 125 ] && grep -q "profile strict neither permits nor approves 'sudo'" <<<"$out" || fail "strict sudo: $out"

# 5b. A rule written in the profile (models/profiles.pol `rule "kubectl
#     delete"`) asks like a built-in one and names its .pol line.
out=$(run --approver "exec:$APPROVERS/deny.sh" -- kubectl delete pod web-1 2>&1); [ $? = 125 ] || fail "denied kubectl ran"
grep -q "profiles.pol:[0-9]*:[0-9]* (profile standard) rule 'kubectl delete' (delete)" <<<"$out" || fail "profile rule message: $out"
out=$(run --approver "exec:$APPROVERS/deny.sh" -- kubectl get pods 2>&1); [ $? != 125 ] || fail "kubectl get was stopped: $out"

# 6. Scopes: "always" is stored (0600) and used by the next run without asking;
#    listed, revoked, cleared; a store others can read is refused.
reset; : > "$tmp/asked"
APPROVAL_LOG="$tmp/asked" run --approver "exec:$APPROVERS/always.sh" -- rm "$ws/a" >/dev/null 2>&1 || fail "always rm"
[ "$(stat -c %a "$SBX_APPROVAL_STORE")" = 600 ] || fail "store mode $(stat -c %a "$SBX_APPROVAL_STORE")"
run --approver "exec:$APPROVERS/deny.sh" -- rm "$ws/c" >/dev/null 2>&1 || fail "standing grant not used"
[ "$(wc -l < "$tmp/asked")" = 1 ] || fail "asked again despite the standing grant"
list=$("$SBX" approvals list) || fail "approvals list"
grep -qE '^1 +delete .* rm$' <<<"$list" || fail "list: $list"
chmod 644 "$SBX_APPROVAL_STORE"
"$SBX" approvals list >/dev/null 2>&1 && fail "a world-readable store was listed"
run --approver "exec:$APPROVERS/deny.sh" -- rm "$ws/e" >/dev/null 2>&1 && fail "a world-readable store granted a deletion"
chmod 600 "$SBX_APPROVAL_STORE"
"$SBX" approvals revoke 7 2>/dev/null && fail "revoked a grant that does not exist"
"$SBX" approvals revoke 1 || fail "revoke"
run --approver "exec:$APPROVERS/deny.sh" -- rm "$ws/e" >/dev/null 2>&1 && fail "revoked grant still used"
"$SBX" approvals clear || fail "clear"
# 7. sbx without root (user namespace): the helper enters the sandbox's user
#    and mount namespaces to act; allowed calls happen, denied ones do not.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  reset; mkdir -p "$tmp/state"; chmod 711 "$tmp"; chown -R 65534:65534 "$ws" "$tmp/state"
  asnobody() { setpriv --reuid 65534 --regid 65534 --clear-groups env HOME="$tmp/state" \
                 SBX_STATE_DIR="$tmp/state" "$SBX" run --profile standard --workspace "$ws" "$@"; }
  out=$(asnobody --approver "exec:$APPROVERS/deny.sh" -- ./t_unlink "$ws" 2>&1)
  if grep -q "user namespace\|userns" <<<"$out"; then
    echo "note: unprivileged sbx unavailable here, part 7 skipped: $out"
  else
    grep -q "unlink a: Operation not permitted" <<<"$out" && [ -e "$ws/a" ] || fail "unprivileged deny: $out"
    # The renames were done (a write, issue 13): their sources again.
    echo x > "$ws/c"; echo x > "$ws/f"; chown 65534:65534 "$ws/c" "$ws/f"
    out=$(asnobody --approver "exec:$APPROVERS/allow.sh" -- ./t_unlink "$ws" 2>&1)
    grep -q "unlink a: ok" <<<"$out" && grep -q "rename c over e: ok" <<<"$out" && [ ! -e "$ws/a" ] ||
      fail "unprivileged allow: $out"
  fi
fi
echo PASS
