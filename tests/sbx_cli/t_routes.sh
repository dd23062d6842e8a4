#!/usr/bin/env bash
# Routes (models/profiles.pol): `sbx explain --routes` lists them exactly
# (tests/sbx_cli/routes.golden); `sbx run` picks its route from its request
# (kind command, its profile, --label) and the record names route, backend,
# tier and lane; --tier and --lane override the route's. Negative controls:
# a label no route names, and no label, take the default route.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG="$T/audit.log"

run_sbx explain --routes
expect_rc 0 "explain --routes"
if [[ $OUT == "$(cat "$SBX_TEST_DIR/routes.golden")" ]]; then pass "the routes as routes.golden lists them"; else
  fail "explain --routes differs from routes.golden:"; diff <(echo "$OUT") "$SBX_TEST_DIR/routes.golden" >&2; fi

# route_of ARGS...: runs `true` with ARGS and prints route backend tier lane.
route_of() {
  run_sbx run --audit "$LOG" "$@" -- true
  [[ $RC == 0 ]] || { fail "run $*: exit $RC: $ERR"; return; }
  audit_field "$LOG" "' '.join(str(x) for x in (r['route'], r['backend'], r['tier'], r['lane']))"
}
want() { # DESCRIPTION WANT ARGS...
  local what=$1 expect=$2 got
  shift 2
  got=$(route_of "$@")
  [[ $got == "$expect" ]] && pass "$what: $got" || fail "$what: got '$got', want '$expect'"
}
want "no label: the default route" "default local seccomp interactive"
want "a label no route names: the default route" "default local seccomp interactive" --label reviewed
want "--label untrusted" "untrusted local tee background" --label untrusted
want "the first matching route wins" "untrusted local tee background" --label subagent --label untrusted
want "--label subagent" "subagent local seccomp subagent" --label subagent
want "profile permissive" "automation local seccomp background" --profile permissive
want "hardened keeps its own tier on the default route" "default local wasm interactive" --profile hardened
want "--tier overrides the route's tier" "untrusted local seccomp background" --label untrusted --tier seccomp
want "--lane overrides the route's lane" "untrusted local tee interactive" --label untrusted --lane interactive

# A user's policy (--policy): its routes are used with its profiles; the
# seed routes come with `include <profiles.pol>;`, its own follow them.
POL="$T/pol"
mkdir -m 0700 "$POL"
cat >"$POL/mine.pol" <<'POLICY'
include <profiles.pol>;
route mine { kind = command; labels = ["mine"]; backend = local; tier = wasm; lane = subagent; }
POLICY
chmod 0644 "$POL/mine.pol"
want "--policy: the policy's own route" "mine local wasm subagent" --policy "$POL/mine.pol" --label mine
want "--policy: the seed routes it includes" "untrusted local tee background" --policy "$POL/mine.pol" --label untrusted
# A route naming a lane the model lacks: pnetc would refuse it; sbx does too.
cat >"$POL/batch.pol" <<'POLICY'
include <profiles.pol>;
route batch { kind = command; labels = ["batch"]; backend = local; tier = seccomp; lane = batch; }
POLICY
chmod 0644 "$POL/batch.pol"
rm -f "$WS/marker"
run_sbx run --policy "$POL/batch.pol" --profile standard -- touch "$WS/marker"
expect_rc 125 "--policy with a route to an unknown lane"
expect_err "batch.pol:2:1: route 'batch' names lane 'batch', which model 'default' does not have" \
  "the message names the route and the lane"
[[ ! -e $WS/marker ]] && pass "nothing ran" || fail "a command ran under a refused policy"
# A route to a backend this sbx does not have: refused, nothing runs.
cat >"$POL/remote.pol" <<'POLICY'
include <profiles.pol>;
route remote { kind = command; labels = ["remote"]; backend = ssh; tier = seccomp; lane = background; }
POLICY
chmod 0644 "$POL/remote.pol"
run_sbx run --audit "$LOG" --policy "$POL/remote.pol" --profile standard --label remote -- touch "$WS/marker"
expect_rc 125 "a route to the ssh backend"
expect_err "route 'remote' sends this run to backend 'ssh', which this sbx does not have" "the message names route and backend"
[[ ! -e $WS/marker ]] && pass "nothing ran on a missing backend" || fail "a command ran instead of on ssh"
[[ $(audit_field "$LOG" "(r['route'], r['backend'], r['result']['error'])") == "('remote', 'ssh', 'backend not available')" ]] &&
  pass "record: route remote, backend ssh, refused" || fail "record: $(tail -1 "$LOG")"
# Negative control: the same policy without the label runs locally.
want "--policy: no label, the default route" "default local seccomp interactive" --policy "$POL/remote.pol" --profile standard

run_sbx run --label "" -- true
expect_rc 125 "an empty label"
run_sbx run --routes -- true
expect_rc 125 "--routes belongs to explain"
finish
