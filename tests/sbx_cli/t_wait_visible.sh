#!/usr/bin/env bash
# Admission you can see (issue 13): with every slot of the tier taken, a
# waiting run says once on stderr what it waits for (tier, slots in use,
# runs ahead); --wait-timeout bounds the wait (125, naming tier and
# slots, nothing runs); the record has the wait. Negative controls: with a
# slot free the same runs say nothing and exit 0.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"
LOG="$T/audit.log"
tier=$("$SBX" explain --profile strict | awk '/^Default tier:/ {print $3; exit}')
cap=$("$SBX_SLOTS" capacity "$tier") || { fail "no capacity for tier $tier"; finish; }
((cap >= 1 && cap <= 64)) || skip "tier $tier admits $cap at once; this test needs 1..64"
holders() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*holders=\([0-9]*\).*/\1/p'; }
waiters() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*waiters=\([0-9]*\).*/\1/p'; }
wait_for() { for _ in $(seq 200); do [[ $($1) == "$2" ]] && return 0; sleep 0.05; done; return 1; }

# A free slot: silent, exit 0, nothing noticed in the record.
run_sbx run --audit "$LOG" --wait-timeout 1 -- true
expect_rc 0 "--wait-timeout 1 with a slot free"
[[ -z $ERR ]] && pass "no word on stderr when a slot is free" || fail "stderr: $ERR"
[[ $(audit_field "$LOG" "(r['admission']['wait_timeout_ms'], r['admission']['wait_noticed'], r['admission']['timed_out'])") == "(1000, False, False)" ]] &&
  pass "record: the bound, no notice, no timeout" || fail "record: $(tail -1 "$LOG")"

# Every slot taken by holders that sleep until killed.
hold=()
for _ in $(seq "$cap"); do "$SBX_SLOTS" hold "$STATE" "$tier" >/dev/null & hold+=($!); done
wait_for holders "$cap" && pass "$cap slots held" || fail "holders $(holders), want $cap"

rm -f "$WS/marker"
# standard: a command that ran would leave the marker.
run_sbx run --audit "$LOG" --profile standard --tier "$tier" --wait-timeout 1.5 -- touch "$WS/marker"
expect_rc 125 "--wait-timeout with every slot held"
expect_err "^sbx: waiting for admission: lane interactive, tier $tier: waits for a slot of tier $tier \($cap of $cap in use\), 0 earlier runs waiting" \
  "the wait is announced with lane, tier, what it waits for, slots and runs ahead"
[[ $(grep -c "waiting for admission" <<<"$ERR") == 1 ]] && pass "announced once" || fail "announced $(grep -c "waiting for admission" <<<"$ERR") times"
expect_err "lane interactive, tier $tier: not admitted within --wait-timeout \(1\.500 s\): waits for a slot of tier $tier \($cap of $cap in use\).*nothing ran" \
  "the timeout names the lane, the tier and the slots"
[[ ! -e $WS/marker ]] && pass "nothing ran" || fail "the command ran without a slot"
[[ $(audit_field "$LOG" "(r['admission']['admitted'], r['admission']['wait_noticed'], r['admission']['timed_out'], r['admission']['wait_ms'] >= 1000, r['denials'][0]['action'])") == "(False, True, True, True, 'timed out')" ]] &&
  pass "record: the wait, the notice, the timeout" || fail "record: $(tail -1 "$LOG")"

# A run ahead of another: the second one counts it.
"$SBX" run --tier "$tier" -- true >/dev/null 2>"$T/first.err" &
first=$!
wait_for waiters 1 || fail "the first waiter did not queue"
run_sbx run --tier "$tier" --wait-timeout 1.2 -- true
expect_rc 125 "second waiter times out"
expect_err "waiting for admission: lane interactive, tier $tier: waits for a slot of tier $tier \($cap of $cap in use\), 1 earlier run waiting" \
  "the second waiter counts the run ahead of it"

# A slot comes free: the first waiter, which announced its wait, runs.
kill -KILL "${hold[0]}"; wait "${hold[0]}" 2>/dev/null
wait "$first"; rc=$?
((rc == 0)) && pass "the waiting run ran once a slot came free" || fail "first waiter: exit $rc"
grep -q "waiting for admission: lane interactive, tier $tier" "$T/first.err" && pass "it had announced its wait" ||
  fail "first waiter said nothing: $(cat "$T/first.err")"

kill -KILL "${hold[@]}" 2>/dev/null; wait 2>/dev/null
out=$(slots_free_soon "$STATE") || fail "slots still taken: $out"
# The negative control: the same bounded run with the slots free.
run_sbx run --tier "$tier" --wait-timeout 1 -- true
expect_rc 0 "--wait-timeout 1 once the slots are free"
[[ -z $ERR ]] && pass "silent once the slots are free" || fail "stderr: $ERR"

run_sbx run --no-wait --wait-timeout 1 -- true
expect_rc 125 "--no-wait with --wait-timeout contradicts"
for bad in 0 -1 abc 1.2345; do
  run_sbx run --wait-timeout "$bad" -- true
  expect_rc 125 "--wait-timeout '$bad' refused"
done
finish
