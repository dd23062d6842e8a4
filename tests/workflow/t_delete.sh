#!/bin/bash
# workflow_delete: "deletion means losing work" (issue 13, docs/approvals.md,
# "What counts as a deletion"). Real tools under `sbx run --profile
# standard` with no terminal (setsid, stdin /dev/null) and no approver
# (the default tty approver, which has no terminal: every question is a
# deny). What the tools do by rename and by removing their own temporary
# files must succeed with sbx silent; removing what existed before the run
# must still be refused, whatever name or directory the inode is reached by.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; mkdir -p "$ws"
err="$tmp/err"
run() { setsid "$SBX" run --profile standard --workspace "$ws" "$@" </dev/null; }
# A run that must succeed and leave sbx silent: exit 0, nothing on stderr
# (the tools here write nothing there when they succeed).
quiet() {
  local what=$1; shift
  local out; out=$(cd "$ws" && run -- "$@" 2>"$err"); local rc=$?
  [ $rc = 0 ] || fail "$what: exit $rc: $out $(cat "$err")"
  [ ! -s "$err" ] || fail "$what: stderr not empty: $(cat "$err")"
  printf '%s' "$out"
}

# The rule needs the file system of the workspace to report birth times.
: > "$ws/probe"
[ "$(stat -c %W "$ws/probe")" != 0 ] && [ "$(stat -c %W "$ws/probe")" != "-" ] ||
  { echo "SKIP: $(df -T "$ws" | tail -1 | awk '{print $2}') does not report birth times (statx btime): every removal is asked there"; exit 77; }
rm "$ws/probe"
out=$(cd "$ws" && run -- /bin/true 2>&1); rc=$?
if [ $rc != 0 ]; then
  grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" && { echo "SKIP: $out"; exit 77; }
  fail "standard does not run at all: $out"
fi

# 1. sed -i: a temporary file renamed over the original.
printf 'alpha\nbeta\n' > "$ws/f.txt"
quiet "sed -i" sed -i 's/alpha/ALPHA/' f.txt >/dev/null
grep -qx ALPHA "$ws/f.txt" || fail "sed -i did not edit"
[ "$(ls "$ws" | grep -c '^sed')" = 0 ] || fail "sed left its temporary file: $(ls "$ws")"

# 2. perl -pi (a backup-less in-place edit: unlink of the open original,
#    or rename, depending on the version).
if command -v perl >/dev/null; then
  quiet "perl -pi" perl -pi -e 's/beta/BETA/' f.txt >/dev/null
  grep -qx BETA "$ws/f.txt" || fail "perl -pi did not edit"
else
  echo "note: perl not installed: the perl -pi case is skipped"
fi

# 3. Removing what the run created, files and a whole tree: free.
quiet "rm of the run's own files" sh -c 'echo x > new && rm new && mkdir -p t/u && echo y > t/u/z && rm -r t' >/dev/null
[ ! -e "$ws/new" ] && [ ! -e "$ws/t" ] || fail "the run's own files were not removed"

