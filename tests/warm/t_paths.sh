#!/usr/bin/env bash
# Which start-up path ran, and the same result either way: warm with a
# server, cold with --cold / SBX_WARM=0 / no server / a dead server's socket.
# Exit codes and the audit record's "start" field.
SBX_TEST_WARM=1
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG=$T/audit.log

# both MODE WANT DESC ARGS...: the exit status WANT warm and cold.
both() {
  local want=$1 desc=$2
  shift 2
  run_sbx run -v --audit "$LOG" "$@"
  expect_rc "$want" "warm: $desc"
  expect_err "start-up: warm" "warm: $desc ran warm"
  [[ $(audit_field "$LOG" 'r.get("start")') == warm ]] && pass "audit start=warm ($desc)" ||
    fail "audit record of '$desc' lacks start=warm"
  run_sbx run -v --cold --audit "$LOG" "$@"
  expect_rc "$want" "cold: $desc"
  expect_err "start-up: cold" "cold: $desc ran cold"
  [[ $(audit_field "$LOG" 'r.get("start")') == cold ]] && pass "audit start=cold ($desc)" ||
    fail "audit record of '$desc' lacks start=cold"
}
both 0 "true" --profile strict -- true
both 1 "false" --profile strict -- false
both 127 "not found" --profile strict -- no-such-command-xyz
both 126 "a shell (masked)" --profile strict -- sh -c true
both 124 "timeout" --profile strict --timeout 0.3 -- sleep 5
both 143 "SIGTERM" --profile strict -- python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'
both 0 "hardened" --profile hardened -- true

# Options in the wrong place are refused, not ignored.
run_sbx serve --profile strict
expect_rc 125 "serve --profile refused"
expect_err "serve: only --idle and -v" "serve says what it accepts"
run_sbx run --idle 5 -- true
expect_rc 125 "run --idle refused"
run_sbx check --cold
expect_rc 125 "check --cold refused"
run_sbx serve --idle 0
expect_rc 125 "serve --idle 0 refused"

# Output and input go through the passed descriptors.
out=$(echo hello | "$SBX" run --profile strict -- cat)
[[ $out == hello ]] && pass "stdin/stdout through the warm run" || fail "stdin/stdout: '$out'"

SBX_WARM=0 run_sbx run -v -- true
expect_rc 0 "SBX_WARM=0"
expect_err "start-up: cold" "SBX_WARM=0 runs cold"

# A profile whose approvals are served by the client runs cold, and says so.
run_sbx run -v --approver none --profile standard -- true
expect_err "start-up: cold \(approvals" "approvals: cold, with the reason"

# A server that answers too late (stopped here): the client runs cold after
# its 5 s wait, and the request, served once the server resumes, must not
# run the command a second time (pid 1 waits for a go that never comes).
arg=2.$RANDOM
kill -STOP "$WARM_PID"
run_sbx run -v --profile strict -- sleep "$arg"
expect_rc 0 "stopped server: the run still happens"
expect_err "start-up: cold \(server did not answer" "stopped server: cold after the wait"
kill -CONT "$WARM_PID"
for _ in $(seq 20); do proc_running "sleep $arg" && break; sleep 0.05; done
if proc_running "sleep $arg"; then
  fail "the late request ran the command a second time"
  kill -KILL $(procs_matching "sleep $arg") 2>/dev/null
else
  pass "the late request ran nothing"
fi

# The server stopped: cold, and it works.
warm_stop
run_sbx run -v -- true
expect_rc 0 "no server"
expect_err "start-up: cold \(no server" "no server: cold, with the reason"

# A server killed outright leaves its socket behind: cold too.
warm_start || exit 1
kill -KILL "$WARM_PID"
for _ in $(seq 50); do kill -0 "$WARM_PID" 2>/dev/null || break; sleep 0.05; done
WARM_PID=
[[ -S $WARM_SOCK ]] && pass "a dead server's socket is left" || fail "socket gone?"
run_sbx run -v -- true
expect_rc 0 "dead server's socket"
expect_err "start-up: cold" "dead server: cold"
finish
