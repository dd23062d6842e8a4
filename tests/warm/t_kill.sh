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
for _ in $(seq 100); do proc_running "sleep $arg" && break; sleep 0.05; done
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
grep -q "gone: killed" "$T/serve.log" && pass "server: client gone, run killed" ||
  fail "server log lacks the kill: $(cat "$T/serve.log")"
finish
