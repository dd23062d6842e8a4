#!/usr/bin/env bash
# SIGTERM/SIGHUP to sbx during a run: the sandbox is killed, the ticket
# completed, the run recorded as interrupted, exit 128+N. While waiting for
# admission the signal just ends sbx, and its queue place is dropped.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG="$T/audit.jsonl"
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"

for sig in TERM HUP; do
  "$SBX" run --audit "$LOG" -- sleep 31.5 >/dev/null 2>"$T/err" &
  pid=$!
  for _ in $(seq 100); do proc_running "sleep 31\.5" && break; sleep 0.05; done
  proc_running "sleep 31\.5" || fail "SIG$sig: the sandboxed sleep never appeared"
  kill -"$sig" "$pid"
  wait "$pid"; RC=$?
  ERR=$(cat "$T/err")
  num=$(kill -l "$sig")
  expect_rc $((128 + num)) "SIG$sig to sbx"
  expect_err "interrupted by SIG$sig" "SIG$sig reported"
  for _ in $(seq 40); do proc_running "sleep 31\.5" || break; sleep 0.05; done
  proc_running "sleep 31\.5" && fail "SIG$sig: the sandbox outlived sbx" || pass "SIG$sig: the sandbox is gone"
  [[ $(audit_field "$LOG" 'r["result"]["outcome"], r["result"]["signal_name"]') == "('interrupted', 'SIG$sig')" ]] &&
    pass "SIG$sig: recorded as interrupted" || fail "SIG$sig: record: $(tail -1 "$LOG")"
  out=$("$SBX_SLOTS" check "$STATE") && [[ $out == *reclaimed_now=0* ]] &&
    pass "SIG$sig: slot given back by sbx itself: $out" || fail "SIG$sig: slot not given back: $out"
done

# While waiting: fill strict's tier, queue one run, SIGTERM it.
tier=$("$SBX" explain --profile strict | awk '/^Default tier:/ {print $3; exit}')
cap=$("$SBX_SLOTS" capacity "$tier")
hold=()
for i in $(seq "$cap"); do "$SBX_SLOTS" hold "$STATE" "$tier" >/dev/null & hold+=($!); done
for _ in $(seq 100); do [[ $("$SBX_SLOTS" check "$STATE") == *holders=$cap* ]] && break; sleep 0.05; done
"$SBX" run --audit "$LOG" -- touch "$WS/marker" 2>/dev/null &
w=$!
for _ in $(seq 100); do [[ $("$SBX_SLOTS" check "$STATE") == *waiters=1* ]] && break; sleep 0.05; done
kill -TERM "$w"; wait "$w"; RC=$?
expect_rc 143 "SIGTERM while waiting for admission"
kill -KILL "${hold[@]}"; wait 2>/dev/null
out=$("$SBX_SLOTS" check "$STATE") && pass "no holder or waiter left: $out" || fail "left behind: $out"
[[ ! -e $WS/marker ]] && pass "the waiting command never ran" || fail "the waiting command ran"
finish
