#!/usr/bin/env bash
# The sandbox's home warm and cold (docs/confinement.md, "Home"): a warm
# template of strict holds the read-only names of the caller's home, shows
# what the cold path shows, and a name replaced (a new ~/.gitconfig, an
# editor's rename), added or turned into a symlink into ~/.ssh after the
# template was made is never served from the old template: the next run
# shows the home as it is now. Never a run with a different view.
SBX_TEST_WARM=1
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
export HOME=$T/home
mkdir -p "$HOME/.ssh"
echo secret-key >"$HOME/.ssh/key"
printf '[user]\n\tname = One\n' >"$HOME/.gitconfig"

# both DESC WANT ARGS...: the command's output, warm then cold, is WANT.
both() {
  local desc=$1 want=$2
  shift 2
  run_sbx run -v --profile strict "$@"
  expect_err "start-up: warm" "$desc: warm"
  [[ $OUT == "$want" ]] && pass "$desc: warm shows '$want'" || fail "$desc: warm shows '$OUT', not '$want'"
  run_sbx run -v --cold --profile strict "$@"
  [[ $OUT == "$want" ]] && pass "$desc: cold shows '$want'" || fail "$desc: cold shows '$OUT', not '$want'"
}
run_sbx run --profile strict -- true # the template
both "~/.gitconfig" "name = One" -- grep -o 'name = One' /tmp/home/.gitconfig

# Replaced by rename (a new inode): the template must not show the old one.
printf '[user]\n\tname = Two\n' >"$HOME/.gitconfig.new"
mv "$HOME/.gitconfig.new" "$HOME/.gitconfig"
run_sbx run -v --profile strict -- cat /tmp/home/.gitconfig
grep -q "name = Two" <<<"$OUT" && pass "a replaced ~/.gitconfig is seen at once" ||
  fail "the run after the replacement shows: $OUT"

# A name added after the template was made.
mkdir -p "$HOME/.config/git"
echo "*.o" >"$HOME/.config/git/ignore"
run_sbx run -v --profile strict -- cat /tmp/home/.config/git/ignore
[[ $OUT == "*.o" ]] && pass "a name added later is shown" || fail "added ~/.config/git/ignore: '$OUT'"
both "~/.config/git/ignore" "*.o" -- cat /tmp/home/.config/git/ignore

# Turned into a symlink into a denied path: shown neither warm nor cold.
rm -r "$HOME/.config/git"
ln -s "$HOME/.ssh" "$HOME/.config/git"
ln -s "$HOME/.ssh/key" "$HOME/.ssh/ignore"
run_sbx run -v --profile strict -- cat /tmp/home/.config/git/ignore
[[ $OUT != *secret* ]] && pass "warm: a name turned into a link into ~/.ssh shows nothing" ||
  fail "warm: the denied key is shown: $OUT"
run_sbx run -v --cold --profile strict -- cat /tmp/home/.config/git/ignore
[[ $OUT != *secret* ]] && pass "cold: the same" || fail "cold: the denied key is shown: $OUT"
warm_check_used
finish
