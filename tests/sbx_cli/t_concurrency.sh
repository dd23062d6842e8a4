#!/usr/bin/env bash
# 50 concurrent runs on one tier, random SIGKILLs of sbx processes: never
# more sandboxes at once than the tier's slots (counted independently, from
# /proc), and afterwards every slot is free.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"
RUNS=50

# The v8 tier (10 slots in models/default.pnet) when the model has it,
# else strict's default tier.
tier=v8
"$SBX_SLOTS" capacity v8 >/dev/null 2>&1 ||
  tier=$("$SBX" explain --profile strict | awk '/^Default tier:/ {print $3; exit}')
cap=$("$SBX_SLOTS" capacity "$tier") || { fail "no capacity for tier $tier"; finish; }
((cap >= 1 && cap < RUNS)) || skip "tier $tier admits $cap at once; need fewer than $RUNS"
echo "tier $tier: $cap slots, $RUNS runs"

# Each sleep lasts a second or more: two readings of the process table
# (procs_matching_at_once) must both fall within it, and on a loaded
# machine (a sanitizer build beside other builds) a reading takes a large
# part of a second; with shorter runs the count saw none overlap and the
# test proved nothing.
# Each sleep carries this test's own tag as a second, tiny duration
# (sleep adds its arguments): the count sees only this test's sandboxes,
# never another test's or another checkout's on the same machine.
tag=$(printf '0.00000%06d' $$)
# Monitor: the most sandboxed sleeps alive at one time (at one instant:
# lib.sh procs_matching_at_once).
( max=0
  while [[ ! -e $T/stop ]]; do
    n=$(procs_matching_at_once "sleep 1\.[0-9][0-9] ${tag//./\\.}" | wc -l)
    ((n > max)) && max=$n && echo "$max" >"$T/max"
    sleep 0.01
  done ) &
mon=$!

pids=()
for i in $(seq $RUNS); do
  "$SBX" run --tier "$tier" -- sleep "1.$(printf %02d $((i % 100)))" "$tag" >/dev/null 2>&1 &
  pids+=($!)
done
killed=0
for _ in $(seq 15); do
  sleep "0.0$((RANDOM % 9 + 1))"
  v=${pids[$((RANDOM % RUNS))]}
  kill -KILL "$v" 2>/dev/null && killed=$((killed + 1))
done
ok=0
for p in "${pids[@]}"; do wait "$p" && ok=$((ok + 1)); done
touch "$T/stop"
wait "$mon"
max=$(cat "$T/max" 2>/dev/null || echo 0)
echo "$ok runs exited 0, $killed sbx SIGKILLed, at most $max sandboxes at once"
((max <= cap)) && pass "at most $cap at once ($max)" || fail "$max sandboxes ran at once, tier has $cap slots"
((max >= 2)) || fail "runs never overlapped ($max): the test proved nothing"
((ok >= RUNS - killed)) && pass "every run not killed succeeded" || fail "only $ok of $((RUNS - killed)) succeeded"
out=$(slots_free_soon "$STATE") && pass "every slot free: $out" || fail "slots leaked: $out"
run_sbx run --tier "$tier" --no-wait -- true
expect_rc 0 "a new run is admitted at once"
finish
