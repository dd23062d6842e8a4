#!/usr/bin/env bash
# --help and the man page document every exit status; the man page renders
# without warnings.
source "$SBX_TEST_DIR/lib.sh"

run_sbx --help
expect_rc 0 "--help"
for code in 124 125 126 127 "128\+N"; do
  grep -Eq "^  $code " <<<"$OUT" && pass "--help lists $code" || fail "--help lacks exit status $code"
done
grep -q "COMMANDER_SECURITY_PROFILE" <<<"$OUT" || fail "--help lacks COMMANDER_SECURITY_PROFILE"

man1="$SBX_SRC/docs/sbx.1"
[[ -f $man1 ]] || fail "docs/sbx.1 missing"
for code in 124 125 126 127 "128\+N"; do
  grep -Eq "^\.B $code$|^$code" "$man1" || fail "sbx.1 lacks exit status $code"
done
if command -v man >/dev/null; then
  warn=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$man1" 2>&1 >/dev/null)
  [[ -z $warn ]] && pass "sbx.1 renders cleanly" || fail "sbx.1 warnings: $warn"
fi

run_sbx
expect_rc 125 "no command"
run_sbx frob
expect_rc 125 "unknown command"
expect_err "unknown command 'frob'" "names the unknown command"
run_sbx run --bogus -- true
expect_rc 125 "unknown option"
run_sbx --version
expect_rc 0 "--version"
finish
