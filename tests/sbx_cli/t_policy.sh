#!/usr/bin/env bash
# sbx run / explain --policy FILE.pol (docs/sbx.md, "Your own policies and
# models"): a user's policy in a directory outside the repository extends
# the installed standard profile through `include <profiles.pol>;`, is
# enforced, and is refused (exit 125, the layer and the reason named) when
# anyone but root and the caller could change it, when it lies in the
# workspace or where the profile writes, through a symlink to a writable
# file, a writable include or a hard link. Each refusal has a control
# that passes once the one fault is removed.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox

POL="$T/pol" # outside the repository and outside the workspace
mkdir -m 0700 "$POL"
mkdir "$WS/secrets"
echo "the-secret-42" >"$WS/secrets/key"
echo "plain-file" >"$WS/plain"
# A file beside the policy with the library's name: `include <...>` must
# not read it (it would be a syntax error).
echo "this is not a policy" >"$POL/profiles.pol"
cat >"$POL/agent.pol" <<'POLICY'
# An agent's profile: standard, without the workspace's secrets.
include <profiles.pol>;

profile agent extends standard {
  summary = "standard without the workspace's secrets directory";
  deniedPaths += {
    all "${WORKSPACE}/secrets";
  }
}
POLICY
chmod 0644 "$POL/agent.pol"

# --- enforced -----------------------------------------------------------
run_sbx run --policy "$POL/agent.pol" --profile agent -- cat plain
expect_rc 0 "agent runs a command"
[[ $OUT == plain-file ]] && pass "agent reads the workspace" || fail "agent output '$OUT'"
run_sbx run --policy "$POL/agent.pol" --profile agent -- cat secrets/key
expect_hidden the-secret-42 "agent's denied path is refused"
# Negative control: the same command under standard (from the same file,
# so the library include and the loader are the same) reads the secret.
run_sbx run --policy "$POL/agent.pol" --profile standard -- cat secrets/key
expect_rc 0 "control: standard from the library reads secrets/key"
[[ $OUT == the-secret-42 ]] && pass "control: the test would see a leak" || fail "control output '$OUT'"

# Such runs are cold (the warm server knows the linked profiles only).
before=$( [[ ${SBX_TEST_WARM:-0} == 1 ]] && warm_count "started warm" || echo 0)
run_sbx run -v --policy "$POL/agent.pol" --profile agent -- true
expect_rc 0 "agent with -v"
expect_err "cold" "a --policy run starts cold"
if [[ ${SBX_TEST_WARM:-0} == 1 ]]; then
  # sbx_cli_warm_policy: a server of this user is running, and still no
  # --policy run reaches it (its templates are of the linked profiles).
  after=$(warm_count "started warm")
  [[ $after == "$before" ]] && pass "the running server was not asked" ||
    fail "a --policy run started warm ($before -> $after)"
fi

# The audit record names the policy file.
run_sbx run --audit "$T/audit.log" --policy "$POL/agent.pol" --profile agent -- true
expect_rc 0 "agent with an audit log"
got=$(audit_field "$T/audit.log" 'r.get("policy_file")')
[[ $got == "$(realpath "$POL/agent.pol")" ]] && pass "audit record names the policy file" ||
  fail "audit policy_file '$got'"

# --- explain --------------------------------------------------------------
run_sbx explain --policy "$POL/agent.pol" --profile agent
expect_rc 0 "explain --policy"
grep -q "^From your policy file $(realpath "$POL/agent.pol")" <<<"$OUT" &&
  grep -q "^Profile agent" <<<"$OUT" && grep -qF '${WORKSPACE}/secrets' <<<"$OUT" &&
  grep -q "extends profile standard" <<<"$OUT" && pass "explain shows the custom profile" ||
  fail "explain output: $OUT"
run_sbx explain --policy "$POL/agent.pol" --profile nosuch
expect_rc 125 "explain of a profile the file lacks"
expect_err "unknown profile 'nosuch'" "the unknown name is named"

# --- refused: who can write it --------------------------------------------
chmod o+w "$POL/agent.pol"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 125 "world-writable policy"
expect_err "policy: .*agent.pol: is writable by every user" "names the layer and why"
run_sbx run --audit "$T/refused.log" --policy "$POL/agent.pol" --profile agent -- true
expect_rc 125 "world-writable policy, with an audit log"
got=$(audit_field "$T/refused.log" '(r["result"]["error"], r.get("policy_file"), r["result"]["sbx_exit"])')
[[ $got == "('policy refused (--policy)', '$POL/agent.pol', 125)" ]] &&
  pass "the refusal is recorded with the file" || fail "record of the refusal: $got"
chmod o-w,g+w "$POL/agent.pol"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 125 "group-writable policy"
expect_err "writable by group" "names the group"
chmod g-w "$POL/agent.pol"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 0 "control: the same file at 0644 runs"

chmod 0777 "$POL"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 125 "policy in a world-writable directory"
expect_err "directory $POL is writable by every user" "names the directory"
chmod 1777 "$POL"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 0 "control: a sticky directory (like /tmp) with the file our own"
chmod 0700 "$POL"

