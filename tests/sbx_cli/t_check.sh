#!/usr/bin/env bash
# sbx check: the kernel features and, for every profile of the table,
# whether it can be enforced here; consistent with what sbx run does.
source "$SBX_TEST_DIR/lib.sh"

run_sbx check
expect_rc 0 "sbx check"
for word in landlock seccomp namespace cgroup; do
  grep -qi "$word" <<<"$OUT" && pass "check reports $word" || fail "check lacks $word"
done
grep -q "^Profiles" <<<"$OUT" || fail "no profile section"
grep -q "^  strict " <<<"$OUT" && pass "strict listed" || fail "strict not listed"
grep -Eq "^[0-9]+ of [0-9]+ profiles can be enforced" <<<"$OUT" || fail "no summary line"

# What check says must match what run does, profile by profile.
while read -r name verdict; do
  run_sbx run --profile "$name" -- true
  if [[ $verdict == enforceable ]]; then
    expect_rc 0 "$name: check says enforceable, run works"
  else
    expect_rc 125 "$name: check says not enforceable, run refuses"
  fi
done < <(awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {v=($0 ~ /NOT enforceable/) ? "not" : "enforceable"; print $1, v}' <<<"$OUT")

# The admission section: every tier with the slots the table gives it (the
# same count sbx_slots walks independently), and the state file's status.
SBX_STATE_DIR="$T/fresh" run_sbx check
grep -q "^Admission (model '$("$SBX_SLOTS" model)'" <<<"$OUT" && pass "admission section" || fail "no admission section"
while read -r tier n; do
  want=$("$SBX_SLOTS" capacity "$tier")
  [[ $n == "$want" ]] && pass "tier $tier: $n at once" || fail "tier $tier: check says $n, table walk $want"
done < <(awk '/^  tier / {print $2, $3}' <<<"$OUT")
grep -q "not created yet" <<<"$OUT" && pass "fresh state reported as not created" || fail "fresh state: $OUT"
"$SBX" run -- true
run_sbx check
grep -Eq "state: .*: state 0, 0 holder\(s\), 0 waiter\(s\)" <<<"$OUT" && pass "state after a run: idle" || fail "state after a run: $OUT"
head -c 20000 /dev/urandom >"$SBX_STATE_DIR/$("$SBX_SLOTS" model).state"
run_sbx check
grep -q "UNUSABLE" <<<"$OUT" && pass "garbage state reported unusable" || fail "garbage state not reported"

# --json: the same facts, machine-readable and consistent with the text.
run_sbx check
text=$OUT
run_sbx check --json
expect_rc 0 "check --json"
python3 - "$text" "$OUT" "$SBX_SLOTS" <<'PY' && pass "check --json agrees with check" || fail "check --json disagrees"
import json, re, subprocess, sys
text, j, slots = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
assert j["schema"] == 1
assert isinstance(j["kernel"]["landlock_abi"], int)
m = re.search(r"landlock: ABI (\d+)", text)
assert m is None or int(m.group(1)) == j["kernel"]["landlock_abi"], (m, j["kernel"]["landlock_abi"])
rows = re.findall(r"^  (\S+) +(\S+) +(enforceable|NOT enforceable)", text, re.M)
assert [(r[0], r[2] == "enforceable") for r in rows] == \
       [(p["name"], p["enforceable"]) for p in j["profiles"]], (rows, j["profiles"])
for t in j["admission"]["tiers"]:
    want = int(subprocess.run([slots, "capacity", t["name"]], capture_output=True, text=True).stdout)
    assert t["slots"] == want, (t, want)
assert j["admission"]["state"]["path"].endswith(j["admission"]["model"] + ".state")
PY

run_sbx check --profile strict
expect_rc 125 "check takes no option"
finish
