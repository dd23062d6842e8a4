#!/usr/bin/env bash
# --timeout can only lower the profile's maxExecutionTime.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG="$T/audit.jsonl"

max_s=$("$SBX" explain --profile strict | awk '/wall-clock time/ {print $3; exit}')
[[ -n $max_s ]] || { fail "explain shows no wall-clock limit"; finish; }
max_ms=$(python3 -c "print(round(float('$max_s') * 1000))")

over=$(python3 -c "print('%.3f' % (($max_ms + 1) / 1000))")
run_sbx run --profile strict --timeout "$over" --audit "$LOG" -- touch "$WS/marker"
expect_rc 125 "--timeout above the profile's limit ($over s > $max_s s)"
expect_err "exceeds profile 'strict' maxExecutionTime" "message names the limit"
[[ ! -e $WS/marker ]] || fail "the command ran despite the refused --timeout"
[[ $(audit_field "$LOG" 'r["result"]["outcome"]') == not-run ]] && pass "refusal recorded" || fail "refusal not recorded"

run_sbx run --profile strict --timeout "$max_s" --audit "$LOG" -- true
expect_rc 0 "--timeout equal to the limit"
[[ $(audit_field "$LOG" 'r["limits"]["timeout_ms"]') == "$max_ms" ]] || fail "timeout_ms not $max_ms"

start=$(date +%s%N)
run_sbx run --profile strict --timeout 0.4 --audit "$LOG" -- sleep 20
end=$(date +%s%N)
expect_rc 124 "lowered --timeout 0.4 kills sleep 20"
elapsed=$(((end - start) / 1000000))
((elapsed < 10000)) && pass "killed after ${elapsed} ms" || fail "took ${elapsed} ms"
[[ $(audit_field "$LOG" 'r["limits"]["timeout_ms"]') == 400 ]] && pass "record has timeout_ms 400" || fail "timeout_ms not 400"
[[ $(audit_field "$LOG" 'r["result"]["outcome"]') == timed-out ]] && pass "outcome timed-out" || fail "outcome not timed-out"

run_sbx run --timeout 0 -- true
expect_rc 125 "--timeout 0"
run_sbx run --timeout -1 -- true
expect_rc 125 "--timeout -1"
finish