if [[ $(id -u) == 0 ]]; then
  chown 1000 "$POL/agent.pol"
  run_sbx run --policy "$POL/agent.pol" --profile agent -- true
  expect_rc 125 "policy owned by another user"
  expect_err "owned by uid 1000" "names the owner"
  chown 0 "$POL/agent.pol"
fi

# As an ordinary user (uid 1000): a directory it may search but not read
# (root's 0711) is checked all the same and passes; made group-writable,
# it is refused. A root-owned policy is trusted, another user's is not.
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null; then
  # Not below $T, which is root's 0700: uid 1000 must reach the tree.
  U=$(mktemp -d /tmp/sbx-policy-users.XXXXXX)
  mkdir -p "$U/home/u/pol" "$U/home/u/ws"
  chmod 0755 "$U" && chmod 0711 "$U/home"
  cp "$POL/agent.pol" "$U/home/u/pol/agent.pol"
  chown -R 1000:1000 "$U/home/u" && chmod 0700 "$U/home/u"
  as_user() { (cd / && setpriv --reuid=1000 --regid=1000 --clear-groups "$SBX" explain \
    --workspace "$U/home/u/ws" --policy "$1" --profile agent >"$T/out" 2>"$T/err"); RC=$?; ERR=$(cat "$T/err"); }
  # Only when uid 1000 can reach sbx and its library at all (a checkout
  # under a private home would not be): else these cases say nothing.
  if (cd / && setpriv --reuid=1000 --regid=1000 --clear-groups "$SBX" explain --profile strict >/dev/null 2>&1); then
    as_user "$U/home/u/pol/agent.pol"
    expect_rc 0 "uid 1000: its own policy below root's 0711 directory"
    chmod 0731 "$U/home"
    as_user "$U/home/u/pol/agent.pol"
    expect_rc 125 "uid 1000: the same below a group-writable directory"
    expect_err "directory $U/home is writable by group" "names the directory"
    chmod 0711 "$U/home"
    chown 1001 "$U/home/u/pol/agent.pol"
    as_user "$U/home/u/pol/agent.pol"
    expect_rc 125 "uid 1000: a policy owned by uid 1001"
    expect_err "owned by uid 1001" "names the owner"
    chown 0 "$U/home/u/pol/agent.pol"
    as_user "$U/home/u/pol/agent.pol"
    expect_rc 0 "uid 1000: control: a root-owned policy is trusted"
  else
    echo "note: uid 1000 cannot run $SBX here; the ordinary-user cases did not run"
  fi
  rm -rf "$U"
fi

# A symbolic link is resolved and the file it reaches is checked.
cp "$POL/agent.pol" "$POL/open.pol"
chmod 0666 "$POL/open.pol"
ln -s "$POL/open.pol" "$POL/link.pol"
run_sbx run --policy "$POL/link.pol" --profile agent -- true
expect_rc 125 "symlink to a writable policy"
expect_err "resolved to $POL/open.pol\) is writable" "names the target"
chmod 0644 "$POL/open.pol"
run_sbx run --policy "$POL/link.pol" --profile agent -- true
expect_rc 0 "control: the same link to a 0644 file runs"

# A POSIX ACL granting another user write (set as the raw xattr, no
# setfacl needed): refused; with the mask limiting it to read: runs.
set_acl() { # FILE MASK_PERM
  python3 - "$1" "$2" <<'PY'
import os, struct, sys
e = lambda tag, perm, uid: struct.pack("<HHI", tag, perm, uid)
any_id = 0xFFFFFFFF
acl = struct.pack("<I", 2) + e(1, 6, any_id) + e(2, 6, 1000) + e(4, 4, any_id) + \
      e(0x10, int(sys.argv[2]), any_id) + e(0x20, 4, any_id)
os.setxattr(sys.argv[1], "system.posix_acl_access", acl)
PY
}
cp "$POL/agent.pol" "$POL/acl.pol"
if set_acl "$POL/acl.pol" 6 2>/dev/null; then
  run_sbx run --policy "$POL/acl.pol" --profile agent -- true
  expect_rc 125 "a policy whose ACL lets uid 1000 write"
  set_acl "$POL/acl.pol" 4
  run_sbx run --policy "$POL/acl.pol" --profile agent -- true
  expect_rc 0 "control: the same ACL masked to read runs"
else
  echo "note: this file system takes no POSIX ACL; the ACL case did not run"
fi

# A second name of the inode could lie anywhere.
ln "$POL/agent.pol" "$POL/hard.pol"
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
expect_rc 125 "policy with two hard links"
expect_err "has 2 hard links" "names the links"
rm "$POL/hard.pol"

