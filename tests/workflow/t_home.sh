#!/bin/bash
# workflow_home: the sandbox's home (issue 13, docs/confinement.md "Home").
# Real tools under `sbx run` as an agent host runs them: no terminal
# (setsid, stdin /dev/null), no approver. A test HOME stands for the
# user's: its ~/.gitconfig gives the identity a commit made inside gets,
# a cache written in one run of standard is there in the next (not under
# strict), a listed name that is a symlink into a denied path shows
# nothing (negative control: the same link to a directory nobody denies
# shows it), and sbx run --add-path shows one more path where the profile
# permits it, denied paths winning. Each run is in the audit record.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok   $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"
unset XDG_STATE_HOME
ws="$tmp/ws"
mkdir -p "$HOME" "$ws"
err="$tmp/err"
log="$tmp/audit.log"
run() { (cd "$ws" && setsid "$SBX" run --audit "$log" --workspace "$ws" "$@" </dev/null); }
# A run that must succeed with sbx silent: exit 0, nothing on stderr.
quiet() {
  local what=$1; shift
  local out; out=$(run "$@" 2>"$err"); local rc=$?
  [ $rc = 0 ] || fail "$what: exit $rc: $out $(cat "$err")"
  [ ! -s "$err" ] || fail "$what: stderr not empty: $(cat "$err")"
  pass "$what" >&2
  printf '%s' "$out"
}
last_audit() { tail -1 "$log" | python3 -c "import json,sys; r=json.load(sys.stdin); print($1)"; }

out=$(run --profile standard -- /bin/true 2>&1); rc=$?
if [ $rc != 0 ]; then
  grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" && { echo "SKIP: $out"; exit 77; }
  fail "standard does not run at all: $out"
fi
command -v git >/dev/null || { echo "SKIP: git is not installed"; exit 77; }

# 1. A commit with the identity of the test HOME's ~/.gitconfig.
printf '[user]\n\tname = Home Test\n\temail = home-test@example.org\n' >"$HOME/.gitconfig"
quiet "git init" --profile standard -- git init -q . >/dev/null
echo hello >"$ws/hello.txt"
quiet "git add" --profile standard -- git add hello.txt >/dev/null
quiet "git commit" --profile standard -- git commit -q -m "first" >/dev/null
author=$(git -C "$ws" -c safe.directory='*' log -1 --format='%an <%ae>')
[ "$author" = "Home Test <home-test@example.org>" ] && pass "the commit's author is the test HOME's" ||
  fail "author '$author', not the test HOME's identity"
[ "$(last_audit 'r["home"]["read_only"][0]')" = "~/.gitconfig" ] && pass "audit: home read-only list" ||
  fail "audit record lacks the home: $(tail -1 "$log")"
# Read-only: the command cannot change the real ~/.gitconfig.
run --profile standard -- git config --global user.name Changed >/dev/null 2>&1
grep -q "Home Test" "$HOME/.gitconfig" && pass "~/.gitconfig stays read-only" ||
  fail "the command changed the real ~/.gitconfig"

# HOME itself stays the command's, writable beside the binds in it (a
# merge once made it read-only: the read-only scaffold of directories
# below /tmp took /tmp/home for one).
quiet "a file written in HOME" --profile standard -- sh -c 'echo x > ~/.some_tool_state && cat ~/.some_tool_state' >/dev/null &&
  pass "HOME is writable under standard, with binds in it"

# 2. Persistence: standard keeps ~/.cache between runs, in the state
#    directory, never in the workspace; strict keeps nothing.
quiet "cache written" --profile standard -- python3 -c \
  'import os; d=os.path.expanduser("~/.cache/t"); os.makedirs(d, exist_ok=True); open(d+"/f","w").write("kept")' >/dev/null
got=$(quiet "cache read" --profile standard -- cat /tmp/home/.cache/t/f)
[ "$got" = kept ] && pass "a cache file written in one run is there in the next" ||
  fail "the next run read '$got'"
state="$HOME/.local/state/commander-sandbox/home/standard"
[ -n "$(find "$state" -name f -path '*/.cache/t/*' 2>/dev/null)" ] && pass "kept in the state directory" ||
  fail "not kept under $state"
[ -z "$(find "$ws" -path '*.cache*' 2>/dev/null)" ] || fail "a cache landed in the workspace"
[ "$(last_audit 'r["home"]["persistent"][0]')" = "~/.cache" ] && pass "audit: home persistent list" ||
  fail "audit record lacks the persistent list"
case "$(last_audit 'r["home"]["kept_in"]')" in
  "$state"*) pass "audit: where the home is kept" ;;
  *) fail "audit record lacks home.kept_in: $(tail -1 "$log")" ;;
