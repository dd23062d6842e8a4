#!/usr/bin/env bash
# What grants rights or decides admissions is out of the command's reach
# for writing, whatever the workspace (issue 12, 5): a run whose view
# would let the command write the approval store (default or named with
# --approval-store / SBX_APPROVAL_STORE, also through a symlink) or sbx's
# state directory is refused BEFORE the command starts (exit 125, the
# command's forgery never happens). Negative control: under permissive,
# where the whole host is writable by design and the default store is not
# held against the run, the very same command does write the store.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox

# Not under /tmp: the sandbox's /tmp is its own, and a home there would
# keep the control's forgery inside the sandbox.
home=$(mktemp -d "${SBX_BUILD_DIR:?}/store-refused.XXXXXX")
trap 'rm -rf "$T" "$home"' EXIT
mkdir -p "$home/proj"
store="$home/.config/commander/approvals.json"
forge() { # FILE: the command the sandbox runs to forge FILE
  echo "mkdir -p '${1%/*}' && echo forged >> '$1'"
}

refused() { # DESCRIPTION WHAT FILE ARGS...: FILE is what the command forges
  local desc=$1 what=$2 file=$3
  shift 3
  rm -rf "$home/.config" "$file"
  HOME="$home" XDG_CONFIG_HOME= run_sbx run --profile standard --approver none "$@" -- \
    sh -c "$(forge "$file")"
  expect_rc 125 "$desc"
  expect_err "$what .* (lies in .*lets the command write|symlink to nothing)" "$desc: the exposure is named"
  [[ ! -e $file ]] && pass "$desc: $file was not written" || fail "$desc: the command wrote $file"
}

refused "workspace = HOME, default store under it" "approval store" "$store" --workspace "$home"
refused "store named inside the workspace" "approval store" "$home/proj/grants.json" \
  --workspace "$home/proj" --approval-store "$home/proj/grants.json"
SBX_APPROVAL_STORE="$home/proj/env.json" refused "store from SBX_APPROVAL_STORE inside the workspace" \
  "approval store" "$home/proj/env.json" --workspace "$home/proj"
mkdir "$home/proj/real"
ln -s "$home/proj/real" "$home/link"
refused "store named through a symlink into the workspace" "approval store" \
  "$home/proj/real/grants.json" --workspace "$home/proj" --approval-store "$home/link/grants.json"
# A symlink to a directory the command can create later.
ln -s "$home/proj/later" "$home/dangling"
refused "store named through a dangling symlink" "approval store" \
  "$home/proj/later/grants.json" --workspace "$home/proj" --approval-store "$home/dangling/grants.json"
SBX_STATE_DIR="$home/proj/state" refused "state directory inside the workspace" "state directory" \
  "$home/proj/state/slots" --workspace "$home/proj"

# Outside the workspace: the run goes ahead and cannot write the store.
rm -rf "$home/.config"
HOME="$home" XDG_CONFIG_HOME= run_sbx run --profile standard --approver none --workspace "$home/proj" -- \
  sh -c "$(forge "$store")"
[[ $RC != 125 && ! -e $store ]] && pass "store outside the workspace: run, store unreachable ($RC)" ||
  fail "store outside the workspace: exit $RC, store $( [[ -e $store ]] && echo written ): $ERR"
# A read-only profile never needs refusing.
HOME="$home" XDG_CONFIG_HOME= run_sbx run --profile strict --approver none --workspace "$home" -- true
expect_rc 0 "workspace = HOME under a read-only profile"

# Negative control: the forgery the checks above look for does work when
# the view lets the command write the store (permissive shows the whole
# host writable by design; its default store is not held against it).
rm -rf "$home/.config"
# As root the command runs as the workspace's owner (nobody in a workspace
# root owns: docs/confinement.md, "Identity"), which could not write
# root's home: home and workspace belong to an unprivileged user here, as
# a user's would.
[[ $(id -u) == 0 ]] && chown -R 4242:4242 "$home"
HOME="$home" XDG_CONFIG_HOME= run_sbx run --profile permissive --approver none --workspace "$home/proj" -- \
  sh -c "$(forge "$store")"
[[ $RC == 0 && -e $store ]] && pass "control: permissive writes the store, so the test sees a forgery" ||
  fail "control: the forgery did not happen under permissive (exit $RC): $ERR"
finish
