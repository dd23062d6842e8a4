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
caller >"$T/warm.out" 2>"$T/warm.err"
RC=$? ERR=$(cat "$T/warm.err")
expect_rc 0 "warm report"
expect_err "start-up: warm" "it ran warm"
caller --cold >"$T/cold.out" 2>"$T/cold.err"
RC=$? ERR=$(cat "$T/cold.err")
expect_rc 0 "cold report"
grep -q "umask 27" "$T/cold.out" && grep -q "nice 7" "$T/cold.out" &&
  grep -q "oom 123" "$T/cold.out" && pass "cold: the caller's settings" ||
  fail "cold report: $(cat "$T/cold.out")"
if diff "$T/cold.out" "$T/warm.out" >"$T/diff"; then
  pass "warm == cold"
else
  fail "warm differs from cold: $(cat "$T/diff")"
fi
finish
