#!/bin/bash
# workflow_swap: t_swap.c under `sbx run --profile standard`, no approver.
# With the directory lock the file from before the run survives every
# round; without it (the test knob) it is lost, which shows the race the
# test looks for is real.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"
setup() { rm -rf "$ws"; mkdir -p "$ws"; cp "$T_SWAP" "$ws/t_swap"; echo P > "$ws/precious"; }
run() { (cd "$ws" && setsid "$SBX" run --profile standard --workspace "$ws" -- ./t_swap "$ws" "$1" </dev/null); }
setup
[ "$(stat -c %W "$ws/precious")" != 0 ] ||
  { echo "SKIP: the file system of $ws reports no birth times"; exit 77; }
out=$(run 1 2>&1) || { grep -q "not supported by this kernel\|user namespace\|landlock" <<<"$out" &&
  { echo "SKIP: $out"; exit 77; }; fail "t_swap does not run: $out"; }
setup
out=$(run 1500 2>/dev/null); rc=$?
echo "locked: $out"
[ $rc = 0 ] && [ -e "$ws/precious" ] || fail "with the lock: $out"
grep -q "removals refused [1-9]" <<<"$out" || fail "the rename never came first: the race did not run: $out"
# Negative control: without the lock the old file is removed unasked.
hit=0
for attempt in 1 2 3 4 5 6 7 8; do
  setup
  out=$(SBX_TEST_DELETE_NO_DIR_LOCK=1 run 1500 2>/dev/null)
  echo "unlocked: $out"
  grep -q LOST <<<"$out" && { hit=1; break; }
done
[ $hit = 1 ] || fail "negative control: without the lock the race was never won (the test would not catch it)"
echo PASS
