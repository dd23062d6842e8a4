#!/usr/bin/env bash
# A warm run's client killed with SIGKILL: the server kills the run's whole
# pid namespace (its connection closes). The sandboxed process is found by
# a unique argument, from outside (lib.sh procs_matching).
SBX_TEST_WARM=1
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
arg=37.$RANDOM
"$SBX" run --profile strict -- sleep "$arg" &
client=$!
wait_for 60 proc_running "sleep $arg"
if proc_running "sleep $arg"; then pass "the warm run is running"; else fail "no sandboxed sleep"; fi
[[ $(warm_count "started warm") -ge 1 ]] && pass "it started warm" || fail "it did not start warm"
kill -KILL "$client"
wait "$client" 2>/dev/null
for _ in $(seq 60); do proc_running "sleep $arg" || break; sleep 0.05; done
if proc_running "sleep $arg"; then
  fail "the sandbox outlived its killed client"
  kill -KILL $(procs_matching "sleep $arg") 2>/dev/null
else
  pass "the sandbox died with its client"
fi
# Whichever notices the client's end first ends the run: the server
# (its connection closed: it kills the run) or the run's pid 1 (its
# control socket closed: it exits 125, taking the pid namespace with it).
run=$(sed -n 's/.*run \([0-9]*\) started warm.*/\1/p' "$T/serve.log" | tail -1)
for _ in $(seq 60); do
  grep -q -E "client of run $run gone: killed|run $run ended \(status 0x7d00\)" "$T/serve.log" && break
  sleep 0.05
done
grep -q -E "client of run $run gone: killed|run $run ended \(status 0x7d00\)" "$T/serve.log" &&
  pass "server: run $run ended with its client" ||
  fail "server log lacks the end of run $run: $(cat "$T/serve.log")"
finish
