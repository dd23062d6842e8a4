#!/bin/bash
# approvals_gitconfig: git configuration at the system-call level, through
# `sbx run --profile standard` (which approves git-config) on the real
# kernel: a program that opens .git/config for writing itself (open,
# openat with a directory fd, creat, truncate) is asked about (openat2 is
# refused by the profile);
# allow -> the write lands in the real .git/config; deny, garbage, hang ->
# EPERM and the file unchanged; other write-opens are not asked about; a
# thread swapping the path between a harmless file and .git/config never
# gets a write into .git/config without approval; `git commit` works under
# an approver that denies everything (commits do not write configuration).
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v git >/dev/null || { echo "SKIP: no git"; exit 77; }
tmp=$(mktemp -d /tmp/approvals_gitcfg.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; log="$tmp/audit.log"
export SBX_APPROVAL_STORE="$tmp/store.json"
run() { "$SBX" run --profile standard --workspace "$ws" --audit "$log" "$@"; }
reset() {
  rm -rf "$ws"; mkdir -p "$ws"; : > "$log"
  git -C "$ws" init -q || fail "git init"
  git -C "$ws" config user.name tester; git -C "$ws" config user.email t@example.org
  cp "$T_GITCFG" "$ws/t_gitcfg"
  sum=$(sha256sum < "$ws/.git/config")
}
unchanged() { [ "$(sha256sum < "$ws/.git/config")" = "$sum" ]; }

reset
out=$(run --approver none -- /bin/true 2>&1); rc=$?
if [ $rc != 0 ]; then
  grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" && { echo "SKIP: $out"; exit 77; }
  fail "standard profile does not run at all: $out"
fi

# openat2: the profile answers it with ENOSYS before the approval layer
# is asked (its mode is behind a pointer: models/profiles.pol, issue 12
# part 3), so it can never write .git/config, approved or not.
reset
out=$(run --approver "exec:$APPROVERS/allow.sh" -- ./t_gitcfg openat2 2>&1)
grep -q "openat2 \.git/config: Function not implemented" <<<"$out" && unchanged ||
  fail "openat2 is not refused by the profile: $out"

# 1. Deny: every form of write-open is refused with EPERM (not EROFS: the
#    approval layer answered), named in a message and an audit record.
for m in open openat creat truncate; do
  reset
  out=$(run --approver "exec:$APPROVERS/deny.sh" -- ./t_gitcfg $m 2>&1)
  grep -q "\.git/config: Operation not permitted\|\.git config: Operation not permitted" <<<"$out" || fail "$m under deny: $out"
  # (glibc's open() and creat() are openat(2) underneath.)
  grep -q "sbx: approval: denied git-config $ws/.git/config ([a-z0-9]*(2) (system-call layer), profile standard): approver: test says no" <<<"$out" \
    || fail "$m: no denial message: $out"
  unchanged || fail "$m under deny changed .git/config"
done
grep -q '"record":"approval".*"operation":"git-config","layer":"syscall".*"decision":"deny"' "$log" || fail "no audit record: $(cat "$log")"

# 2. Fail closed: garbage, a hang past the timeout, no approver.
for a in garbage.sh hang.sh crash.sh; do
  reset
  out=$(run --approval-timeout 0.3 --approver "exec:$APPROVERS/$a" -- ./t_gitcfg open 2>&1)
  grep -q "open .git/config: Operation not permitted" <<<"$out" || fail "$a: $out"
  unchanged || fail "$a: .git/config changed"
done
reset
out=$(run --approver none -- ./t_gitcfg open 2>&1)
grep -q "open .git/config: Operation not permitted" <<<"$out" && unchanged || fail "no approver: $out"

# 3. Allow: the write lands in the real .git/config (through the
#    descriptor the supervisor opened), asked once, and git still reads it.
for m in open openat; do
  reset
  : > "$tmp/asked"
  out=$(APPROVAL_LOG="$tmp/asked" run --approver "exec:$APPROVERS/allow.sh" -- ./t_gitcfg $m 2>&1)
  grep -q ": ok" <<<"$out" || fail "$m under allow: $out"
  grep -q "# written by t_gitcfg" "$ws/.git/config" || fail "$m: the approved write did not land"
  [ "$(wc -l < "$tmp/asked")" = 1 ] || fail "$m: asked $(wc -l < "$tmp/asked") times"
  grep -q '"operation":"git-config".*"path":"'"$ws"'/.git/config".*"layer":"syscall"' "$tmp/asked" || fail "request: $(cat "$tmp/asked")"
  [ "$(git -C "$ws" config user.name)" = tester ] || fail "$m: config unreadable after the write"
done
reset
out=$(run --approver "exec:$APPROVERS/allow.sh" -- ./t_gitcfg truncate 2>&1)
grep -q "truncate .git/config: ok" <<<"$out" && [ ! -s "$ws/.git/config" ] || fail "approved truncate: $out"

# 4. Other write-opens and read-opens are not asked about.
reset
: > "$tmp/asked"
out=$(APPROVAL_LOG="$tmp/asked" run --approver "exec:$APPROVERS/allow.sh" -- sh -c './t_gitcfg plain; cat .git/config >/dev/null && echo read-ok; echo x > out.txt && echo write-ok' 2>&1)
grep -q "open plain: ok" <<<"$out" && grep -q read-ok <<<"$out" && grep -q write-ok <<<"$out" || fail "ordinary opens: $out"
[ ! -s "$tmp/asked" ] || fail "ordinary opens were asked about: $(cat "$tmp/asked")"

# 5. The path swap: a thread flips the name between "harmless" and
#    ".git/config" while the main thread opens it for writing. Under a
#    deny-everything approver .git/config must never be written; the
#    harmless file must be (the race ran).
reset
out=$(run --approver "exec:$APPROVERS/deny.sh" -- ./t_gitcfg race 3000 2>/dev/null)
grep -q "race: [0-9]* opened" <<<"$out" || fail "race did not run: $out"
unchanged || fail "path swap wrote .git/config without approval: $(grep -c RACE "$ws/.git/config") lines ($out)"
[ -s "$ws/harmless" ] || fail "no write reached the harmless file: the race never ran ($out)"
echo "race: $out"

# 6. git commit under an approver that denies everything: commits write
#    objects, refs, the index and lock files, never configuration.
reset
echo one > "$ws/f"; git -C "$ws" add f; git -C "$ws" commit -qm one || fail "commit outside"
echo two >> "$ws/f"
out=$(run --approver "exec:$APPROVERS/deny.sh" -- git commit -qam two 2>&1) || fail "git commit under deny: $out"
[ "$(git -C "$ws" log --format=%s -1)" = two ] || fail "the commit did not land: $out"
unchanged || fail "git commit changed .git/config"
[ -z "$out" ] || fail "git commit was asked about something: $out"
# 6b. Renames the supervisor's helper performs itself (git's X.lock over X
#    in .git without asking; any rename that replaces nothing) are made
#    inside the sandbox's mount namespace, where the read-only binds and
#    the self-bound .git are mount points: EBUSY, even when the approver
#    allows everything. Before issue 12 the helper only chrooted into the
#    sandbox's root, outside its namespace, and the lock renamed over
#    .git/config (a core.fsmonitor the host's next `git status` ran) and
#    .git itself moved away.
reset
out=$(run --approver "exec:$APPROVERS/allow.sh" -- python3 -c '
import os
open(".git/config.lock", "w").write("[core]\n\tfsmonitor = touch /tmp/sbx-pwned\n")
for a, b in ((".git/config.lock", ".git/config"), (".git", "gone"), (".git/hooks", "h")):
    try:
        os.rename(a, b)
        print("RENAMED", a)
    except OSError as e:
        print("held", a, e.strerror)
' 2>&1)
grep -q RENAMED <<<"$out" && fail "a rename moved protected git files: $out"
unchanged || fail "the lock file was renamed over .git/config: $out"
[ -d "$ws/.git" ] && [ ! -e "$ws/gone" ] || fail ".git was moved: $out"
# The same for any mount point: the mask over a denied path in the
# workspace (~/.git-credentials with the workspace at HOME) is not removed.
echo secret > "$ws/.git-credentials"
out=$(HOME="$ws" run --approver "exec:$APPROVERS/allow.sh" -- rm -f .git-credentials 2>&1)
[ "$(cat "$ws/.git-credentials" 2>/dev/null)" = secret ] || fail "an approved rm removed the file behind a mask: $out"
rm -f "$ws/.git-credentials"
# ... and the issue's own attack through sbx run: a commondir naming a
# crafted repository; the host's next git status runs nothing (its negative
# control, the same plant landing and running, is confine_git's first case).
reset
git -C "$ws" init -q --bare evil
printf '[core]\n\tbare = false\n\tfsmonitor = "touch %s #"\n' "$tmp/pwned" > "$ws/evil/config"
out=$(run --approver "exec:$APPROVERS/allow.sh" -- sh -c 'echo ../evil > .git/commondir; rm -f .git/commondir; mv .git/commondir x; echo done' 2>&1)
grep -q done <<<"$out" || fail "the commondir attempt did not run: $out"
git -C "$ws" status >/dev/null 2>&1
[ ! -e "$tmp/pwned" ] || fail "the host's git status ran the planted fsmonitor: $out"

# 7. sbx without root (its own user namespace): the supervisor takes the
#    listener with pidfd_getfd and opens the approved file as that user.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  reset; mkdir -p "$tmp/state"; chmod 711 "$tmp"; chown -R 65534:65534 "$ws" "$tmp/state"
  asnobody() { setpriv --reuid 65534 --regid 65534 --clear-groups env HOME="$tmp/state" \
                 SBX_STATE_DIR="$tmp/state" "$SBX" run --profile standard --workspace "$ws" "$@"; }
  out=$(asnobody --approver "exec:$APPROVERS/deny.sh" -- ./t_gitcfg open 2>&1)
  if grep -q "user namespace\|userns" <<<"$out"; then
    echo "note: unprivileged sbx unavailable here, part 7 skipped: $out"
  else
    grep -q "open .git/config: Operation not permitted" <<<"$out" && unchanged || fail "unprivileged deny: $out"
    out=$(asnobody --approver "exec:$APPROVERS/allow.sh" -- ./t_gitcfg open 2>&1)
    grep -q "open .git/config: ok" <<<"$out" && grep -q "# written by t_gitcfg" "$ws/.git/config" ||
      fail "unprivileged allow: $out"
  fi
fi
echo "PASS"
