#!/usr/bin/env bash
# Requests sbx run never sends, sent to the server directly (tests/warm/
# client.py): each is refused with its reason and the server stays up.
# (1) a profile with approvals at the system-call layer (standard): its
# notify listener lives in a cold run's sbx run process, a spare has none;
# (2) a flag bit sbx run does not set.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T"' EXIT
warm_start || exit 1
client="$SBX_SRC/tests/warm/client.py"

out=$(python3 "$client" "$WARM_SOCK" standard "$WS")
[[ $out == *"approvals at the system-call layer"* ]] && pass "standard refused ($out)" ||
  fail "a request for standard: $out"
out=$(python3 "$client" "$WARM_SOCK" strict "$WS" 0x20)
[[ $out == *"unknown request flags 0x20"* ]] && pass "unknown flag refused ($out)" ||
  fail "a request with flag 0x20: $out"
kill -0 "$WARM_PID" 2>/dev/null && pass "the server is still up" || fail "the server died"
run_sbx run --profile strict -- true
expect_rc 0 "a normal run afterwards"
[[ $(warm_count "started warm") == 1 ]] && pass "only the normal run started warm" ||
  fail "server log: $(cat "$T/serve.log")"
finish
