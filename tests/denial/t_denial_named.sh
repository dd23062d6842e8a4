#!/usr/bin/env bash
# denial_named: refusals made by Landlock are named, with the profile's
# rule, on stderr and in the audit log (docs/confinement.md "Naming
# refusals"); with the kernel's audit off sbx says it cannot name them.
# Landlock writes records only while the kernel's audit is on: the test
# switches it on for its runs and restores what it found (sbx itself never
# does). Cases (Landlock): exec (before and after the command's execve; from a noexec
# workspace and /tmp, where the mount refuses first and nothing is named),
# TCP connect, signal and abstract unix socket out of the sandbox; (seccomp,
# 9-13) the rule that decided, of the profile that ran, in every process of
# the run, expected fallbacks not reported, each with a negative control. With
# SBX_TEST_WARM=1 (denial_named_warm) the runs of the table's profiles start
# from a running `sbx serve` (tests/sbx_cli/lib.sh); the test profiles,
# unknown to that server, start cold. Skips (77) without root, Landlock ABI 7 or a usable audit switch.
source "$SBX_TEST_DIR/lib.sh"
: "${DENIAL_SBX:?run through ctest}" "${KAUDIT:?run through ctest}" "${DENIAL_I386:?run through ctest}"
if [[ ${SBX_TEST_WARM:-0} == 1 ]] && ! declare -F warm_check_used >/dev/null; then
  skip "tests/sbx_cli/lib.sh cannot start a warm server here"
fi
require_sandbox
[[ $(id -u) == 0 ]] || skip "needs root: the kernel's audit records (CAP_AUDIT_READ, /dev/kmsg) and its audit switch are root's"
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))')
((abi >= 7)) || skip "Landlock ABI $abi: refusals are logged from ABI 7 (Linux 6.15)"
# The audit switch is the machine's: ctest's RESOURCE_LOCK keeps this
# test's two variants apart, this lock keeps it apart from the same test of
# another checkout or build on the machine (each switches it off at its end).
exec 9>/run/lock/commander-sandbox-kernel-audit.lock || skip "cannot open the audit switch's lock file"
flock -w 600 9 || fail "the audit switch's lock was held for 600 s by another test"
old=$("$KAUDIT" get 2>&1) || skip "cannot read the kernel's audit switch: $old"
src=$("$SBX" check --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["naming"]["source"])')
# Through printk (/dev/kmsg) records are rate limited machine-wide: a lost
# one would fail this test for a reason it does not test.
[[ $src == "the audit netlink group" ]] ||
  skip "audit records only from '$src' here (not the audit multicast group: another network namespace?)"
watchdog=
restore() {
  [[ -n $watchdog ]] && kill "$watchdog" 2>/dev/null
  [[ $old == 2 ]] || "$KAUDIT" set "$old" || echo "WARNING: kernel audit switch not restored to $old" >&2
  if [[ ${SBX_TEST_WARM:-0} == 1 ]]; then warm_stop; fi
  rm -rf "$T"
}
trap restore EXIT
if [[ $old == 0 ]]; then
  # Killed without its EXIT trap (ctest's timeout sends SIGKILL), the test
  # would leave the machine's audit on: a watchdog in its own session puts
  # it back once this shell is gone.
  setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.2; done; "$2" set 0' \
    watchdog "$$" "$KAUDIT" </dev/null >/dev/null 2>&1 &
  watchdog=$!
  out=$("$KAUDIT" set 1 2>&1) || skip "cannot switch the kernel's audit on: $out"
fi
LOG="$T/audit.jsonl"
cp /usr/bin/true "$WS/mytrue"

# audit_has LAYER WHAT-REGEX RULE-REGEX ACTION: the last record has it.
audit_has() {
  python3 - "$LOG" "$@" <<'PY'
import json, re, sys
log, layer, what, rule, action = sys.argv[1:]
r = json.loads(open(log).read().splitlines()[-1])
for d in r["denials"]:
    if d["layer"] == layer and re.search(what, d["what"] or "") and \
       re.search(rule, d["rule"] or "") and d["action"] == action:
        sys.exit(0)
print("denials:", json.dumps(r["denials"]), file=sys.stderr)
sys.exit(1)
PY
}

