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
done < <(awk '/^Profiles/ {p=1; next} p && /^  [^ ]/ {v=($0 ~ /NOT enforceable/) ? "not" : "enforceable"; print $1, v}' <<<"$OUT")

run_sbx check --profile strict
expect_rc 125 "check takes no option"
finish