esac
got=$(run --profile strict -- cat /tmp/home/.cache/t/f 2>/dev/null)
[ -z "$got" ] && pass "strict: the cache is not there" || fail "strict sees standard's cache: $got"
[ ! -e "$HOME/.local/state/commander-sandbox/home/strict" ] && pass "strict keeps nothing" ||
  fail "strict made a persistent home"
# A persistent directory another run swapped for a symlink refuses the run.
pdir=$(dirname "$(find "$state" -name f -path '*/.cache/t/*' | head -1)")
pcache=$(dirname "$pdir")
mv "$pcache" "$pcache.real" && ln -s "$HOME" "$pcache"
out=$(run --profile standard -- true 2>&1); rc=$?
[ $rc = 125 ] && grep -q "home:" <<<"$out" && pass "a symlinked persistent directory refuses the run" ||
  fail "symlinked persistent directory: exit $rc: $out"
rm "$pcache" && mv "$pcache.real" "$pcache"

# 3. A listed name that is a symlink into a denied path shows nothing.
#    ~/.config/pip is listed, ~/.ssh denied (models/profiles.pol).
mkdir -p "$HOME/.ssh" "$HOME/notdenied" "$HOME/.config"
echo secret-key >"$HOME/.ssh/id_test"
echo visible >"$HOME/notdenied/id_test"
ln -s "$HOME/notdenied" "$HOME/.config/pip"
got=$(run --profile strict -- cat /tmp/home/.config/pip/id_test 2>/dev/null)
[ "$got" = visible ] && pass "control: a listed symlink into a plain directory shows it" ||
  fail "control: the listed symlink shows '$got' (the check would not be seen)"
rm "$HOME/.config/pip" && ln -s "$HOME/.ssh" "$HOME/.config/pip"
got=$(run --profile strict -- cat /tmp/home/.config/pip/id_test 2>/dev/null)
[ -z "$got" ] && pass "a listed symlink into ~/.ssh shows nothing" || fail "denied file exposed: $got"
last_audit 'r["home"]["notes"]' | grep -q "config/pip skipped.*denied path ~/.ssh" &&
  pass "audit: the skipped name and why" || fail "audit record lacks the note: $(tail -1 "$log")"
got=$(run --profile strict -- cat "$HOME/.ssh/id_test" 2>/dev/null)
[ -z "$got" ] && pass "~/.ssh itself stays hidden" || fail "denied file exposed: $got"
# A hard link has no name to resolve: a listed file with two names is not
# shown (control: the same file with one name is).
rm "$HOME/.config/pip"
mkdir -p "$HOME/.pip"
echo "[global]" >"$HOME/.pip/pip.conf"
got=$(run --profile strict -- cat /tmp/home/.pip/pip.conf 2>/dev/null)
[ "$got" = "[global]" ] && pass "control: a listed file with one name is shown" ||
  fail "control: ~/.pip/pip.conf shows '$got'"
rm "$HOME/.pip/pip.conf" && ln "$HOME/.ssh/id_test" "$HOME/.pip/pip.conf"
got=$(run --profile strict -- cat /tmp/home/.pip/pip.conf 2>/dev/null)
[ -z "$got" ] && pass "a listed hard link to a file in ~/.ssh shows nothing" || fail "hard link exposed: $got"
rm "$HOME/.pip/pip.conf"
ln -s "$HOME/.ssh" "$HOME/.config/pip"
# Out of the home: a listed name leading to /etc is skipped too.
rm "$HOME/.config/pip" && ln -s /etc "$HOME/.config/pip"
got=$(run --profile strict -- ls /tmp/home/.config/pip/ 2>/dev/null)
[ -z "$got" ] && pass "a listed symlink out of the home shows nothing" || fail "outside the home exposed: $got"
rm "$HOME/.config/pip"

# 4. pnetc refuses a listing of a denied path (a denied path always wins).
cat >"$tmp/bad.pol" <<'EOF'
profile p {
  summary = "lists a denied path";
  tier = seccomp; allowShell = none; allowNetwork = false;
  allowFileWrite = false; allowFileDelete = false;
  deniedPaths { all "~/.ssh"; }
  homeReadOnly = [ "~/.ssh/id_test" ];
  maxExecutionTime = 1m; maxMemory = 1GiB; maxCpuTime = 1m;
  maxProcesses = 8; maxOpenFiles = 64; maxFileSize = 1MiB;
  approve none;
  syscalls { default errno(EPERM); }
}
EOF
if [ -n "${PNETC:-}" ]; then
  out=$("$PNETC" --check -q "$tmp/bad.pol" 2>&1); rc=$?
  [ $rc = 2 ] && grep -q "overlaps denied path '~/.ssh'" <<<"$out" &&
    pass "pnetc refuses homeReadOnly of a denied path" || fail "pnetc: exit $rc: $out"
  sed -i 's/deniedPaths { all "~\/.ssh"; }/deniedPaths { }/' "$tmp/bad.pol"
  "$PNETC" --check -q "$tmp/bad.pol" >/dev/null 2>&1 && pass "control: without the deny it compiles" ||
    fail "control: the policy without the deny is refused too"
