# Shared helpers of the sbx_cli integration tests (sourced, bash).
# ctest sets SBX, SBX_SLOTS, SBX_EXIT_HELPER, SBX_SRC, SBX_TEST_DIR.
set -u
: "${SBX:?run through ctest}"

T=$(mktemp -d /tmp/sbx-cli-test.XXXXXX)
# A private admission state: tests never touch the machine's own one.
export SBX_STATE_DIR="$T/state"
mkdir -m 0700 "$SBX_STATE_DIR"
unset COMMANDER_SECURITY_PROFILE SBX_AUDIT_LOG
WS="$T/ws"
mkdir "$WS"
cd "$WS" || exit 99
FAILS=0
trap 'rm -rf "$T"' EXIT

# wait_for SECONDS CMD [ARG...]: runs CMD every 50 ms until it succeeds or
# SECONDS have passed (by the clock, not by a count of tries: on a loaded
# machine each try takes longer); returns CMD's last status. A hang
# detector, not a speed check: give it a bound no healthy run comes near.
wait_for() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < end)) || return 1
    sleep 0.05
  done
}

# SBX_TEST_WARM=1 (ctest's sbx_cli_warm_*): the same script against a
# running `sbx serve` in the private state directory (tests/warm/serve.sh);
# finish() then fails unless runs really started warm.
if [[ ${SBX_TEST_WARM:-0} == 1 ]]; then
  source "$SBX_SRC/tests/warm/serve.sh"
  warm_start || exit 1
  trap 'warm_stop; rm -rf "$T"' EXIT
fi

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "SKIP: $*" >&2; exit 77; }
finish() {
  if [[ ${SBX_TEST_WARM:-0} == 1 ]]; then warm_check_used; fi
  if ((FAILS)); then echo "$FAILS check(s) failed" >&2; exit 1; fi
  exit 0
}

# run_sbx ARGS...: runs sbx, sets RC, OUT, ERR.
run_sbx() {
  "$SBX" "$@" >"$T/out" 2>"$T/err"
  RC=$?
  OUT=$(cat "$T/out")
  ERR=$(cat "$T/err")
}

# expect_rc WANT DESCRIPTION
expect_rc() {
  if [[ "$RC" == "$1" ]]; then pass "$2 (exit $RC)"; else
    fail "$2: exit $RC, want $1; stderr: $ERR"; fi
}

# expect_err REGEX DESCRIPTION
expect_err() {
  if grep -Eq -- "$1" <<<"$ERR"; then pass "$2"; else fail "$2: stderr lacks /$1/: $ERR"; fi
}

# expect_hidden TEXT DESCRIPTION: the last run failed without printing TEXT
# (a secret the sandbox must not show).
expect_hidden() {
  if [[ $RC != 0 && $OUT != *"$1"* ]]; then pass "$2"; else
    fail "$2: exit $RC, output '$OUT'"; fi
}

# jq-like field read of the last audit record: audit_field FILE PY-EXPR
audit_field() {
  python3 - "$1" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[-1])
print(eval(sys.argv[2], {"r": r}))
PY
}

# The kernel features every profile relies on; without them the sandbox
# refuses to run and the test cannot say anything.
require_sandbox() {
  run_sbx run --profile strict -- true
  if [[ $RC == 125 ]] && grep -Eqi "not supported|missing|ENOTSUP|needs ABI|kernel" <<<"$ERR"; then
    skip "the kernel lacks a feature the strict profile needs: $ERR"
  fi
  [[ $RC == 0 ]] || { echo "FAIL: sbx run --profile strict -- true: exit $RC: $ERR" >&2; exit 1; }
}

# procs_matching REGEX: pids whose whole command line (arguments joined by
# one space) matches ^REGEX$. Reads /proc itself: no procps needed, and the
# sandboxes' processes are visible from here (their pid namespaces are
# children of ours).
procs_matching() {
  local f args line
  for f in /proc/[0-9]*/cmdline; do
    { mapfile -d '' args <"$f"; } 2>/dev/null || continue
    ((${#args[@]})) || continue
    line="${args[*]}"
    if [[ $line =~ ^$1$ ]]; then f=${f#/proc/}; echo "${f%/cmdline}"; fi
  done
}
proc_running() { [[ -n $(procs_matching "$1") ]]; }
# Waits (up to 30 s) until STATE has no holder and no waiter. A SIGKILLed
# sbx's slot is also guarded by its sandbox's pid 1 (cs_shared_guard),
# which dies of its parent-death signal a moment after sbx: the slot comes
# back once that is gone, not before, and not never. Prints the last check.
slots_free_soon() {
  local out rc end=$((SECONDS + 30))
  # Bounded by time, not by tries: a SIGKILLed run's sandbox is torn down by
  # the kernel, which on a loaded machine took longer than 4 s (80 tries);
  # a free state returns at once.
  while :; do
    out=$("$SBX_SLOTS" check "$1")
    rc=$?
    ((rc == 0 || SECONDS >= end)) && break
    sleep 0.05
  done
  echo "$out"
  return $rc
}

# proc_start PID: field 22 of /proc/PID/stat (start time), empty when the
# process is gone or a zombie.
proc_start() {
  local stat f
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  read -r -a f <<<"$stat"
  [[ ${f[0]} == Z || ${f[0]} == X ]] || echo "${f[19]}"
}

# procs_matching_at_once REGEX: as procs_matching, but only processes that
# were all alive at one instant. A scan of /proc takes a while, and a
# process seen early may end before one seen late starts: counting both
# would count processes that never ran together. So the table is read
# twice and only the processes of the first reading that are still there,
# with the same start, in the second are kept: every one kept was alive
# from its sighting until its second one, and every first sighting
# precedes every second one, so all were alive between the two readings.
# Never more than ran at once. ps(1) reads the table, not a shell loop: a
# loop that forks per process is slow enough on a loaded machine for short
# runs to end before they are seen twice, and the count then says nothing.
procs_at_once_scan() {
  ps -e -o pid=,lstart=,args= |
    RE="^($1)\$" awk '{ id = $1 " " $2 " " $3 " " $4 " " $5 " " $6
           for (i = 1; i <= 6; i++) $i = ""; sub(/^ +/, "")
           if ($0 ~ ENVIRON["RE"]) print id }' | sort
}
procs_matching_at_once() {
  local first
  first=$(procs_at_once_scan "$1")
  [[ -n $first ]] || return 0
  comm -12 <(echo "$first") <(procs_at_once_scan "$1") | awk '{ print $1 }'
}