# Every include passes the same check.
cat >"$POL/extra.pol" <<'POLICY'
const EXTRA = 1;
POLICY
printf 'include "extra.pol";\n' | cat - "$POL/agent.pol" >"$POL/with-include.pol"
chmod 0666 "$POL/extra.pol"
run_sbx run --policy "$POL/with-include.pol" --profile agent -- true
expect_rc 125 "policy including a world-writable file"
expect_err "extra.pol: is writable by every user" "names the include"
expect_err "with-include.pol:1:9: error: include refused" "points at the include"
chmod 0644 "$POL/extra.pol"
run_sbx run --policy "$POL/with-include.pol" --profile agent -- true
expect_rc 0 "control: the include at 0644 runs"

# --- refused: where the sandbox writes --------------------------------------
cp "$POL/agent.pol" "$WS/agent.pol"
run_sbx run --policy "$WS/agent.pol" --profile agent -- true
expect_rc 125 "policy inside the workspace"
expect_err "lies inside the workspace" "says why"
run_sbx run --workspace "$WS" --policy agent.pol --profile agent -- true
expect_rc 125 "policy inside the workspace, relative"
cat >"$POL/writes-pol.pol" <<POLICY
include <profiles.pol>;
profile agentw extends standard {
  summary = "also writes the policy's own directory";
  allowedPaths += { write "$POL"; }
}
POLICY
run_sbx run --policy "$POL/writes-pol.pol" --profile agentw -- true
expect_rc 125 "policy in a directory its profile lets the command write"
expect_err "which profile 'agentw' lets the sandboxed command write" "says why"
run_sbx run --policy "$POL/writes-pol.pol" --profile standard -- true
expect_rc 0 "control: the same file for a profile that does not write there"

# A write rule below /tmp binds the host's directory into the private
# /tmp: an audit log kept there could be replaced by the command, so the
# run is refused (it once was not: only rules outside /tmp counted).
# Control: the same profile with the log elsewhere runs.
tmpw=$(mktemp -d /tmp/sbx-policy-tmpw.XXXXXX)
chmod 0777 "$tmpw"
cat >"$POL/tmpw.pol" <<POLICY
include <profiles.pol>;
profile tmpw extends standard {
  summary = "writes a host directory below /tmp";
  allowedPaths += { write "$tmpw"; }
}
POLICY
run_sbx run --policy "$POL/tmpw.pol" --profile tmpw --audit "$tmpw/audit.log" -- true
expect_rc 125 "audit log in a host directory below /tmp that the profile writes"
expect_err "audit log $tmpw/audit.log lies in $tmpw, which profile 'tmpw' lets the command write" "says why"
run_sbx run --policy "$POL/tmpw.pol" --profile tmpw --audit "$T/tmpw-audit.log" -- true
expect_rc 0 "control: the same profile with the log outside it"
rm -rf "$tmpw"

# The profile's persistent home is written by its command too: a policy
# kept there is refused (control: the same file beside it runs, above).
run_sbx run --policy "$POL/agent.pol" --profile agent -- true
state=${XDG_STATE_HOME:-$HOME/.local/state}
kept="$state/commander-sandbox/home/agent"
if [[ -d $kept ]]; then
  mkdir -p "$kept/.cache/sbx-policy-test"
  cp "$POL/agent.pol" "$kept/.cache/sbx-policy-test/agent.pol"
  run_sbx run --policy "$kept/.cache/sbx-policy-test/agent.pol" --profile agent -- true
  expect_rc 125 "policy in the profile's persistent home"
  expect_err "lets the sandboxed command write \(its persistent home\)" "says why"
  rm -rf "$kept/.cache/sbx-policy-test"
else
  fail "profile agent kept no home at $kept"
fi

# --- bad files ----------------------------------------------------------------
printf 'include <profiles.pol>;\nprofile agent extends standard {\n  summary = ;\n}\n' >"$POL/bad.pol"
run_sbx run --policy "$POL/bad.pol" --profile agent -- true
expect_rc 125 "a policy with a syntax error"
expect_err "bad.pol:3:13: error: syntax error" "file:line:col"
expect_err "^             \^$" "the caret under the column"
printf 'include <../models/profiles.pol>;\n' >"$POL/climb.pol"
run_sbx run --policy "$POL/climb.pol" --profile standard -- true
expect_rc 125 "a library name climbing out of the library"
expect_err "climb.pol:1:9: error: include <../models/profiles.pol>" "names the include"
run_sbx run --policy "$POL/missing.pol" --profile agent -- true
expect_rc 125 "a missing policy file"
mkfifo "$POL/fifo.pol"
run_sbx run --policy "$POL/fifo.pol" --profile agent -- true
expect_rc 125 "a FIFO as the policy (no hang)"
expect_err "not a regular file" "says why"

# pnetc checks the same file from any directory (the default library).
if [[ -n ${SBX_BUILD_DIR:-} && -x $SBX_BUILD_DIR/dsl/pnetc ]]; then
  out=$(cd / && "$SBX_BUILD_DIR/dsl/pnetc" --check "$POL/agent.pol" 2>&1)
  rc=$?
  [[ $rc == 0 && $out == *"profile agent:"* ]] && pass "pnetc --check from / finds the library" ||
    fail "pnetc --check: exit $rc: $out"
fi
finish
