#!/usr/bin/env bash
# Requests sbx run never sends, sent to the server directly (tests/warm/
# client.py): each is refused with its reason and the server stays up.
# (1) a profile with approvals at the system-call layer (standard): its
# notify listener lives in a cold run's sbx run process, a spare has none;
# (2) a flag bit sbx run does not set; (3) a workspace string of PATH_MAX
# bytes or more that realpath shortens (it crashed the server); (4) a
# workspace string naming another directory than the header's dev/ino, or
# (5) a name that is not the resolved one.
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
fp=$("$SBX_WARM_FP" strict) || fail "no fingerprint of strict"
long="$WS$(printf '/.%.0s' $(seq 2100))"
out=$(python3 "$client" "$WARM_SOCK" strict "$WS" 0 "$fp" "$long")
[[ $out == *"malformed request"* ]] && pass "over-long workspace refused" ||
  fail "over-long workspace: $out"
kill -0 "$WARM_PID" 2>/dev/null && pass "the server survived it" || fail "the server died"
mkdir "$T/other"
out=$(python3 "$client" "$WARM_SOCK" strict "$WS" 0 "$fp" "$T/other")
[[ $out == *"workspace is not the resolved directory"* ]] && pass "other directory refused" ||
  fail "workspace naming another directory: $out"
out=$(python3 "$client" "$WARM_SOCK" strict "$WS" 0 "$fp" "$WS/.")
[[ $out == *"workspace is not the resolved directory"* ]] && pass "unresolved name refused" ||
  fail "workspace $WS/.: $out"
kill -0 "$WARM_PID" 2>/dev/null && pass "the server is still up" || fail "the server died"
run_sbx run --profile strict -- true
expect_rc 0 "a normal run afterwards"
[[ $(warm_count "started warm") == 1 ]] && pass "only the normal run started warm" ||
  fail "server log: $(cat "$T/serve.log")"
finish