# audit_none LAYER WHAT-REGEX: the last record has no such denial.
audit_none() {
  python3 - "$LOG" "$@" <<'PY'
import json, re, sys
log, layer, what = sys.argv[1:]
r = json.loads(open(log).read().splitlines()[-1])
bad = [d for d in r["denials"] if d["layer"] == layer and re.search(what, d["what"] or "")]
if bad:
    print("denials:", json.dumps(bad), file=sys.stderr)
    sys.exit(1)
PY
}

POL='profiles\.pol:[0-9]+:[0-9]+'

# 1. sbx's own execve of a binary in the workspace outside the execute
#    rules: refused by Landlock before the command starts (exec-fixture:
#    the workspace mount is executable for bin/, see denial_sbx.c).
mkdir -p "$WS/bin"
SBX=$DENIAL_SBX run_sbx run --profile exec-fixture --audit "$LOG" -- ./mytrue
expect_rc 126 "exec-fixture: ./mytrue is not executable"
expect_err "^sbx: exec: \./mytrue: Permission denied$" "exec failure reported without the rule appended"
expect_err "^sbx: landlock refused fs\.execute $WS/mytrue: no execute rule covers the path; execute is granted only under /usr \($POL\).*\\\$\{WORKSPACE\}/bin \(tests/denial/denial_sbx\.c\).* \(profile exec-fixture, tests/denial/denial_sbx\.c\) \(errno\(EACCES\)\)$" "exec: named with the execute rules"
audit_has landlock "^fs\.execute $WS/mytrue\$" "^no execute rule covers the path.*profile exec-fixture" "errno(EACCES)" &&
  pass "exec: landlock denial in the audit log" || fail "exec: no landlock denial in the audit log"

# 2. The same refusal after the command's own execve (env runs it): the
#    kernel logs it only because sbx sets LOG_NEW_EXEC_ON.
SBX=$DENIAL_SBX run_sbx run --profile exec-fixture --audit "$LOG" -- env ./mytrue
expect_rc 126 "exec-fixture: env ./mytrue refused"
expect_err "^sbx: landlock refused fs\.execute $WS/mytrue: .*profile exec-fixture" "after execve: named"
audit_has landlock "^fs\.execute $WS/mytrue\$" "profile exec-fixture" "errno(EACCES)" &&
  pass "after execve: named in the audit log" || fail "after execve: not in the audit log"

# 2b. strict: its workspace is mounted noexec (no execute rule covers it),
#     and the mount refuses before Landlock is asked: refused, and no
#     Landlock refusal is made up (docs/confinement.md, "Which mounts are
#     noexec").
run_sbx run --profile strict --audit "$LOG" -- ./mytrue
expect_rc 126 "strict: ./mytrue is not executable (noexec workspace)"
audit_has landlock . . "errno(EACCES)" 2>/dev/null && fail "strict noexec: a landlock denial was made up" ||
  pass "strict noexec: no landlock denial"

# 3. standard: a binary written to the writable /tmp and run from there:
#    /tmp is noexec (no execute rule covers it), refused by the mount.
run_sbx run --profile standard --audit "$LOG" -- sh -c 'cp /usr/bin/true /tmp/x && /tmp/x'
expect_rc 126 "standard: /tmp/x refused"
audit_has landlock . . "errno(EACCES)" 2>/dev/null && fail "standard /tmp exec: a landlock denial was made up" ||
  pass "standard /tmp exec: refused by the noexec mount, no landlock denial"

# 4. TCP connect with the network blocked: Landlock's refusal (the test
#    profile lets seccomp allow the socket).
SBX=$DENIAL_SBX run_sbx run --profile tcp-fixture --audit "$LOG" -- python3 -c '
import socket, sys
try:
    socket.create_connection(("127.0.0.1", 443), timeout=5)
except PermissionError:
    sys.exit(3)'
expect_rc 3 "tcp-fixture: connect refused with EACCES"
expect_err "^sbx: landlock refused net\.connect_tcp to 127\.0\.0\.1 port 443: allowNetwork = false: every TCP bind and connect is refused \(profile tcp-fixture, tests/denial/denial_sbx\.c\) \(errno\(EACCES\)\)$" "tcp connect: named with allowNetwork"
audit_has landlock "^net\.connect_tcp to 127\.0\.0\.1 port 443\$" "^allowNetwork = false" "errno(EACCES)" &&
  pass "tcp connect: in the audit log" || fail "tcp connect: not in the audit log"

