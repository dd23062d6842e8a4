#!/usr/bin/env bash
# Checks the P-semiflows verify/statespace/pn_semiflow.c finds on a published
# benchmark net against the net's own definition (docs/analysis.md,
# "Structural bounds"), independently of verify/: every row is checked to
# be a semiflow of the net as tests/analysis/gen_nets.py defines it, the
# supports to be minimal, every 0/1 semiflow (brute force, nets of up to
# 16 places) to contain a row's support, and each place's bound to equal
# the largest count the exploration reached (these nets are structurally
# tight: Kanban every place N, FMS the parts places N and the machines
# 3, 1 and 2, Philosophers 1); the exploration must not have widened a field.
#   semiflow_check.sh PN_STAT GEN_NETS MODEL N
set -euo pipefail
pn_stat=$1 gen=$2 model=$3 n=$4
source "$(dirname "$0")/net_lib.sh"
net_setup "$gen" "$model" "$n"
net_stat "$pn_stat" "$tmp/out"
[[ $rc == 0 || $rc == 1 ]] || { cat "$tmp/out"; echo "FAIL: pn_stat exit $rc"; exit 1; }
python3 - "$gen" "$model" "$n" "$tmp/out" <<'PY'
import importlib.util, itertools, sys
gen, model, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
spec = importlib.util.spec_from_file_location("gen_nets", gen)
g = importlib.util.module_from_spec(spec)
spec.loader.exec_module(g)
_, places, trans = getattr(g, model)(n)
names = [p for p, _ in places]
init = dict(places)
kv = {}
rows = []
for line in open(out):
    k, _, v = line.rstrip("\n").partition("=")
    if k.startswith("semiflow."):
        rows.append({p: int(c) for p, c in (t.split(":") for t in v.split())})
    else:
        kv[k] = v
fail = []
def is_semiflow(y):
    return all(sum(y.get(p, 0) * (post.get(p, 0) - pre.get(p, 0)) for p in names) == 0
               for _, pre, post in trans)
if int(kv["semiflows"]) != len(rows) or not rows:
    fail.append("no semiflows, or not as many rows as announced")
for y in rows:
    if not is_semiflow(y) or min(y.values()) <= 0:
        fail.append("not a semiflow: %s" % y)
supports = [frozenset(y) for y in rows]
for a, b in itertools.permutations(range(len(rows)), 2):
    if supports[a] <= supports[b]:
        fail.append("support of row %d inside row %d's" % (a, b))
if len(names) <= 16:
    for bits in range(1, 1 << len(names)):
        y = {p: 1 for i, p in enumerate(names) if bits >> i & 1}
        if is_semiflow(y) and not any(s <= set(y) for s in supports):
            fail.append("0/1 semiflow %s contains no row's support" % sorted(y))
for p in names:
    seen, bound = map(int, kv["bound." + p].split())
    # The bound proven by the rows, recomputed here.
    proven = min((sum(c * init[q] for q, c in y.items()) // y[p] for y in rows if p in y), default=-1)
    if not (seen == bound == proven):
        fail.append("%s: reached %d, semiflow bound %d, recomputed %d" % (p, seen, bound, proven))
if kv["reencodes"] != "0":
    fail.append("the exploration widened a field %s times" % kv["reencodes"])
print("%s N=%d: %d semiflows, %d places, %d failures" % (model, n, len(rows), len(names), len(fail)))
for f in fail[:20]:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
PY
