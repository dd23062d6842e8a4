#!/usr/bin/env bash
# Every exit status of sbx run: the command's own, 128+N, 124, 125, 126, 127.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox

run_sbx run -- true
expect_rc 0 "true"
run_sbx run -- false
expect_rc 1 "false"
run_sbx run -- ls /no/such/path
expect_rc 2 "ls of a missing path (its own status 2)"

# The helper binary, if the strict profile lets the workspace be executed.
cp "$SBX_EXIT_HELPER" "$WS/helper"
run_sbx run --workspace "$WS" -- "$WS/helper" exit 42
if [[ $RC == 42 ]]; then
  pass "own status 42"
  run_sbx run --workspace "$WS" -- "$WS/helper" signal 15
  expect_rc 143 "SIGTERM raised by the command"
  run_sbx run --workspace "$WS" -- "$WS/helper" signal 11
  expect_rc 139 "SIGSEGV raised by the command"
else
  echo "note: the workspace is not executable under strict ($RC); using python3" >&2
  run_sbx run -- python3 -c 'raise SystemExit(42)'
  expect_rc 42 "own status 42 (python3)"
  run_sbx run -- python3 -c 'import os, signal; os.kill(os.getpid(), signal.SIGTERM)'
  expect_rc 143 "SIGTERM raised by the command (python3)"
fi

# A signal from outside: find the sandboxed sleep by its unusual argument.
"$SBX" run -- sleep 29.713 >/dev/null 2>"$T/err" &
sbx_pid=$!
victim=""
for _ in $(seq 100); do
  victim=$(procs_matching "sleep 29\.713" | head -1)
  [[ -n $victim ]] && break
  sleep 0.05
done
if [[ -n $victim ]]; then
  kill -KILL "$victim"
  wait "$sbx_pid"; RC=$?
  ERR=$(cat "$T/err")
  expect_rc 137 "sandboxed command killed by SIGKILL"
else
  kill "$sbx_pid"; wait "$sbx_pid"
  fail "the sandboxed sleep never appeared"
fi

run_sbx run --timeout 0.3 -- sleep 10
expect_rc 124 "timeout"
expect_err "time limit" "timeout is reported"

run_sbx run -- no-such-command-sbx-test
expect_rc 127 "command not found"
run_sbx run -- /no/such/dir/cmd
expect_rc 127 "absolute path not found"

printf 'not a program\n' >"$WS/notexec"
chmod 0644 "$WS/notexec"
run_sbx run --workspace "$WS" -- "$WS/notexec"
expect_rc 126 "not executable"
run_sbx run -- /usr
expect_rc 126 "a directory is not executable"

# A shell under a profile whose shell policy is "none" is not executable.
if "$SBX" explain --profile strict | grep -q '^Shell: *no shell'; then
  run_sbx run --profile strict -- sh -c 'exit 7'
  expect_rc 126 "sh under strict (no shell)"
  expect_err "^sbx: exec: sh: profile strict \(profiles\.pol:[0-9]+:[0-9]+\) allows no shell \(allowShell false\): run the program directly, without sh -c$" "sh under strict: says the profile allows no shell"
  grep -q 'could not be named' <<<"$ERR" && fail "sh under strict: a guess about Landlock added: $ERR" || pass "sh under strict: no guess about which layer refused"
  run_sbx run --profile strict -- /bin/bash -c 'exit 7'
  expect_rc 126 "/bin/bash under strict (no shell)"
  expect_err "^sbx: exec: /bin/bash: profile strict .* allows no shell" "/bin/bash under strict: says the profile allows no shell"
  # Negative control: a file that is no shell, refused the same way (not
  # executable), keeps the plain reason.
  run_sbx run --profile strict -- /usr
  expect_err "^sbx: exec: /usr: Permission denied" "a directory under strict: the plain reason, no shell named"
fi
shellok=$("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}' | while read -r q; do
  "$SBX" explain --profile "$q" | grep -q '^Shell: *a shell may run' && { echo "$q"; break; }; done)
if [[ -n $shellok ]]; then
  run_sbx run --profile "$shellok" -- sh -c 'exit 7'
  expect_rc 7 "sh -c 'exit 7' under $shellok (own status through a shell)"
  run_sbx run --profile "$shellok" -- sh -c 'kill -USR1 $$'
  expect_rc 138 "sh killing itself with SIGUSR1 under $shellok"
fi

run_sbx run --profile no-such -- true
expect_rc 125 "sbx refused (unknown profile)"
run_sbx run --workspace "$T/no-such-dir" -- true
expect_rc 125 "sbx refused (missing workspace)"
finish