# 5. A signal to a process outside the sandbox: pid 1 inside is sbx-init,
#    which is not in the command's Landlock domain.
run_sbx run --profile strict --audit "$LOG" -- python3 -c '
import os, sys
try:
    os.kill(1, 0)
except PermissionError:
    sys.exit(3)'
expect_rc 3 "strict: kill(1, 0) refused with EPERM"
# As root, sbx-init is root and the command is not (docs/confinement.md,
# "Identity"): the kernel's uid check refuses the signal before Landlock
# is asked, so there is no Landlock refusal to name. Without root both
# have the caller's uid and Landlock's scoping is what refuses it.
if [ "$(id -u)" != 0 ]; then
  expect_err "^sbx: landlock refused scope\.signal to pid [0-9]+ \(sbx-init\): Landlock signal scoping \(every profile\): no signal to a process outside the sandbox \(profile strict, $POL\) \(errno\(EPERM\)\)$" "signal: named with the scoping rule"
  audit_has landlock "^scope\.signal to pid [0-9]+ \(sbx-init\)\$" "signal scoping" "errno(EPERM)" &&
    pass "signal: in the audit log" || fail "signal: not in the audit log"
fi

# abstract_connect PROFILE WHO SBX-ARGS...: runs `python3` under PROFILE
# connecting to an abstract unix socket bound outside the sandbox (exit 3
# on EPERM) and checks that the refusal is named with the scoping rule on
# stderr and in the audit log. WHO: the profile's rule origin, as a regex.
abstract_connect() {
  local profile=$1 origin=$2 listener
  shift 2
  python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + sys.argv[1])
s.listen()
time.sleep(60)' "$name" &
  listener=$!
  for _ in $(seq 50); do grep -q "@$name\$" /proc/net/unix && break; sleep 0.1; done
  run_sbx run --profile "$profile" "$@" --audit "$LOG" -- python3 -c '
import socket, sys
try:
    socket.socket(socket.AF_UNIX).connect("\0" + sys.argv[1])
except PermissionError:
    sys.exit(3)' "$name"
  kill "$listener"
  wait "$listener" 2>/dev/null
  expect_rc 3 "$profile: connect to @$name refused with EPERM"
  expect_err "^sbx: landlock refused scope\.abstract_unix_socket @$name: Landlock abstract unix socket scoping \(every profile\): no connection to a socket created outside the sandbox \(profile $profile, $origin\) \(errno\(EPERM\)\)$" "$profile: abstract socket named with the scoping rule"
  audit_has landlock "^scope\.abstract_unix_socket @$name\$" "abstract unix socket scoping" "errno(EPERM)" &&
    pass "$profile: abstract socket in the audit log" || fail "$profile: abstract socket not in the audit log"
}
name="sbx-denial-$$"

# 6. An abstract unix socket bound outside the sandbox: a direct network
#    shares the host's network namespace, so only Landlock's scoping keeps
#    it out of reach (scope-fixture: standard with a direct network,
#    without the approval helper).
SBX=$DENIAL_SBX abstract_connect scope-fixture "tests/denial/denial_sbx\.c"

# 6b. The same under standard's rules with a direct network (the seed's
#     standard goes through the proxy, in a network namespace of its own
#     where the host's abstract sockets do not exist): its approval
#     workflow performs the connect for the command in a helper process
#     with the profile's Landlock rules in a domain of its own; sbx names
#     the helper's refusal too (it knows its helpers' pids).
mkdir -m 0700 "$T/pol"
cat >"$T/pol/direct.pol" <<'POLICY'
include <profiles.pol>;

profile standard-direct extends standard {
  summary = "standard with a direct network, asked by address at the system-call layer";
  network { via direct; }
}
POLICY
chmod 0644 "$T/pol/direct.pol"
abstract_connect standard-direct 'direct\.pol:[0-9]+:[0-9]+' --policy "$T/pol/direct.pol" --approver none

# 7. A run without refusals has none.
run_sbx run --profile strict --audit "$LOG" -- true
expect_rc 0 "strict: true"
[[ $ERR != *landlock* ]] && pass "no refusal, nothing named" || fail "a clean run named something: $ERR"
audit_has landlock . . "errno(EACCES)" 2>/dev/null && fail "a clean run has a landlock denial" || pass "clean run: no landlock denial"

