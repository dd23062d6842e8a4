#!/usr/bin/env bash
# sbx's own code on every path that ends before a sandbox starts: profile
# and option errors, audit log refusals, admission refusals, check and
# explain. The other integration tests run sandboxes, whose not-yet-exec'd
# children are instrumented code under the profile's RLIMIT_AS, which
# AddressSanitizer cannot live with; this one runs under the sanitizers
# too, so leaks and undefined behaviour in the front end are caught there.
source "$SBX_TEST_DIR/lib.sh"
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"

run_sbx run --profile no-such --audit "$T/a.jsonl" -- touch "$WS/marker"
expect_rc 125 "unknown profile"
run_sbx run --timeout 99999999 -- touch "$WS/marker"
expect_rc 125 "--timeout above the limit"
run_sbx run --audit "$T" -- touch "$WS/marker"
expect_rc 125 "audit log is a directory"
run_sbx run --workspace "$T/none" --audit "$T/a.jsonl" -- touch "$WS/marker"
expect_rc 125 "missing workspace"
run_sbx run --tier no-such --audit "$T/a.jsonl" -- touch "$WS/marker"
expect_rc 125 "unknown tier"
expect_err "tiers of model" "tiers listed"

tier=$("$SBX" explain --profile strict | awk '/^Default tier:/ {print $3; exit}')
cap=$("$SBX_SLOTS" capacity "$tier")
hold=()
for i in $(seq "$cap"); do "$SBX_SLOTS" hold "$STATE" "$tier" >/dev/null & hold+=($!); done
for _ in $(seq 100); do [[ $("$SBX_SLOTS" check "$STATE") == *holders=$cap* ]] && break; sleep 0.05; done
run_sbx run --no-wait --audit "$T/a.jsonl" -- touch "$WS/marker"
expect_rc 125 "--no-wait refused"
expect_err "admission refused" "refusal explained"
kill -KILL "${hold[@]}"; wait 2>/dev/null
[[ ! -e $WS/marker ]] && pass "nothing ran" || fail "a command ran"
python3 - "$T/a.jsonl" <<'PY' && pass "every refusal recorded as not-run" || fail "refusal records"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len(rs) == 4, len(rs)
assert all(r["result"]["outcome"] == "not-run" and r["result"]["sbx_exit"] == 125 for r in rs)
assert rs[-1]["denials"][0]["layer"] == "admission", rs[-1]["denials"]
PY

for p in $("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}'); do
  run_sbx explain --profile "$p" --bpf
  expect_rc 0 "explain $p --bpf"
done
run_sbx check
expect_rc 0 "check"
run_sbx check --json
expect_rc 0 "check --json"
python3 -c 'import json, sys; json.loads(sys.argv[1])' "$OUT" && pass "check --json parses" || fail "check --json: $OUT"
finish
