#!/bin/bash
# workflow_git_rebase_gc: git rebase of a 3-commit branch and git gc under
# standard, no terminal, no approver (issue 13): both succeed, sbx says
# nothing, and the host sees the result (the branch on top of main; gc's
# pack, the loose objects gone, the old pack replaced). Controls: a loose
# object no pack holds is still refused removal and stays; with the
# deletion rule off (SBX_TEST_DELETE_AS_BEFORE=1) gc's removals are
# refused and named again.
set -u
. "$(dirname "$0")/workflow_lib.sh"
command -v git >/dev/null || skip "git not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; mkdir -p "$ws"; err="$tmp/err"
workflow_preflight
loose() { find "$ws/.git/objects" -path '*/objects/[0-9a-f][0-9a-f]/*' -type f | wc -l; }
packs() { ls "$ws"/.git/objects/pack/*.pack 2>/dev/null | wc -l; }
(cd "$ws" && git init -q -b main && echo a > a && git add a && git commit -qm a &&
  git checkout -q -b topic && for i in 1 2 3; do echo $i > t$i && git add t$i && git commit -qm t$i; done &&
  git checkout -q main && echo m > m && git add m && git commit -qm m && git checkout -q topic) ||
  fail "host git setup"

# 1. rebase: every work-tree file it updates is unlinked first (free: git
#    holds its contents), refs and logs by lock files.
quiet "git rebase main" $G rebase -q main >/dev/null
[ "$(cd "$ws" && git log --format=%s main..topic | tr '\n' ' ')" = "t3 t2 t1 " ] ||
  fail "topic is not its 3 commits: $(cd "$ws" && git log --oneline)"
(cd "$ws" && git merge-base --is-ancestor main topic) || fail "topic is not on top of main"
[ -f "$ws/m" ] && [ -f "$ws/t3" ] || fail "the work tree is not the rebased topic"

# 2. gc: packs the loose objects (all from before the run) and removes
#    them. info/refs (for serving over dumb HTTP) is not updated: info/ is
#    read-only (docs/confinement.md, "Git"), and git says so itself.
[ "$(loose)" -gt 0 ] || fail "setup: no loose objects"
allow='^error: unable to update .*/\.git/info/refs: Read-only file system$' quiet "git gc" $G gc -q >/dev/null
[ "$(loose)" = 0 ] || fail "git gc left $(loose) loose objects"
[ "$(packs)" = 1 ] || fail "git gc: $(packs) packs"
(cd "$ws" && git fsck --no-progress >/dev/null 2>&1 && git log --oneline topic | wc -l | grep -qx 5) || fail "the repository is not whole after gc"

# 3. A second gc after new commits and a repack made on the host: the old
#    packs, whose objects are all in the new one, are removed.
(cd "$ws" && echo n > n && git add n && git commit -qm n && git repack -q) || fail "host repack"
[ "$(packs)" = 2 ] || fail "setup: $(packs) packs"
allow='^error: unable to update .*/\.git/info/refs: Read-only file system$' quiet "second git gc" $G gc -q >/dev/null
[ "$(packs)" = 1 ] || fail "the second gc left $(packs) packs"
(cd "$ws" && git fsck --no-progress >/dev/null 2>&1) || fail "the repository is not whole after the second gc"

# 4. Control: a loose object no pack holds (a blob only written, from
#    before the run) is work: its removal is refused and named.
id=$(cd "$ws" && echo unpacked-only | git hash-object -w --stdin)
obj=".git/objects/${id:0:2}/${id:2}"
# (unlink(2) itself, not rm: rm is a command standard asks about.)
out=$(cd "$ws" && run -- python3 -c 'import os, sys; os.unlink(sys.argv[1])' "$obj" 2>&1)
[ -f "$ws/$obj" ] || fail "an unpacked loose object was removed unasked: $out"
grep -q "denied delete $ws/$obj " <<<"$out" || fail "no denial for the unpacked object: $out"

# 5. Negative control: loose objects a pack holds (repacked on the host
#    without -d); with the rule off, git prune-packed's removals are asked
#    (with no approver: refused and named) and the objects stay; with it
#    on they go unasked.
(cd "$ws" && echo o > o && git add o && git commit -qm o && git repack -q) || fail "host repack 2"
n=$(loose); [ "$n" -gt 1 ] || fail "setup: $n loose objects"
out=$(cd "$ws" && SBX_TEST_DELETE_AS_BEFORE=1 run -- git prune-packed 2>&1)
grep -q "^sbx: approval: denied delete $ws/.git/objects/" <<<"$out" && [ "$(loose)" = "$n" ] ||
  fail "knob: prune-packed's removals were not refused: $out"
quiet "git prune-packed" git prune-packed >/dev/null
[ "$(loose)" = 1 ] || fail "prune-packed left $(loose) loose objects (want 1: the unpacked one)"
echo "PASS"
