#!/bin/bash
# workflow_git_worktree: git worktree add / remove under standard with no
# terminal and no approver (issue 13), and the workspace under /tmp, whose
# neighbours are the sandbox's private (discarded) /tmp.
set -u
. "$(dirname "$0")/workflow_lib.sh"
command -v git >/dev/null || skip "git not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; mkdir -p "$ws"; err="$tmp/err"
workflow_preflight
(cd "$ws" && git init -q -b main && echo a > a && git add a && git commit -qm a) || fail "host git setup"

# 1. A worktree inside the workspace: on the host, with its files, not
#    left locked (git locks it while creating it, then unlinks `locked`).
quiet "git worktree add wt" $G worktree add -q wt -b wtb >/dev/null
[ -f "$ws/wt/a" ] && [ -f "$ws/wt/.git" ] || fail "worktree wt not on the host: $(ls -la "$ws/wt" 2>&1)"
[ ! -e "$ws/.git/worktrees/wt/locked" ] || fail "worktree wt left locked: $(cat "$ws/.git/worktrees/wt/locked")"
(cd "$ws" && git worktree list --porcelain) | grep -q "^worktree $ws/wt$" || fail "host git does not list wt"
! (cd "$ws" && git worktree list --porcelain) | grep -q "^locked" || fail "host git lists a locked worktree"

# 2. Work in it in a later run (its links are then protected, read-only):
#    a commit lands on its branch.
echo w > "$ws/wt/w"
in_dir="$ws/wt" quiet "commit in wt" sh -c "$G add w && $G commit -qm w" >/dev/null
[ "$(cd "$ws" && git log -1 --format=%s wtb)" = w ] || fail "the commit in wt is not on wtb"

# 3. Added and removed in one run: everything it made goes, unasked.
quiet "worktree add + remove" sh -c "$G worktree add -q wt2 -b wt2b && $G worktree remove wt2" >/dev/null
[ ! -e "$ws/wt2" ] && [ ! -e "$ws/.git/worktrees/wt2" ] || fail "wt2 not removed: $(ls "$ws" "$ws/.git/worktrees")"

