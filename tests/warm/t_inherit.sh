#!/usr/bin/env bash
# A warm run's pid 1 is a child of the server, a cold one a child of sbx
# run: the process settings the command inherits must be the caller's in
# both (umask, nice, OOM score adjustment, CPU affinity, the resource
# limits the profile does not set). The same command reports them warm
# and cold, from a caller whose settings differ from the server's.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
command -v taskset >/dev/null || skip "no taskset"
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T"' EXIT
warm_start || exit 1
report='import os, resource
print("umask %o" % os.umask(0))
print("nice %d" % os.getpriority(os.PRIO_PROCESS, 0))
print("oom " + open("/proc/self/oom_score_adj").read().strip())
print("cpus %s" % sorted(os.sched_getaffinity(0)))
for r in range(16):
    print("rlimit %d %s" % (r, resource.getrlimit(r)))'
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
caller() {
  ( umask 027; ulimit -S -c 1234; ulimit -S -s 4096; echo 123 >/proc/self/oom_score_adj
    exec nice -n 7 taskset -c "$cpu" "$SBX" run -v "$@" --profile strict -- /usr/bin/python3 -c "$report" )
}
# nice -n 7 adds to the test's own niceness (ctest may itself run niced).
want_nice=$(python3 -c 'import os; print(min(19, os.getpriority(os.PRIO_PROCESS, 0) + 7))')
caller >"$T/warm.out" 2>"$T/warm.err"
RC=$? ERR=$(cat "$T/warm.err")
expect_rc 0 "warm report"
expect_err "start-up: warm" "it ran warm"
caller --cold >"$T/cold.out" 2>"$T/cold.err"
RC=$? ERR=$(cat "$T/cold.err")
expect_rc 0 "cold report"
grep -q "umask 27" "$T/cold.out" && grep -q "nice $want_nice" "$T/cold.out" &&
  grep -q "oom 123" "$T/cold.out" && pass "cold: the caller's settings" ||
  fail "cold report: $(cat "$T/cold.out")"
if diff "$T/cold.out" "$T/warm.out" >"$T/diff"; then
  pass "warm == cold"
else
  fail "warm differs from cold: $(cat "$T/diff")"
fi
# A caller whose limit is above the server's hard limit: a spare cannot
# take it on (raising a hard limit needs CAP_SYS_RESOURCE), so its pid 1
# fails before anything executed, kills the pre-forked command without
# passing it the request, and the run goes cold: the command runs exactly
# once, with the caller's limit.
warm_stop
WARM_PID=$( (ulimit -S -q 409600 && ulimit -H -q 409600 &&
             { "$SBX" serve -v --idle 600 2>>"$T/serve.log" </dev/null >/dev/null & echo $!; }) )
wait_for 60 test -S "$WARM_SOCK"
# The socket of the stopped server may still be there: wait for the new one.
listening_twice() { [[ $(warm_count "listening") == 2 ]]; }
wait_for 60 listening_twice
"$SBX" run -v --profile strict -- /usr/bin/python3 -c \
  'import resource; print("ran", resource.getrlimit(resource.RLIMIT_MSGQUEUE))' \
  >"$T/high.out" 2>"$T/high.err"
RC=$? ERR=$(cat "$T/high.err")
expect_rc 0 "caller above the server's hard limit"
expect_err "start-up: cold" "it went cold"
want=$(python3 -c 'import resource; print("ran", resource.getrlimit(resource.RLIMIT_MSGQUEUE))')
if [[ $(cat "$T/high.out") == "$want" ]]; then
  pass "ran once, with the caller's limit"
else
  fail "output $(cat "$T/high.out"), want exactly: $want"
fi
finish
