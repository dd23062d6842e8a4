#!/usr/bin/env bash
# The static front end (docs/sbx.md, "Front end"): `sbx` is a static musl
# binary that starts warm runs itself and hands everything else to the full
# sbx (sbx-core beside it). Checks that it is static, that it really runs a
# warm start alone, that every case it must not handle reaches sbx-core
# with the same result, that a declined run goes cold without leaking its
# admission slot, and that the musl front end and glibc programs share the
# admission file (one lock, one FIFO).
source "$SBX_TEST_DIR/lib.sh"
source "$SBX_SRC/tests/warm/serve.sh"
core="$(dirname "$SBX")/sbx-core"
[[ -x $core ]] || skip "no static front end in this build ($SBX is the full sbx: musl-gcc missing, a sanitizer build, or -DCS_SBX_FRONT=OFF)"
require_sandbox
state="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"

if LC_ALL=C readelf -l "$SBX" | grep -q "Requesting program interpreter"; then
  fail "$SBX has a program interpreter: not static"
else
  pass "the front end is a static executable"
fi

# Other commands: exactly what sbx-core says.
run_sbx --version
version=$("$core" --version)
[[ $RC == 0 && $OUT == "$version" ]] && pass "--version handed to sbx-core" ||
  fail "--version: exit $RC, '$OUT', want '$version'"
run_sbx run --profile nosuch -- true
expect_rc 125 "unknown profile handed to sbx-core"
expect_err "unknown profile|known profiles" "sbx-core's message for an unknown profile"

warm_start || exit 1
trap 'warm_stop; rm -rf "$T"' EXIT

# A warm run by the front end alone: a copy with no sbx-core beside it.
mkdir "$T/alone"
cp "$SBX" "$T/alone/sbx"
installed=$(strings "$SBX" | grep -m1 '/libexec/commander-sandbox/sbx-core$' || true)
if [[ -n $installed && -e $installed ]]; then
  echo "note: $installed exists; the front end alone cannot be shown here" >&2
else
  "$T/alone/sbx" run -v --profile strict -- true >"$T/out" 2>"$T/err"
  RC=$?; ERR=$(cat "$T/err")
  expect_rc 0 "the front end alone runs strict warm"
  expect_err "start-up: warm" "without sbx-core the run was warm"
  "$T/alone/sbx" --version >"$T/out" 2>"$T/err"
  RC=$?; ERR=$(cat "$T/err")
  expect_rc 125 "without sbx-core, another command fails closed"
  expect_err "cannot run the full sbx" "and says why"
fi

# An audit log: sbx-core runs it (warm through its own client) and records it.
run_sbx run -v --audit "$T/audit.jsonl" --profile strict -- true
expect_rc 0 "run with an audit log"
if [[ $(audit_field "$T/audit.jsonl" 'r.get("start")') == warm ]]; then
  pass "the audit record was written by sbx-core, warm"
else
  fail "audit record: $(tail -1 "$T/audit.jsonl")"
fi

# An approval rule matches: the same refusal as sbx-core's.
run_sbx run --profile strict -- rm -rf "$WS/x"
got="$RC:$ERR"
"$core" run --profile strict -- rm -rf "$WS/x" >/dev/null 2>"$T/err2"
want="$?:$(cat "$T/err2")"
[[ $got == "$want" ]] && pass "approval rule: same answer as sbx-core ($RC)" ||
  fail "approval rule: front '$got', sbx-core '$want'"

# Declined by the server (a full-root view is never served warm): cold in
# sbx-core, with the server's reason, and the slot the front end took is free.
run_sbx run -v --profile permissive -- true
expect_rc 0 "permissive through the front end"
expect_err "start-up: cold \(.+\)" "declined run went cold with a reason"
"$SBX_SLOTS" check "$state" >"$T/slots" 2>&1 && pass "no slot left taken after the hand-over" ||
  fail "admission state after the declined run: $(cat "$T/slots")"
SBX_WARM_DECLINED="asked by the test" run_sbx run -v --profile strict -- true
expect_err "start-up: cold \(asked by the test\)" "SBX_WARM_DECLINED: cold, never asks the server"

# One admission file for musl and glibc: a slot held by sbx_slots (glibc)
# refuses the front end's --no-wait run; once the holder is killed the
# front end reclaims it.
tier=tee
cap=$("$SBX_SLOTS" capacity "$tier")
holders=()
for _ in $(seq "$cap"); do
  "$SBX_SLOTS" hold "$state" "$tier" & holders+=($!)
done
for _ in $(seq 100); do
  "$SBX_SLOTS" check "$state" 2>/dev/null | grep -q "holders=$cap " && break
  sleep 0.05
done
run_sbx run --no-wait --tier "$tier" --profile strict -- true
expect_rc 125 "every $tier slot held by a glibc process: the front end is refused"
kill -KILL "${holders[@]}"; wait "${holders[@]}" 2>/dev/null
run_sbx run --no-wait --tier "$tier" --profile strict -- true
expect_rc 0 "the dead holders' slots reclaimed by the front end"

# Installed under another prefix than the configured one: the front end
# finds its sbx-core by its own place (bin/ -> libexec/commander-sandbox/).
if [[ -n ${SBX_BUILD_DIR:-} ]] && cmake --install "$SBX_BUILD_DIR" --prefix "$T/prefix" >"$T/install.log" 2>&1; then
  [[ -x $T/prefix/bin/sbx && -x $T/prefix/libexec/commander-sandbox/sbx-core ]] &&
    pass "installed: bin/sbx and libexec/commander-sandbox/sbx-core" ||
    fail "install layout: $(find "$T/prefix" -name 'sbx*')"
  run_sbx_installed() { "$T/prefix/bin/sbx" "$@" >"$T/out" 2>"$T/err"; RC=$?; OUT=$(cat "$T/out"); ERR=$(cat "$T/err"); }
  run_sbx_installed --version
  [[ $RC == 0 && $OUT == "$version" ]] && pass "installed front end reaches its sbx-core" ||
    fail "installed --version: exit $RC: $OUT $ERR"
  run_sbx_installed run --cold --profile strict -- true
  expect_rc 0 "installed: a cold run through sbx-core"
else
  fail "cmake --install into $T/prefix: $(tail -3 "$T/install.log" 2>/dev/null)"
fi

# Many runs at once through both executables on the one-slot tier: all
# finish, and nothing is left taken.
pids=()
for i in $(seq 6); do
  "$SBX" run --tier "$tier" --profile strict -- true >/dev/null 2>"$T/f$i" & pids+=($!)
  "$core" run --cold --tier "$tier" --profile strict -- true >/dev/null 2>"$T/c$i" & pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
((bad == 0)) && pass "12 concurrent runs (musl and glibc) on a one-slot tier all succeeded" ||
  fail "$bad of 12 concurrent runs failed: $(cat "$T"/f* "$T"/c*)"
"$SBX_SLOTS" check "$state" >"$T/slots" 2>&1 && pass "admission state free afterwards" ||
  fail "admission state after the concurrent runs: $(cat "$T/slots")"
finish