run_sbx check
[[ -z $ERR ]] || fail "check wrote to stderr: $ERR" "stderr"
grep -q "^refusals named with their rule: seccomp yes, landlock yes (records from " <<<"$OUT" &&
  pass "check: landlock refusals can be named" || fail "check: $(grep refusals <<<"$OUT")"

# The seccomp refusals (docs/confinement.md, "Naming the refused system
# call"): the rule that decided, of the profile that ran, in every process
# of the run. Each case runs once more with SBX_TEST_DENIAL_OLD=1 (the
# naming before: the call's first rule, the command's pid only, fallbacks
# reported) and shows that the check fails there.

# seccomp_line REGEX: the one stderr line of a seccomp refusal matches.
seccomp_line() { grep -E '^sbx: seccomp ' <<<"$ERR" | grep -Eq -- "$1"; }

# denial_named_i386 (DENIAL_PART=i386) runs case 13 alone: a kernel that
# does not deliver i386 system calls even outside a sandbox (no IA32
# emulation, or a hypervisor that turns int 0x80 into SIGSEGV) has no
# call for the filter to kill, and that test is skipped with the reason
# instead of passing; the other cases do not depend on it.
if [[ ${DENIAL_PART:-} == i386 ]]; then
  "$DENIAL_I386"
  rc=$?
  ((rc < 128)) || skip "this kernel runs no i386 system calls outside a sandbox either (int 0x80 ended by signal $((rc - 128)))"
  # 13. A call through the i386 ABI (int 0x80, number 20: getpid there,
  #     writev on x86_64): killed by every profile's ABI check, named as
  #     another ABI's call, never as x86_64's writev.
  run_sbx run --profile permissive --audit "$LOG" -- "$DENIAL_I386"
  expect_rc 159 "permissive: an i386 call kills the command (SIGSYS)"
  expect_err "^sbx: seccomp killed at call 20 of ABI arch=40000003 in pid [0-9]+: rule the ABI check: a call of any ABI but x86_64 is killed \(every profile\) \(profile permissive, $POL\) \(kill-process\)$" "i386: named as another ABI's call, by the ABI check"
  audit_has seccomp "^call 20 of ABI arch=40000003" "^the ABI check" "kill-process" &&
    pass "i386: in the audit log" || fail "i386: not in the audit log"
  SBX_TEST_DENIAL_OLD=1 run_sbx run --profile permissive -- "$DENIAL_I386"
  seccomp_line "writev" && pass "negative control: the old naming calls it x86_64's writev" ||
    fail "negative control: the old naming said: $ERR"
  finish
fi

# 9. hardened ioctl(TIOCGETD): refused by the unconditional errno rule
#    (269) or the TIOCSTI one (274), which the record cannot tell apart (it
#    has no arguments); never the allow rule (270) tried first.
TIOCGETD='import fcntl, sys
try:
    fcntl.ioctl(0, 0x5424, b"    ")
except PermissionError:
    sys.exit(3)'
rules=$("$SBX" explain --profile hardened | awk '$2 == "ioctl"')
allow=$(awk '$3 == "allow" {print $(NF-2)}' <<<"$rules")
refusing=$(awk '$3 ~ /^errno/ {print $(NF-2)}' <<<"$rules")
[[ -n $allow && $(wc -w <<<"$refusing") == 2 ]] || fail "hardened's ioctl rules are not as this test expects: $rules"
run_sbx run --profile hardened --audit "$LOG" -- python3 -c "$TIOCGETD" </dev/null
expect_rc 3 "hardened: ioctl(TIOCGETD) refused with EPERM"
line=$(grep -E '^sbx: seccomp refused ioctl' <<<"$ERR")
ok=1
for r in $refusing; do [[ $line == *"$r (profile hardened)"* ]] || ok=0; done
[[ $ok == 1 && $line != *"$allow"* && $line == *"(errno(EPERM))" ]] &&
  pass "hardened ioctl(TIOCGETD): named with the refusing rules, not the allow rule: $line" ||
  fail "hardened ioctl(TIOCGETD): $line"
