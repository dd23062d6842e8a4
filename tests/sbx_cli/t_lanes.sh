#!/usr/bin/env bash
# Execution lanes (models/default.pnet: interactive 6, background 2,
# subagent 2). A run takes a slot of its lane and a slot of its tier; the
# record names the lane; an unknown lane is refused (125, nothing runs,
# the lanes listed); a waiting run says which one it waits for; waiters of
# one lane are admitted in the order they came. Negative controls: a run
# of another lane with the same tier is admitted while the lane is full,
# and a run waiting for a full tier says "tier", not "lane".
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"
LOG="$T/audit.log"
holders() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*holders=\([0-9]*\).*/\1/p'; }
waiters() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*waiters=\([0-9]*\).*/\1/p'; }
wait_for() { for _ in $(seq 200); do [[ $($1) == "$2" ]] && return 0; sleep 0.05; done; return 1; }
running() { proc_running "sleep ${1//./\\.}"; }

# The default lane, named in the record.
run_sbx run --audit "$LOG" -- true
expect_rc 0 "a run without --lane"
[[ $(audit_field "$LOG" "r['lane']") == interactive ]] && pass "record: lane interactive (the default)" ||
  fail "record: $(tail -1 "$LOG")"
run_sbx run --audit "$LOG" --lane background --tier seccomp -- true
expect_rc 0 "--lane background"
[[ $(audit_field "$LOG" "(r['lane'], r['tier'])") == "('background', 'seccomp')" ]] &&
  pass "record: lane background, tier seccomp" || fail "record: $(tail -1 "$LOG")"

# An unknown lane: refused, nothing ran, the lanes listed, the record says so.
rm -f "$WS/marker"
run_sbx run --audit "$LOG" --profile standard --lane no-such-lane -- touch "$WS/marker"
expect_rc 125 "unknown lane"
expect_err "model 'default' has no lane 'no-such-lane'" "message names the lane"
expect_err "lanes of model 'default': interactive, background, subagent" "the lanes are listed"
[[ ! -e $WS/marker ]] && pass "nothing ran in an unknown lane" || fail "a command ran in an unknown lane"
[[ $(audit_field "$LOG" "(r['lane'], r['admission']['admitted'])") == "('no-such-lane', False)" ]] &&
  pass "record: the lane asked for, not admitted" || fail "record: $(tail -1 "$LOG")"

# The background lane full (2 runs of tier seccomp, which has 4 slots).
hold=()
for _ in 1 2; do "$SBX_SLOTS" hold "$STATE" seccomp background >/dev/null & hold+=($!); done
wait_for holders 2 && pass "background lane held" || fail "holders $(holders), want 2"
run_sbx run --lane background --tier seccomp --wait-timeout 1.5 -- true
expect_rc 125 "a third background run times out"
expect_err "^sbx: waiting for admission: lane background, tier seccomp: waits for a slot of lane background \(2 of 2 in use\), 0 earlier runs waiting" \
  "the waiting run says it waits for a lane slot"
grep -q "slot of tier" <<<"$ERR" && fail "it blamed the tier: $ERR" || pass "it does not blame the tier (2 of 4 free)"
# Negative control: the same tier in another lane is admitted at once.
run_sbx run --lane interactive --tier seccomp --no-wait -- true
expect_rc 0 "interactive seccomp admitted while background is full"

# FIFO within the lane: three background waiters, admitted in order.
wpids=()
for i in 1 2 3; do
  "$SBX" run --lane background --tier seccomp -- sleep "60.00$i" >/dev/null 2>&1 &
  wpids+=($!)
  wait_for waiters "$i" || fail "waiter $i not queued"
done
for i in 1 2; do
  kill -KILL "${hold[$((i - 1))]}"
  wait "${hold[$((i - 1))]}" 2>/dev/null
  for _ in $(seq 100); do running "60.00$i" && break; sleep 0.05; done
  running "60.00$i" && pass "background waiter $i admitted" || fail "background waiter $i not admitted"
  for j in $(seq $((i + 1)) 3); do
    running "60.00$j" && fail "background waiter $j overtook waiter $i"
  done
done
kill -KILL "${wpids[@]}" 2>/dev/null
wait 2>/dev/null
out=$(slots_free_soon "$STATE") || fail "slots still taken: $out"

# A full tier: the waiting run says it waits for the tier, not the lane.
hold=()
"$SBX_SLOTS" hold "$STATE" tee subagent >/dev/null & hold+=($!)
wait_for holders 1 || fail "tee not held"
run_sbx run --lane interactive --tier tee --wait-timeout 1.2 -- true
expect_rc 125 "interactive tee waits for the tee slot"
expect_err "waits for a slot of tier tee \(1 of 1 in use\)" "the waiting run says it waits for a tier slot"
grep -q "slot of lane" <<<"$ERR" && fail "it blamed the lane: $ERR" || pass "it does not blame the lane"
kill -KILL "${hold[@]}" 2>/dev/null; wait 2>/dev/null
out=$(slots_free_soon "$STATE") || fail "slots still taken: $out"
finish
