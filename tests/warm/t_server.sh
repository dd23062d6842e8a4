#!/usr/bin/env bash
# The server's own process hygiene. (1) Two servers for one directory:
# the second refuses to start even when the first's socket file is gone
# (a lock held for the server's life; before, both unlinked and bound).
# (2) A connection that sends no request is closed after 5 s instead of
# holding a slot for ever. (3) Started with stdin and stdout closed, the
# server's descriptors stay above stdio: a spare's 0..2 are /dev/null, not
# the server's listening socket or mount table (sbx_main.c already points
# closed stdio at /dev/null for every command; sbx_serve() now does it too
# for other callers, so this part guards both). (4) Two spares are kept
# ready per template.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T"' EXIT
warm_start || exit 1

rm -f "$WARM_SOCK"
timeout 5 "$SBX" serve --idle 3 2>"$T/second.err" </dev/null >/dev/null
rc=$?
[[ $rc != 0 && $rc != 124 ]] && grep -q "already runs" "$T/second.err" &&
  pass "a second server refused (exit $rc)" ||
  fail "a second server started beside the first (exit $rc): $(cat "$T/second.err")"
warm_stop

warm_start || exit 1
t0=$(date +%s%N)
out=$(python3 - "$WARM_SOCK" <<'PY'
import socket, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
c.connect(sys.argv[1]); c.settimeout(12)
try:
    print("closed" if c.recv(4096) == b"" else "reply")
except socket.timeout:
    print("still open after 12 s")
PY
)
ms=$((($(date +%s%N) - t0) / 1000000))
[[ $out == closed ]] && ((ms >= 4000)) && pass "a silent connection closed after $ms ms" ||
  fail "a silent connection: $out after $ms ms"
grep -q "no request within" "$T/serve.log" && pass "server logged it" || fail "log: $(cat "$T/serve.log")"
warm_stop

WARM_PID=$( ("$SBX" serve -v --idle 600 2>>"$T/serve.log" <&- >&- & echo $!) )
wait_for 60 test -S "$WARM_SOCK"
run_sbx run --profile strict -- true
expect_rc 0 "a run from a server started with stdio closed"
# The next run's spare is cloned after the run's go and its end (off the
# run's path), so under load it may not exist yet when the run returns:
# look for it for up to 10 s. Only a live spare counts (the previous run's pid 1 was a spare
# too and may still be a zombie with that name and no descriptors).
spare="" fds=""
for _ in $(seq 200); do
  for p in /proc/[0-9]*; do
    [[ $(cat "$p/comm" 2>/dev/null) == sbx-spare ]] &&
      [[ $(awk '/^PPid:/ {print $2}' "$p/status" 2>/dev/null) == "$WARM_PID" ]] &&
      [[ -e $p/fd/0 ]] && spare=${p#/proc/}
  done
  [[ -n $spare ]] && fds="$(readlink /proc/$spare/fd/0) $(readlink /proc/$spare/fd/1)"
  [[ $fds == "/dev/null /dev/null" ]] && break
  sleep 0.05
done
if [[ -z $spare ]]; then
  fail "no spare of the server found within 10 s; server log: $(tail -5 "$T/serve.log")"
else
  [[ $fds == "/dev/null /dev/null" ]] && pass "the spare's stdin and stdout are /dev/null" ||
    fail "the spare's stdin/stdout: $fds"
fi

# (4) The pool: after runs, the template keeps two spares ready (pid 1s
# of future runs, the server's live children), so a run back to back with
# the previous one finds one while the other is still being made.
spares() {
  local p n=0
  for p in /proc/[0-9]*; do
    [[ $(cat "$p/comm" 2>/dev/null) == sbx-spare ]] &&
      [[ $(awk '/^PPid:/ {print $2}' "$p/status" 2>/dev/null) == "$WARM_PID" ]] &&
      [[ -e $p/fd/0 ]] && n=$((n + 1))
  done
  echo "$n"
}
for _ in 1 2 3; do run_sbx run --profile strict -- true; done
two_spares() { (($(spares) == 2)); }
wait_for 60 two_spares
n=$(spares)
((n == 2)) && pass "two spares kept ready" || fail "$n spares after three runs, want 2"
finish