audit_has seccomp "^ioctl \(nr 16\) in pid [0-9]+\$" "^one of .*profiles\.pol:" "errno(EPERM)" &&
  python3 - "$LOG" "$allow" <<'PY' && pass "hardened ioctl: in the audit log, no allow rule" || fail "hardened ioctl: audit log"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
assert not any(sys.argv[2] in (d["rule"] or "") for d in r["denials"]), r["denials"]
PY
SBX_TEST_DENIAL_OLD=1 run_sbx run --profile hardened -- python3 -c "$TIOCGETD" </dev/null
seccomp_line "ioctl .*: rule $allow" && pass "negative control: the first-rule naming names the allow rule" ||
  fail "negative control: the old naming did not name the allow rule: $ERR"

# 10. A custom profile (socket-fixture, denial_sbx.c: its own filter and
#     rules) refuses socket(AF_INET): named with its own errno rule, the
#     second of the call's two; the first is its allow rule for AF_UNIX.
SOCKET='import socket, sys
socket.socket(socket.AF_UNIX).close()
try:
    socket.socket(socket.AF_INET)
except PermissionError:
    sys.exit(3)'
SBX=$DENIAL_SBX run_sbx run --profile socket-fixture --audit "$LOG" -- python3 -c "$SOCKET"
expect_rc 3 "socket-fixture: socket(AF_INET) refused"
expect_err "^sbx: seccomp refused socket \(nr 41\) in pid [0-9]+: rule socket-fixture\.pol:4:5 \(profile socket-fixture\) \(errno\(EPERM\)\)$" "custom profile: named with its own refusing rule"
audit_has seccomp "^socket \(nr 41\)" "^socket-fixture\.pol:4:5 \(profile socket-fixture\)$" "errno(EPERM)" &&
  pass "custom profile: in the audit log with its rule" || fail "custom profile: not in the audit log"
SBX_TEST_DENIAL_OLD=1 SBX=$DENIAL_SBX run_sbx run --profile socket-fixture -- python3 -c "$SOCKET"
seccomp_line "socket .*: rule socket-fixture\.pol:3:5" && pass "negative control: the first-rule naming names the allow rule" ||
  fail "negative control: the old naming named: $ERR"

# 11. clone3's ENOSYS is the documented fallback (glibc then uses clone):
#     under standard a command that calls it and exits 0 leaves nothing on
#     stderr, and a failing one gets no refusal; the audit log has none.
CLONE3='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
assert libc.syscall(435, None, 0) == -1 and ctypes.get_errno() == 38
sys.exit(int(sys.argv[1]))'
run_sbx run --profile standard --approver none --audit "$LOG" -- python3 -c "$CLONE3" 0
expect_rc 0 "standard: clone3 answered ENOSYS"
[[ -z $ERR ]] && pass "clone3 fallback, exit 0: sbx wrote nothing" || fail "clone3 fallback, exit 0: stderr: $ERR"
run_sbx run --profile standard --approver none --audit "$LOG" -- python3 -c "$CLONE3" 1
expect_rc 1 "standard: clone3 then exit 1"
[[ -z $ERR ]] && pass "clone3 fallback, exit 1: sbx wrote nothing" || fail "clone3 fallback, exit 1: stderr: $ERR"
audit_none seccomp . && pass "clone3 fallback: no denial in the audit log" ||
  fail "clone3 fallback: a seccomp denial in the audit log"
SBX_TEST_DENIAL_OLD=1 run_sbx run --profile standard --approver none --audit "$LOG" -- python3 -c "$CLONE3" 1
seccomp_line "clone3 .*errno\(ENOSYS\)" && pass "negative control: the old naming reports the fallback" ||
  fail "negative control: the old naming did not report clone3: $ERR"
audit_none seccomp "^clone3" 2>/dev/null && fail "negative control: the old naming left clone3 out of the audit log" ||
  pass "negative control: the old naming puts clone3 in the audit log"

# 11b. isatty() of /dev/null (TCGETS, refused by Landlock's IOCTL_DEV on a
#     device the command opened; "not a terminal" either way): a command
#     that fails after it gets nothing from sbx.
ISATTY='import os, sys
assert not os.isatty(os.open("/dev/null", os.O_RDONLY))
sys.exit(1)'
run_sbx run --profile standard --approver none --audit "$LOG" -- python3 -c "$ISATTY"
expect_rc 1 "standard: isatty(/dev/null) then exit 1"
[[ -z $ERR ]] && pass "isatty probe: sbx wrote nothing" || fail "isatty probe: stderr: $ERR"
audit_none landlock "ioctl_dev" && pass "isatty probe: no denial in the audit log" ||
  fail "isatty probe: a landlock denial in the audit log"