fi

# 5. sbx run --add-path: one more path where the profile permits it.
# World-writable, so that only the mount decides (as root, sbx runs the
# command as the workspace's owner or nobody: sbx_plan_identity.c).
extra="$tmp/extra"; mkdir -p "$extra"; echo data >"$extra/in"; chmod 0777 "$extra"
got=$(quiet "--add-path read-only" --profile standard --add-path "$extra" -- cat "$extra/in")
[ "$got" = data ] && pass "--add-path shows the path" || fail "--add-path read '$got'"
[ "$(last_audit 'r["extra_path"]["path"] + ":" + r["extra_path"]["access"]')" = "$extra:ro" ] &&
  pass "audit: the extra path" || fail "audit record lacks the extra path: $(tail -1 "$log")"
run --profile standard --add-path "$extra" -- sh -c "echo x > '$extra/out'" >/dev/null 2>&1
[ ! -e "$extra/out" ] && pass "read-only extra path is not writable" || fail "wrote a read-only extra path"
quiet "--add-path :rw" --profile standard --add-path "$extra:rw" -- sh -c "echo x > '$extra/out'" >/dev/null
[ -e "$extra/out" ] && pass "a writable extra path is written" || fail ":rw did not write"
got=$(run --profile standard -- cat "$extra/in" 2>/dev/null)
[ -z "$got" ] && pass "control: without --add-path the path is not shown" || fail "shown without --add-path"
out=$(run --profile strict --add-path "$extra" -- true 2>&1); rc=$?
[ $rc = 125 ] && grep -q "allowExtraPath" <<<"$out" && pass "strict refuses --add-path" ||
  fail "strict --add-path: exit $rc: $out"
out=$(run --profile standard --add-path "$HOME/.ssh" -- true 2>&1); rc=$?
[ $rc = 125 ] && grep -q "denied path" <<<"$out" && pass "a denied --add-path is refused" ||
  fail "denied --add-path: exit $rc: $out"
ln -s "$HOME/.ssh" "$tmp/innocent"
out=$(run --profile standard --add-path "$tmp/innocent" -- true 2>&1); rc=$?
[ $rc = 125 ] && grep -q "denied path" <<<"$out" && pass "a symlink to a denied path is refused as --add-path" ||
  fail "symlinked denied --add-path: exit $rc: $out"
out=$(run --profile standard --add-path "$tmp/missing" -- true 2>&1); rc=$?
[ $rc = 125 ] && grep -q "must exist" <<<"$out" && pass "a missing --add-path is refused" ||
  fail "missing --add-path: exit $rc: $out"
out=$(run --profile standard --add-path /etc:rw -- true 2>&1); rc=$?
[ $rc = 125 ] && pass "a system directory is refused as --add-path" || fail "/etc:rw: exit $rc: $out"
# An extra path that holds a denied one: the denied one stays hidden.
got=$(run --profile standard --add-path "$HOME" -- cat "$HOME/notdenied/id_test" 2>/dev/null)
[ "$got" = visible ] && pass "control: --add-path of the home shows a plain file in it" ||
  fail "control: --add-path \$HOME shows '$got'"
got=$(run --profile standard --add-path "$HOME" -- cat "$HOME/.ssh/id_test" 2>/dev/null)
[ -z "$got" ] && pass "--add-path of the home still hides ~/.ssh" || fail "denied file exposed: $got"
# 6. What sbx keeps (the audit log here) may not lie where the command
#    writes: in the persistent home, or in a writable --add-path.
out=$(cd "$ws" && setsid "$SBX" run --audit "$state/log.json" --profile standard -- true 2>&1 </dev/null); rc=$?
[ $rc = 125 ] && grep -q "persistent home" <<<"$out" && pass "an audit log in the persistent home is refused" ||
  fail "audit log in the persistent home: exit $rc: $out"
out=$(cd "$ws" && setsid "$SBX" run --audit "$extra/log.json" --add-path "$extra:rw" --profile standard -- true 2>&1 </dev/null); rc=$?
[ $rc = 125 ] && grep -q "add-path" <<<"$out" && pass "an audit log in a writable --add-path is refused" ||
  fail "audit log in --add-path: exit $rc: $out"
out=$(cd "$ws" && setsid "$SBX" run --audit "$extra/log.json" --add-path "$extra" --profile standard -- true 2>&1 </dev/null); rc=$?
[ $rc = 0 ] && pass "control: the same log with a read-only --add-path runs" || fail "control: exit $rc: $out"
echo "all done"
