#!/usr/bin/env bash
# `sbx eval` as a user runs it: results on stdout, the code's errors, the
# exit codes (0, 1, 124, 125, 128+N), the time and memory limits, the
# audit record, admission through the tee tier's one slot, and a worker
# that does not outlive a killed sbx. Each check has its control.
set -u
: "${SBX:?run through ctest}" "${SBX_SLOTS:?}"
T=$(mktemp -d /tmp/sbx-eval-test.XXXXXX)
export SBX_STATE_DIR="$T/state"
mkdir -m 0700 "$SBX_STATE_DIR"
unset SBX_AUDIT_LOG
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
run() { "$SBX" eval "$@" >"$T/out" 2>"$T/err"; RC=$?; OUT=$(cat "$T/out"); ERR=$(cat "$T/err"); }
expect() { # RC OUT DESCRIPTION
  if [[ $RC == "$1" && $OUT == "$2" ]]; then pass "$3"; else
    fail "$3: exit $RC (want $1), out '$OUT' (want '$2'), err: $ERR"; fi
}
field() { python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print(eval(sys.argv[2]))' "$T/audit" "$1"; }

# Real evaluations, and the control that the result follows the input.
run --input '{"a":41}' 'function (x) { return x.a + 1; }'
expect 0 42 "a function of the input"
run --input '{"a":1}' 'function (x) { return x.a + 1; }'
expect 0 2 "control: another input, another result"
printf '%s' 'function (x) { return x.map(function (n) { return n * n; }); }' >"$T/code.js"
printf '[1,2,3]' >"$T/in.json"
run --code-file "$T/code.js" --input-file "$T/in.json"
expect 0 '[1,4,9]' "--code-file and --input-file"

# The code's error is exit 1; a syntax error too.
run 'function () { throw new RangeError("too big"); }'
expect 1 "" "a throw is exit 1"
grep -q 'RangeError: too big' <<<"$ERR" && pass "the error is named" || fail "error text: $ERR"
run 'function ( {'
expect 1 "" "a syntax error is exit 1"

# Input that is not JSON is parsed, and refused, in the worker.
run --input '{bad' 'function (x) { return x; }'
expect 1 "" "input that is not JSON is the evaluation's error"
grep -q 'SyntaxError' <<<"$ERR" && pass "a SyntaxError" || fail "bad input: $ERR"

# No clock, no randomness; control: Math is there.
run 'function () { return [typeof Date, typeof Math.random, typeof performance, typeof Math.max]; }'
expect 0 '["undefined","undefined","undefined","function"]' "no Date, Math.random or performance"

# The time limit kills (124); control: a loop that ends.
start=$SECONDS
run --timeout 0.5 'function () { for (;;) {} }'
expect 124 "" "an endless loop is killed at --timeout"
((SECONDS - start < 10)) && pass "and soon" || fail "the loop took $((SECONDS - start)) s"
run --timeout 5 'function () { var s = 0; for (var i = 0; i < 1e5; i++) s += i; return s; }'
expect 0 4999950000 "control: a loop that ends"

# The memory limit is the arena; control: what fits.
run --memory 16 'function () { var s = "x"; for (;;) s = s + s; }'
expect 1 "" "a memory bomb fails within --memory"
grep -q 'alloc failed' <<<"$ERR" && pass "as an allocation failure" || fail "bomb: $ERR"
run --memory 16 'function () { var s = "x"; while (s.length < 1048576) s = s + s; return s.length; }'
expect 0 1048576 "control: 1 MiB in 16 MiB"

# Usage errors are 125, before anything runs.
for args in "" "--timeout 61 function(){}" "--memory 0 function(){}" "a b" \
            "--code-file $T/code.js function(){}" "--input= function(){}" \
            "--code-file $T/none.js"; do
  # shellcheck disable=SC2086
  run $args
  [[ $RC == 125 ]] && pass "refused: '$args'" || fail "'$args': exit $RC, want 125"
done

# The audit record: the tier, the code, the limits, the outcome.
run --audit "$T/audit" --input '{"a":1}' 'function (x) { return x.a; }'
expect 0 1 "an audited evaluation"
[[ $(field 'r["tier"], r["admission"]["admitted"], r["eval"]["status"], r["argv"][0], r["result"]["outcome"]') == \
   "('tee', True, 'ok', 'eval', 'exited')" ]] && pass "its record" || fail "record: $(tail -1 "$T/audit")"
[[ $(field 'r["eval"]["heap_bytes"], r["eval"]["input_bytes"], r["argv"][1]') == \
   "(67108864, 7, 'function (x) { return x.a; }')" ]] && pass "its limits and code" || fail "record: $(tail -1 "$T/audit")"
run --audit "$T/audit" --timeout 0.3 'function () { for (;;) {} }'
[[ $(field 'r["result"]["outcome"], r["eval"]["status"], r["result"]["sbx_exit"]') == "('timed-out', 'timeout', 124)" ]] &&
  pass "a timeout's record" || fail "timeout record: $(tail -1 "$T/audit")"

# Admission: the tee tier's slot held elsewhere refuses --no-wait.
cap=$("$SBX_SLOTS" capacity tee)
[[ $cap == 1 ]] || fail "tee admits $cap at once, the model says 1"
STATE="$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"
run 'function () { return 0; }' # creates the state file
"$SBX_SLOTS" hold "$STATE" tee &
holder=$!
for _ in $(seq 100); do "$SBX_SLOTS" check "$STATE" >/dev/null || break; sleep 0.05; done
run --audit "$T/audit" --no-wait 'function () { return 0; }'
expect 125 "" "--no-wait with the tee slot taken"
[[ $(field 'r["admission"]["admitted"], r["denials"][0]["layer"], r["denials"][0]["what"]') == "(False, 'admission', 'tee')" ]] &&
  pass "its record names the admission" || fail "refused record: $(tail -1 "$T/audit")"
kill -9 "$holder"
wait "$holder" 2>/dev/null
run --no-wait 'function () { return 0; }'
expect 0 0 "control: the slot free again"

# A killed sbx takes its worker with it, even one in an endless loop.
"$SBX" eval --timeout 30 'function () { for (;;) {} }' >/dev/null 2>&1 &
sbx_pid=$!
worker=""
for _ in $(seq 100); do
  worker=$(for f in /proc/[0-9]*/stat; do
    read -r pid comm _ ppid _ <"$f" 2>/dev/null || continue
    [[ $comm == "(sbx-tee-worker)" ]] && (( ppid == sbx_pid )) && echo "$pid"
  done 2>/dev/null | head -1)
  [[ -n $worker ]] && break
  sleep 0.05
done
if [[ -z $worker ]]; then fail "no worker of sbx $sbx_pid found"; else
  pass "control: the worker runs (pid $worker)"
  kill -9 "$sbx_pid"
  wait "$sbx_pid" 2>/dev/null
  for _ in $(seq 100); do [[ -e /proc/$worker ]] || break; sleep 0.05; done
  [[ -e /proc/$worker ]] && fail "worker $worker outlived sbx" || pass "the worker died with sbx"
fi

if ((FAILS)); then echo "$FAILS check(s) failed" >&2; exit 1; fi
exit 0
