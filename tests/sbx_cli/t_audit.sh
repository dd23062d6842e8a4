#!/usr/bin/env bash
# The audit log: one JSON line per run with the documented fields
# (docs/audit-log.md), appended by concurrent runs without interleaving,
# and every seccomp denial with the rule behind it.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG="$T/audit.jsonl"

run_sbx run --profile strict --audit "$LOG" -- ls -d "/"
expect_rc 0 "ls under audit"
python3 - "$LOG" "$WS" <<'PY' && pass "record fields" || fail "record fields"
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
r = json.loads(lines[0])
assert r["schema"] == 1
assert re.fullmatch(r"\d+\.\d+\.\d+", r["sbx_version"]), r["sbx_version"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"]), r["time"]
assert r["profile"] == "strict" and r["profile_source"] == "flag"
assert isinstance(r["tier"], str) and r["tier"]
assert r["argv"] == ["ls", "-d", "/"], r["argv"]
assert r["workspace"] == sys.argv[2], r["workspace"]
a = r["admission"]
assert a["admitted"] is True and isinstance(a["wait_ms"], int) and a["wait_ms"] >= 0
assert a["model"]
for k in ("max_execution_ms", "max_memory_bytes", "max_cpu_seconds", "max_processes",
          "max_open_files", "max_file_size", "timeout_ms"):
    assert isinstance(r["limits"][k], int), k
assert r["limits"]["timeout_ms"] == r["limits"]["max_execution_ms"]
res = r["result"]
assert res["outcome"] == "exited" and res["exit_status"] == 0 and res["sbx_exit"] == 0, res
assert res["error"] is None
assert r["denials"] == []
PY

# Environment variable as the log, signal outcome, non-UTF-8 argument.
SBX_AUDIT_LOG="$LOG" run_sbx run --timeout 0.3 -- sleep 5
expect_rc 124 "timed-out run under SBX_AUDIT_LOG"
[[ $(audit_field "$LOG" 'r["result"]["outcome"]') == timed-out ]] && pass "timed-out recorded" || fail "timed-out not recorded"
[[ $(audit_field "$LOG" 'r["result"]["sbx_exit"]') == 124 ]] || fail "sbx_exit not 124"
run_sbx run --audit "$LOG" -- ls "$(printf 'caf\xff')"
[[ $(audit_field "$LOG" 'r["argv"][1]["hex"]') == 636166ff ]] && pass "non-UTF-8 argument as hex" || fail "non-UTF-8 argument lost"
[[ $(stat -c %a "$LOG") == 600 ]] && pass "log mode 0600" || fail "log mode $(stat -c %a "$LOG")"

# With stderr closed the log must not become fd 2 and swallow messages.
"$SBX" run --audit "$LOG" --profile no-such -- true 2>&-
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$LOG" &&
  pass "closed stderr: the log still holds only records" || fail "closed stderr corrupted the log"

# Concurrent runs: every line parses, one per run.
before=$(wc -l <"$LOG")
for i in $(seq 12); do "$SBX" run --audit "$LOG" -- true & done
wait
python3 - "$LOG" "$((before + 12))" <<'PY' && pass "12 concurrent records, all whole" || fail "concurrent records"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == int(sys.argv[2]), (len(lines), sys.argv[2])
for l in lines:
    json.loads(l)
PY

# A system call the strict filter refuses (a kill rule if it has one, else
# an errno rule): the record names the call and the rule behind it, as
# `sbx explain` shows it.
rows=$("$SBX" explain --profile strict | awk '$1 ~ /^[0-9]+$/ && $3 ~ /^(kill|errno)/ && $4 ~ /\.pol:[0-9]/ {print $3, $1, $2, $4}')
row=$(grep '^kill' <<<"$rows" | head -1)
[[ -n $row ]] || row=$(grep -v 'ENOSYS' <<<"$rows" | head -1)
if [[ -z $row ]]; then
  fail "strict refuses no named system call; the denial check cannot run"
elif ! "$SBX" check | grep -Eiq "kernel log.*: readable"; then
  echo "note: the kernel log is not readable; seccomp denials cannot be named" >&2
else
  read -r action nr name rule <<<"$row"
  # The kernel rate-limits its log (printk/audit), and other tests may be
  # filling it at the same moment: a record missing once is retried, a
  # record missing four times, 2 s apart (longer than the kernel's 5 s
  # printk rate-limit window), fails.
  for attempt in 1 2 3 4; do
    run_sbx run --profile strict --audit "$LOG" -- python3 -c "import ctypes; ctypes.CDLL(None).syscall($nr, 0, 0, 0, 0)"
    grep -q "seccomp refused" <<<"$ERR" && break
    echo "note: attempt $attempt: the kernel's record of $name was not found; retrying" >&2
    sleep 2
  done
  case $action in
    kill*) [[ $RC == 159 || $RC == 137 ]] && pass "$name killed the command ($RC)" || fail "$name: exit $RC: $ERR" ;;
    *) expect_rc 0 "$name refused with $action, the command went on" ;;
  esac
  expect_err "seccomp refused $name \\(nr $nr\\) in pid [0-9]+: rule $rule" "stderr names $name, the process and its rule"
  python3 - "$LOG" "$name" "$rule" "$action" <<'PY' && pass "denial of $name with rule $rule ($action)" || fail "denial of $name not recorded"
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
d = [d for d in r["denials"] if d["layer"] == "seccomp"]
assert d, r["denials"]
assert d[0]["what"].startswith(sys.argv[2] + " (nr "), d
assert d[0]["rule"].split()[0] == sys.argv[3], (d, sys.argv[3])
assert d[0]["action"] == sys.argv[4], d
PY
fi
finish