SBX_TEST_DENIAL_OLD=1 run_sbx run --profile standard --approver none --audit "$LOG" -- python3 -c "$ISATTY"
expect_err "^sbx: landlock refused fs\.ioctl_dev /dev/null" "negative control: the old naming reports the isatty probe"
audit_none landlock "ioctl_dev" 2>/dev/null && fail "negative control: the old naming left the probe out of the audit log" ||
  pass "negative control: the old naming puts the probe in the audit log"

# 12. A grandchild's refused ptrace (sh, the command, -> python3 ->
#     python3, which calls ptrace): named, with its own pid, and in the
#     audit log.
cat >"$WS/grand.py" <<'PY'
import ctypes, subprocess, sys
if len(sys.argv) > 1:
    sys.exit(3 if ctypes.CDLL(None).ptrace(0, 0, 0, 0) == -1 else 0)
sys.exit(subprocess.call([sys.executable, sys.argv[0], "grandchild"]))
PY
GRAND='python3 grand.py; exit $?'
run_sbx run --profile standard --approver none --audit "$LOG" -- sh -c "$GRAND"
expect_rc 3 "standard: the grandchild's ptrace refused"
expect_err "^sbx: seccomp refused ptrace \(nr 101\) in pid [0-9]+: rule $POL \(profile strict\) inherited by profile standard \(errno\(EPERM\)\)$" "grandchild: ptrace named with its rule"
audit_has seccomp "^ptrace \(nr 101\) in pid [0-9]+\$" "^$POL \(profile strict\)" "errno(EPERM)" &&
  pass "grandchild: ptrace in the audit log's denials" || fail "grandchild: ptrace not in the audit log"
SBX_TEST_DENIAL_OLD=1 run_sbx run --profile standard --approver none --audit "$LOG" -- sh -c "$GRAND"
audit_none seccomp "^ptrace" 2>/dev/null && pass "negative control: by the command's pid alone the grandchild's refusal is missed" ||
  fail "negative control: the command's pid alone found the grandchild's ptrace"

# 8. The kernel's audit off: nothing to name, and sbx says so.
if [[ $old != 2 ]]; then
  "$KAUDIT" set 0 || fail "cannot switch the kernel's audit off again"
  SBX=$DENIAL_SBX run_sbx run --profile exec-fixture --audit "$LOG" -- ./mytrue
  expect_rc 126 "audit off: ./mytrue still refused"
  expect_err "^sbx: exec: \./mytrue: Permission denied; a refusal by Landlock could not be named: kernel audit disabled" "audit off: exec failure says the refusal could not be named"
  audit_has landlock . . "errno(EACCES)" 2>/dev/null && fail "audit off: a landlock denial was made up" || pass "audit off: no landlock denial guessed"
  # A command failing on its own met nothing sbx knows of: no note unless
  # asked for (-v).
  SBX=$DENIAL_SBX run_sbx run --profile exec-fixture -- sh -c 'exit 1'
  expect_rc 1 "audit off: sh -c 'exit 1'"
  [[ -z $ERR ]] && pass "audit off: a command failing on its own: sbx wrote nothing" || fail "audit off: exit 1: stderr: $ERR"
  SBX=$DENIAL_SBX run_sbx run -v --profile exec-fixture -- env ./mytrue
  expect_err "^sbx: note: refusals by Landlock, if any, could not be named: kernel audit disabled" "audit off: failed command gets the note with -v"
  run_sbx check
  grep -q "landlock no: kernel audit disabled" <<<"$OUT" &&
    pass "check: says landlock refusals cannot be named" || fail "check: $(grep refusals <<<"$OUT")"
  run_sbx check --json
  python3 -c 'import json,sys; n=json.loads(sys.stdin.read())["naming"]; assert n["landlock"] is False and "audit disabled" in n["landlock_reason"], n' <<<"$OUT" &&
    pass "check --json: naming.landlock false with the reason" || fail "check --json: $OUT"
fi
finish