# 4. git stash and stash pop (refs, the index and the work tree rewritten
#    by rename, temporary objects removed).
if command -v git >/dev/null; then
  (cd "$ws" && git init -q && git -c user.name=t -c user.email=t@example.invalid add f.txt &&
     git -c user.name=t -c user.email=t@example.invalid commit -qm init) || fail "host git setup"
  echo change >> "$ws/f.txt"
  quiet "git stash" git -c user.name=t -c user.email=t@example.invalid stash -q >/dev/null
  ! grep -q change "$ws/f.txt" || fail "git stash kept the change in the work tree"
  quiet "git stash pop" git -c user.name=t -c user.email=t@example.invalid stash pop -q >/dev/null
  grep -q change "$ws/f.txt" || fail "git stash pop did not bring the change back"
  # Control of the "git holds the exact contents" rule: a change never
  # stashed or added is in no object (the first one is: stash stored it),
  # so git reset --hard, which would lose it, is refused and it stays.
  echo unsaved >> "$ws/f.txt"
  out=$(cd "$ws" && run -- git -c user.name=t -c user.email=t@example.invalid reset -q --hard 2>&1)
  grep -q unsaved "$ws/f.txt" || fail "git reset --hard lost an uncommitted change: $out"
  grep -q "denied delete $ws/f.txt " <<<"$out" || fail "git reset --hard: no denial: $out"
  # The contents held in a pack (after git gc): checking out an older
  # version replaces the file unasked.
  (cd "$ws" && git checkout -q -- f.txt && echo v2 >> f.txt &&
     git -c user.name=t -c user.email=t@example.invalid commit -qam v2 && git gc -q) ||
    fail "host git gc"
  id=$(cd "$ws" && git hash-object f.txt)
  [ ! -e "$ws/.git/objects/${id:0:2}/${id:2}" ] && ls "$ws"/.git/objects/pack/*.idx >/dev/null ||
    fail "setup: the blob of f.txt is not only in a pack"
  quiet "git checkout of an older version" git checkout -q HEAD~1 -- f.txt >/dev/null
  ! grep -q v2 "$ws/f.txt" || fail "git checkout HEAD~1 -- f.txt did not replace the file"
  # Replacing by rename stays within the mounts: .git/config is a
  # read-only bind, and a rename over it fails (EBUSY) as before.
  cp "$ws/.git/config" "$tmp/config.before"
  out=$(cd "$ws" && run -- sh -c 'echo evil > c.new && mv -f c.new .git/config' 2>&1)
  cmp -s "$ws/.git/config" "$tmp/config.before" || fail "a rename replaced .git/config: $out"
else
  echo "note: git not installed: the git stash case is skipped"
fi

# 5. python3 -m venv and pip install of a local package, no network.
py=/usr/bin/python3
if [ -x "$py" ] && "$py" -c 'import ensurepip, venv, setuptools' 2>/dev/null; then
  mkdir -p "$ws/pkg/demo"
  printf 'from setuptools import setup\nsetup(name="demo", version="1.0", packages=["demo"])\n' > "$ws/pkg/setup.py"
  echo 'X = 42' > "$ws/pkg/demo/__init__.py"
  quiet "python3 -m venv" "$py" -m venv --system-site-packages venv >/dev/null
  quiet "pip install ./pkg" venv/bin/pip install -q --no-index --no-build-isolation \
    --disable-pip-version-check ./pkg >/dev/null
  [ "$(quiet "import" venv/bin/python -c 'import demo; print(demo.X)')" = 42 ] || fail "demo not installed"
else
  echo "note: $py with venv, ensurepip and setuptools not installed: the venv/pip case is skipped"
fi

# 6. What existed before the run is refused without an approver, and stays.
echo precious > "$ws/old"; mkdir -p "$ws/olddir" "$ws/other"; echo o > "$ws/other/o"
out=$(cd "$ws" && run -- sh -c "rm -f old" 2>&1); rc=$?
[ $rc != 0 ] && [ -e "$ws/old" ] || fail "a file from before the run was removed: $out"
grep -q "sbx: approval: denied delete $ws/old " <<<"$out" || fail "no denial named: $out"
out=$(cd "$ws" && run -- sh -c "rmdir olddir" 2>&1)
[ -d "$ws/olddir" ] || fail "a directory from before the run was removed: $out"

# 7. A hard link is a second name of the old inode: neither name is free.
out=$(cd "$ws" && run -- sh -c 'ln old link && rm -f old; rm -f link' 2>&1)
[ -e "$ws/old" ] && [ -e "$ws/link" ] || fail "hard link: an old inode was removed: $out"
[ "$(grep -c 'denied delete' <<<"$out")" = 2 ] || fail "hard link: not both removals refused: $out"
rm -f "$ws/link"

# 8. Moved (renamed) within the workspace into a directory the run made:
#    the inode, and its birth, are the old ones; rm -r of that directory
#    removes what the run made and refuses the rest.
out=$(cd "$ws" && run -- sh -c 'mkdir fresh && echo n > fresh/mine && mv other/o fresh/o && rm -rf fresh' 2>&1)
[ -e "$ws/fresh/o" ] && [ ! -e "$ws/fresh/mine" ] || fail "moved-in file: $out $(ls -R "$ws/fresh")"
grep -q "denied delete $ws/fresh/o " <<<"$out" || fail "moved-in file: no denial: $out"

# 8b. Renamed out of the workspace: another mount (EXDEV), so mv copies
#     and then removes the original, which is refused: the file stays.
out=$(cd "$ws" && run -- sh -c 'mv old /tmp/old' 2>&1)
[ -e "$ws/old" ] || fail "moving a file out of the workspace removed it: $out"

# 9. The private /tmp is a new file system per run: what comes from there
#    into the workspace is a copy (EXDEV), made by the run, and free.
quiet "from the private /tmp" sh -c 'echo t > /tmp/t && mv /tmp/t fromtmp && rm fromtmp' >/dev/null

# 10. Negative control: with the rule switched off (test knob), sed -i and
#     removing the run's own file are refused again, as before issue 13.
out=$(cd "$ws" && SBX_TEST_DELETE_AS_BEFORE=1 run -- sed -i 's/ALPHA/again/' f.txt 2>&1); rc=$?
[ $rc != 0 ] && grep -qx ALPHA "$ws/f.txt" || fail "knob: sed -i was not refused (exit $rc): $out"
rm -f "$ws"/sed*
out=$(cd "$ws" && SBX_TEST_DELETE_AS_BEFORE=1 run -- sh -c 'echo x > new2 && rm new2' 2>&1); rc=$?
[ $rc != 0 ] && [ -e "$ws/new2" ] || fail "knob: removing the run's own file was not refused: $out"
echo "PASS"
