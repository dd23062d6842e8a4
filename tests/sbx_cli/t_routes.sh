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

run_sbx run --label "" -- true
expect_rc 125 "an empty label"
run_sbx run --routes -- true
expect_rc 125 "--routes belongs to explain"
finish
