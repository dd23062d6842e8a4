#!/usr/bin/env bash
# --diag-fd N (issue 13): sbx's own messages of a run go to descriptor N,
# and the command's stderr carries the command's output alone; the
# descriptor never reaches the command; a descriptor that is not open, or
# not open for writing, is refused before anything runs. Each case has its
# control: the same run without --diag-fd puts the message on stderr.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
D="$T/diag"

# An exec failure: sbx's only message.
"$SBX" run --profile standard --diag-fd 3 -- /usr >"$T/out" 2>"$T/err" 3>"$D"
RC=$?
expect_rc 126 "a directory is not executable"
[[ ! -s $T/err ]] && pass "stderr empty with --diag-fd" || fail "stderr: $(cat "$T/err")"
grep -q '^sbx: exec: /usr: Permission denied' "$D" && pass "the message is on descriptor 3" ||
  fail "descriptor 3 has: $(cat "$D")"
run_sbx run --profile standard -- /usr
expect_err "^sbx: exec: /usr: Permission denied" "control: without --diag-fd the message is on stderr"

# The command's own stderr and sbx's timeout message apart.
"$SBX" run --profile standard --timeout 1 --diag-fd 3 -- \
  python3 -c 'import sys, time; print("from-the-command", file=sys.stderr, flush=True); time.sleep(30)' \
  >"$T/out" 2>"$T/err" 3>"$D"
RC=$?
expect_rc 124 "the time limit"
[[ $(cat "$T/err") == from-the-command ]] && pass "stderr holds only the command's line" ||
  fail "stderr: $(cat "$T/err")"
grep -q 'time limit of 1000 ms reached' "$D" && pass "the timeout message is on descriptor 3" ||
  fail "descriptor 3 has: $(cat "$D")"

# The descriptor is not the command's: it finds nothing open above 2.
"$SBX" run --profile standard --diag-fd 3 -- ls /proc/self/fd >"$T/out" 2>"$T/err" 3>"$D"
RC=$?
expect_rc 0 "ls /proc/self/fd"
fds=$(grep -vxE '[0-2]' "$T/out" | tr '\n' ' ')
# ls's own directory descriptor is the one entry above 2 it may list.
(($(grep -cvxE '[0-2]' "$T/out") <= 1)) && pass "no descriptor of sbx's reaches the command ($fds)" ||
  fail "the command has descriptors: $fds"
[[ ! -s $D ]] && pass "a clean run writes nothing to descriptor 3" || fail "descriptor 3: $(cat "$D")"

# Refusals, before anything runs.
marker="$WS/marker"
run_sbx run --profile standard --diag-fd 9 -- touch "$marker"
expect_rc 125 "--diag-fd 9, not open"
expect_err "^sbx: error: --diag-fd 9: not an open descriptor$" "says it is not open"
"$SBX" run --profile standard --diag-fd 3 -- touch "$marker" >"$T/out" 2>"$T/err" 3</dev/null
RC=$? ERR=$(cat "$T/err")
expect_rc 125 "--diag-fd 3 open read-only"
expect_err "^sbx: error: --diag-fd 3: not open for writing$" "says it is not writable"
for bad in 0 -1 x 3x; do
  run_sbx run --profile standard --diag-fd "$bad" -- touch "$marker"
  expect_rc 125 "--diag-fd '$bad'"
done
[[ ! -e $marker ]] && pass "nothing ran after a refused --diag-fd" || fail "the command ran"
run_sbx explain --profile standard --diag-fd 2
expect_rc 125 "explain refuses --diag-fd"
finish
