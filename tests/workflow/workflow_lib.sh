# workflow_lib.sh: what the workflow tests share (sourced). A run as an
# agent host makes it: `sbx run --profile standard`, no terminal (setsid,
# stdin /dev/null), no approver (the default tty approver without a
# terminal denies every question).
#   $SBX   the sbx under test;  $ws the workspace;  $err stderr of the last run
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
run() { setsid "$SBX" run --profile standard --workspace "$ws" "$@" </dev/null; }
# A run that must succeed and leave sbx silent: exit 0, no line of sbx's
# on stderr. `allow` (a regular expression, optional) names lines of the
# tool's own that are expected and said (never an "sbx:" line).
quiet() {
  local what=$1; shift
  local out; out=$(cd "${in_dir:-$ws}" && run -- "$@" 2>"$err"); local rc=$?
  [ $rc = 0 ] || fail "$what: exit $rc: $out $(cat "$err")"
  if [ -n "${allow:-}" ] && grep -Eq "$allow" "$err"; then
    echo "note: $what: the tool said (expected): $(grep -E "$allow" "$err" | head -1)" >&2
    sed -Ei "\\#$allow#d" "$err"
  fi
  [ ! -s "$err" ] || fail "$what: stderr not empty: $(cat "$err")"
  printf '%s' "$out"
}
# The sandbox must run at all, and the deletion rule needs birth times.
workflow_preflight() {
  : > "$ws/probe"
  [ "$(stat -c %W "$ws/probe")" != 0 ] && [ "$(stat -c %W "$ws/probe")" != "-" ] ||
    skip "$(df -T "$ws" | tail -1 | awk '{print $2}') does not report birth times (statx btime): every removal is asked there"
  rm "$ws/probe"
  local out rc
  out=$(cd "$ws" && run -- /bin/true 2>&1); rc=$?
  if [ $rc != 0 ]; then
    grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" && skip "$out"
    fail "standard does not run at all: $out"
  fi
}
# git with an identity: the sandbox sees none of the host's configuration
# (HOME is its own), and without one git asks the resolver for the host
# name (a connect sbx refuses and names).
G="git -c user.name=t -c user.email=t@example.invalid"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t \
  GIT_COMMITTER_EMAIL=t@example.invalid
