#!/bin/bash
# approvals_budget: the supervisor's work for a run is charged to the run
# (runtime/sbx_unotify_charge.c). 16 threads call unlink("missing") (each
# call is a probe helper the supervisor forks, as under sbx):
#   1. with a CPU budget of 50 ms the calls are refused with EPERM once it
#      is spent, and sbx says so; negative control: without a budget the
#      same workload is never refused;
#   2. with --helper-cgroup the helpers run in that cgroup: its cpu.stat
#      counts their CPU; negative control: a cgroup not given to the
#      supervisor counts nothing for the same workload.
# No timing is asserted: the workload is a number of calls.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d /tmp/approvals_budget.XXXXXX) || exit 1
cg=""
# A cgroup whose last task just exited can stay busy for a moment.
cleanup() {
  rm -rf "$tmp"
  [ -n "$cg" ] || return 0
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    rmdir "$cg"/a "$cg"/b "$cg" 2>/dev/null; [ -d "$cg" ] || return 0; sleep 0.2
  done
  echo "note: could not remove $cg"
}
trap cleanup EXIT
# 1600 calls: a few hundred milliseconds of supervisor CPU at the least,
# many times the 50 ms budget.
run() { "$UNOTIFY_RUN" --private-tmp "$@" none delete -- "$T_BUDGET" 16 100 "$tmp"; }

out=$("$UNOTIFY_RUN" none delete -- /bin/true 2>&1)
[ $? = 77 ] && { echo "SKIP: $out"; exit 77; }

out=$(run --cpu-budget-ms 50 2>"$tmp/err") || fail "budget run: $out"
grep -q "^refused after" <<<"$out" || fail "the budget never refused: $out $(cat "$tmp/err")"
grep -q "supervisor spent the run's CPU budget" "$tmp/err" || fail "no message: $(cat "$tmp/err")"
echo "budget 50 ms: $out" | head -1
out=$(run 2>"$tmp/err") || fail "unbounded run: $out"
grep -q "^never refused" <<<"$out" || fail "negative control: refused without a budget: $out"
grep -q "^other errors: 0" <<<"$out" || fail "unexpected results: $out"
echo "no budget (negative control): $out" | head -1

# 2. cgroup v2 (cpu.stat exists in every v2 cgroup, with or without the
#    cpu controller): the unified hierarchy or a hybrid's unified mount.
base=""
for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
  [ "$(stat -f -c %T "$m" 2>/dev/null)" = cgroup2fs ] && { base=$m; break; }
done
[ -n "$base" ] || { echo "note: no cgroup v2 here; cgroup part skipped"; echo PASS; exit 0; }
self=$(sed -n 's/^0:://p' /proc/self/cgroup)
cg="$base${self%/}/approvals-budget-$$"
if ! mkdir -p "$cg/a" "$cg/b" 2>/dev/null; then
  cg=""; echo "note: cannot create a cgroup under $base$self; cgroup part skipped"; echo PASS; exit 0
fi
usage() { sed -n 's/^usage_usec //p' "$1/cpu.stat"; }
out=$(run --helper-cgroup "$cg/a" 2>"$tmp/err") || fail "cgroup run: $out $(cat "$tmp/err")"
grep -q "^never refused" <<<"$out" && grep -q "^other errors: 0" <<<"$out" || fail "cgroup run: $out"
a=$(usage "$cg/a"); b=$(usage "$cg/b")
[ "$a" -gt 0 ] || fail "the helpers' CPU is not in the run's cgroup (usage_usec $a)"
[ "$b" = 0 ] || fail "negative control: an unused cgroup counted $b usec"
echo "helpers in the cgroup: usage_usec $a; an unused cgroup: $b"
echo PASS
