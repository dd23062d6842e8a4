#!/usr/bin/env bash
# The server stopped (SIGTERM) while a warm run's command is running: the
# server kills the run, and sbx run must report that (exit 125, a message
# naming the warm start, "start": "warm" in the audit record), never
# execute the command a second time on the cold path.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T"' EXIT
warm_start || exit 1
arg=$RANDOM
"$SBX" run -v --profile strict --audit "$T/audit.jsonl" -- /usr/bin/python3 -c \
  "import time; print('ran $arg', flush=True); time.sleep(4)" >"$T/out" 2>"$T/err" &
client=$!
wait_for 60 grep -q "ran $arg" "$T/out" 2>/dev/null
grep -q "ran $arg" "$T/out" && pass "the warm run's command runs" || fail "the command did not run"
warm_stop
wait "$client"
RC=$?
ERR=$(cat "$T/err")
expect_rc 125 "the run killed with the server"
expect_err "warm start: .*not rerun cold" "the message names the warm start"
[[ $(grep -c "ran $arg" "$T/out") == 1 ]] && pass "the command ran once" ||
  fail "the command ran $(grep -c "ran $arg" "$T/out") times"
[[ $(audit_field "$T/audit.jsonl" 'r["start"]') == warm ]] && pass "audit: start warm" ||
  fail "audit record: $(tail -1 "$T/audit.jsonl")"
finish
