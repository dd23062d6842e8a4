#!/usr/bin/env bash
# Admission through the shared compiled scheduler: with every slot of a
# tier taken, --no-wait fails at once (125, naming model and marking);
# waiting runs are admitted in FIFO order; a SIGKILLed sbx gives its slot
# back.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"

tier=$("$SBX" explain --profile strict | awk '/^Default tier:/ {print $3; exit}')
cap=$("$SBX_SLOTS" capacity "$tier") || { fail "no capacity for tier $tier"; finish; }
((cap >= 1 && cap <= 64)) || skip "tier $tier admits $cap at once; this test needs 1..64"
echo "tier $tier: $cap slots"

holders() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*holders=\([0-9]*\).*/\1/p'; }
waiters() { "$SBX_SLOTS" check "$STATE" | sed -n 's/.*waiters=\([0-9]*\).*/\1/p'; }
wait_for() { # CMD WANT
  for _ in $(seq 200); do [[ $($1) == "$2" ]] && return 0; sleep 0.05; done
  return 1
}
running() { proc_running "sleep ${1//./\\.}"; }

pids=()
for i in $(seq "$cap"); do
  "$SBX" run --tier "$tier" -- sleep "40.$(printf %03d "$i")" >/dev/null 2>&1 &
  pids+=($!)
done
wait_for holders "$cap" && pass "$cap runs admitted" || fail "holders $(holders), want $cap"

run_sbx run --tier "$tier" --no-wait -- true
expect_rc 125 "--no-wait with every slot taken"
expect_err "admission refused \(--no-wait\): model '[^']+' \(.*\), transition admit_interactive_$tier, state [0-9]+ \[.*=" \
  "message names model, admission and marking"
expect_err "(disabled: too few tokens in ${tier}_slots \\(0, needs 1\\)|refuses it: firing it would leave the safe set)" \
  "message says why, from the table"

# FIFO: three waiters, queued one after the other.
wpids=()
for i in 1 2 3; do
  "$SBX" run --tier "$tier" -- sleep "50.00$i" >/dev/null 2>&1 &
  wpids+=($!)
  wait_for waiters "$i" || fail "waiter $i not queued"
done
run_sbx run --tier "$tier" --no-wait -- true
expect_rc 125 "--no-wait does not overtake queued waiters"
for i in 1 2 3; do
  kill -KILL "${pids[$((i - 1))]}"  # a holder dies hard: its slot must come back
  wait "${pids[$((i - 1))]}" 2>/dev/null
  for _ in $(seq 100); do running "50.00$i" && break; sleep 0.05; done
  running "50.00$i" && pass "waiter $i admitted after holder $i was SIGKILLed" || fail "waiter $i not admitted"
  for j in $(seq $((i + 1)) 3); do
    running "50.00$j" && fail "waiter $j overtook waiter $i"
  done
  # Its sandbox got SIGKILL when sbx died (parent-death signal of its
  # init); on a loaded machine dying may take a moment, surviving may not.
  for _ in $(seq 40); do running "40.00$i" || break; sleep 0.05; done
  running "40.00$i" && fail "the sandbox of the SIGKILLed sbx $i survived it"
done

kill -KILL "${pids[@]}" "${wpids[@]}" 2>/dev/null
wait 2>/dev/null
out=$(slots_free_soon "$STATE") && pass "every slot free after the kills: $out" || fail "slots still taken: $out"
run_sbx run --tier "$tier" --no-wait -- true
expect_rc 0 "--no-wait admitted again"

# A state directory others could write to is refused (they could replace
# the state and decide our admissions); so is one that cannot be created.
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
SBX_STATE_DIR="$T/open" run_sbx run -- touch "$WS/marker"
expect_rc 125 "world-writable state directory"
expect_err "writable by others" "message says why"
SBX_STATE_DIR="$T/no/such/dir" run_sbx run -- touch "$WS/marker"
expect_rc 125 "state directory cannot be created"
[[ ! -e $WS/marker ]] || fail "a command ran without admission"

# A state file sbx cannot trust (another model, or garbage) is refused,
# never reinitialised under the feet of whoever wrote it.
mkdir -m 0700 "$T/foreign"
head -c 20000 /dev/urandom >"$T/foreign/$(basename "$STATE")"
SBX_STATE_DIR="$T/foreign" run_sbx run -- touch "$WS/marker"
expect_rc 125 "foreign state file"
expect_err "admission: .*$(basename "$STATE")" "message names the state file"
[[ ! -e $WS/marker ]] || fail "a command ran on a foreign admission state"

run_sbx run --tier no-such-tier -- true
expect_rc 125 "unknown tier"
expect_err "has no tier 'no-such-tier'" "message names the tier"
finish
