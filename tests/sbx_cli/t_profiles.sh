#!/usr/bin/env bash
# Profile precedence: --profile > COMMANDER_SECURITY_PROFILE > strict; an
# unknown or empty name is exit 125 with a message, never a fallback. The
# audit record says which profile ran and where the choice came from.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
LOG="$T/audit.jsonl"

# A second profile to tell the sources apart: any one that is not strict.
other=$("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ && $1!="strict" {print $1; exit}')
[[ -n $other ]] || { fail "sbx check lists no profile besides strict"; finish; }

check_choice() { # WANT_PROFILE WANT_SOURCE DESCRIPTION
  local got src
  got=$(audit_field "$LOG" 'r["profile"]')
  src=$(audit_field "$LOG" 'r["profile_source"]')
  [[ $got == "$1" && $src == "$2" ]] && pass "$3: $got from $src" || fail "$3: got $got from $src, want $1 from $2"
}

run_sbx run --audit "$LOG" -- true
expect_rc 0 "default"
check_choice strict default "no flag, no env"

COMMANDER_SECURITY_PROFILE=$other run_sbx run --audit "$LOG" -- true
expect_rc 0 "env"
check_choice "$other" env "env only"

COMMANDER_SECURITY_PROFILE=$other run_sbx run --profile strict --audit "$LOG" -- true
expect_rc 0 "flag and env"
check_choice strict flag "flag beats env"

alias=$("$SBX" explain --profile strict | sed -n 's/^Profile strict (alias \(.*\))$/\1/p')
if [[ -n $alias ]]; then
  run_sbx run --profile "$alias" --audit "$LOG" -- true
  expect_rc 0 "alias $alias"
  check_choice strict flag "alias $alias selects strict"
fi

n=$(wc -l <"$LOG")
run_sbx run --profile no-such-profile --audit "$LOG" -- touch "$WS/marker"
expect_rc 125 "unknown --profile"
expect_err "unknown profile 'no-such-profile' \(from --profile\); no fallback" "message names the profile"
[[ $(wc -l <"$LOG") == $((n + 1)) ]] && pass "the refusal is recorded" || fail "no record of the refusal"
[[ $(audit_field "$LOG" 'r["profile"], r["result"]["outcome"], r["result"]["error"]') == "(None, 'not-run', \"unknown profile 'no-such-profile' (from flag)\")" ]] &&
  pass "record: no profile, not run, the name asked for" || fail "record: $(tail -1 "$LOG")"
COMMANDER_SECURITY_PROFILE=Strict run_sbx run -- touch "$WS/marker"
expect_rc 125 "unknown env profile (case matters)"
expect_err "from COMMANDER_SECURITY_PROFILE" "message names the variable"
COMMANDER_SECURITY_PROFILE= run_sbx run -- touch "$WS/marker"
expect_rc 125 "empty env profile"
COMMANDER_SECURITY_PROFILE=no-such-profile run_sbx run --profile strict --audit "$LOG" -- true
expect_rc 0 "a bad env value does not matter when --profile is given"
[[ ! -e $WS/marker ]] && pass "nothing ran for a bad profile" || fail "a command ran under a bad profile"
finish