# 3b. A worktree made in this run has writable links until the run ends
#     (they are protected from the next run on): one re-pointed elsewhere
#     (a commondir naming a crafted repository, whose config the user's
#     git in that worktree would obey) fails the run, named. Control: 1
#     and 3 above, the same worktree left as git made it, pass silent.
out=$(cd "$ws" && run -- sh -c "$G worktree add -q wt3 -b wt3b && git init -q --bare crafted &&
  echo ../../../crafted > .git/worktrees/wt3/commondir" 2>&1); rc=$?
[ $rc = 125 ] && grep -q "^sbx: error: the git worktree record $ws/.git/worktrees/wt3, made in this run, has a commondir" <<<"$out" ||
  fail "a re-pointed commondir of a new worktree was not named (exit $rc): $out"
# Negative control: the check off (test knob), the same plant exits 0 and
# the host's git in that worktree runs the crafted repository's fsmonitor.
rm -rf "$ws/wt3" "$ws/.git/worktrees/wt3" "$ws/crafted"; (cd "$ws" && git branch -q -D wt3b)
marker="$tmp/fsmonitor-ran"
out=$(cd "$ws" && SBX_TEST_NO_WORKTREE_CHECK=1 run -- sh -c "$G worktree add -q wt3 -b wt3b &&
  git init -q --bare crafted && printf '[core]\n\tbare = false\n\tfsmonitor = \"touch $marker #\"\n' > crafted/config &&
  echo ../../../crafted > .git/worktrees/wt3/commondir" 2>&1); rc=$?
[ $rc = 0 ] || fail "knob: the plant did not pass (exit $rc): $out"
(cd "$ws/wt3" && git status >/dev/null 2>&1)
[ -e "$marker" ] || fail "knob: the host's git in wt3 did not run the planted fsmonitor: the control shows nothing"
rm -rf "$ws/wt3" "$ws/.git/worktrees/wt3" "$ws/crafted" "$marker"; (cd "$ws" && git branch -q -D wt3b 2>/dev/null)
out=$(cd "$ws" && run -- sh -c "$G worktree add -q wt4 -b wt4b && echo 'gitdir: $ws/crafted' > wt4/.git" 2>&1); rc=$?
[ $rc = 125 ] && grep -q "^sbx: error: $ws/wt4/.git, the .git file of a worktree made in this run, does not name" <<<"$out" ||
  fail "a re-pointed .git file of a new worktree was not named (exit $rc): $out"

# 4. Removing a worktree from before the run (wt) is a deletion of what
#    existed: its HEAD, index and reflog are in no object (a detached
#    HEAD's commits may be reachable from nowhere else). Without an
#    approver it is refused, named, and the worktree still works.
out=$(cd "$ws" && run -- $G worktree remove wt 2>&1); rc=$?
[ $rc != 0 ] || fail "removing a worktree from before the run succeeded unasked: $out"
grep -q "^sbx: approval: denied delete $ws/" <<<"$out" || fail "no denial named: $out"
[ -f "$ws/wt/.git" ] && (cd "$ws/wt" && git status -s >/dev/null) || fail "the refused removal broke wt: $out"
(cd "$ws/wt" && git checkout -q -- . ) # what the refused removal had already taken (blobs, free)

# 5. ../wt from a workspace below /tmp: the directory between /tmp and the
#    workspace is sbx's, a read-only bind: EROFS, and git says so.
out=$(cd "$ws" && run -- $G worktree add -q ../wt-out -b out1 2>&1); rc=$?
[ $rc != 0 ] || [ -f "$tmp/wt-out/a" ] || fail "../wt-out: exit 0 and nothing on the host: $out"
[ $rc = 0 ] || grep -q "Read-only file system" <<<"$out" || fail "../wt-out: not refused by EROFS: $out"
(cd "$ws" && git worktree prune && git branch -q -D out1 2>/dev/null)

# 5b. The same unprivileged (sbx in a user namespace, as nobody), where
#     those directories would be the command's own: still EROFS, nothing
#     beside the workspace on the host; writing in the workspace works.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SBX"; then
  u="$tmp/u"; mkdir -p "$u/a/ws" "$u/state"; chown -R 65534:65534 "$u"; chmod 755 "$tmp"
  out=$(cd "$u/a/ws" && setsid setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    env SBX_STATE_DIR="$u/state" HOME="$u" "$SBX" run --profile standard --workspace "$u/a/ws" -- \
    sh -c 'echo in > inside; echo out > ../beside' </dev/null 2>&1)
  [ -f "$u/a/ws/inside" ] || fail "unprivileged: writing in the workspace failed: $out"
  grep -q "Read-only file system" <<<"$out" && [ ! -e "$u/a/beside" ] ||
    fail "unprivileged: a write beside the workspace was not refused by EROFS: $out"
else
  echo "note: setpriv, root or a build nobody can run missing: the unprivileged case is skipped"
fi

# 6. A workspace directly in /tmp: ../wt is the private /tmp's, discarded
#    with the run. The run must fail naming it (exit 125), never exit 0
#    with nothing on the host.
ws2=$(mktemp -d /tmp/sbx-wf-wt.XXXXXX)
trap 'rm -rf "$tmp" "$ws2" "/tmp/$(basename "$ws2")-wt"' EXIT
(cd "$ws2" && git init -q -b main && echo a > a && git add a && git commit -qm a) || fail "host git setup 2"
wsave=$ws; ws=$ws2
lost="/tmp/$(basename "$ws2")-wt"
out=$(cd "$ws" && run -- $G worktree add -q "../$(basename "$ws2")-wt" -b lost 2>&1); rc=$?
if [ $rc = 0 ]; then
  [ -f "$lost/a" ] || fail "/tmp workspace: git worktree add ../wt exited 0 with nothing on the host: $out"
else
  grep -q "^sbx: error: the git worktree $lost was made in the sandbox's private /tmp" <<<"$out" ||
    fail "/tmp workspace: failed (exit $rc) without naming the lost worktree: $out"
  [ $rc = 125 ] || fail "/tmp workspace: exit $rc, not 125: $out"
fi
# Control: inside that workspace a worktree works and sbx says nothing
# (the check names only what is outside the workspace and missing).
(cd "$ws" && git worktree prune)
quiet "/tmp workspace: worktree inside" $G worktree add -q inner -b inner >/dev/null
[ -f "$ws/inner/a" ] || fail "/tmp workspace: inner worktree not on the host"
ws=$wsave
echo "PASS"
