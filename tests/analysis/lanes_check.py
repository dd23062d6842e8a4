#!/usr/bin/env python3
"""Checks the analysis of the lane models against an independent count.

  lanes_check.py PNETC DEFAULT.pnet TWO_STEP.pnet

models/default.pnet takes a lane slot and a tier slot in one admission, so
its reachable markings are exactly the matrices x[lane][tier] >= 0 whose row
sums stay within the lane widths and whose column sums stay within the tier
slots: counted here by enumeration from the two families in the model text,
not by the analysis. The analysis must agree, find no dead and no unsafe
marking, and keep every reachable marking in the safe set.
tests/models/lanes_two_step.pnet takes them one after the other in opposite
orders: the analysis must find dead markings and unsafe markings leading to
them, and leave both out of the safe set the table is built from."""
import functools
import json
import re
import subprocess
import sys


def family(text, name):
    m = re.search(r"family\s+%s\s*=\s*\{([^}]*)\}" % name, text)
    if not m:
        sys.exit("FAIL: no family %s" % name)
    return [int(v) for _, v in re.findall(r"(\w+)\s*:\s*(\d+)", m.group(1))]


def count(lanes, tiers):
    @functools.lru_cache(None)
    def by_tier(t, room):
        if t == len(tiers):
            return 1
        return split(t, 0, tiers[t], room)

    def split(t, lane, left, room):
        if lane == len(lanes):
            return by_tier(t + 1, room)
        total = 0
        for x in range(min(left, room[lane]) + 1):
            rest = room[:lane] + (room[lane] - x,) + room[lane + 1:]
            total += split(t, lane + 1, left - x, rest)
        return total

    return by_tier(0, tuple(lanes))


def report(pnetc, model):
    out = subprocess.run([pnetc, "--check", "--json", model], capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    pnetc, default, two_step = sys.argv[1:4]
    fail = False
    text = open(default).read()
    want = count(family(text, "lanes"), family(text, "tiers"))
    d = report(pnetc, default)
    print("default: analysis %d markings, independent count %d; classes %s; safe set %d"
          % (d["states"], want, d["classes"], d["safe_set"]))
    if d["states"] != want:
        print("FAIL: the analysis and the independent count differ")
        fail = True
    if d["deadlocks"] != 0 or d["classes"]["unsafe"] != 0 or d["safe_set"] != d["states"]:
        print("FAIL: default.pnet must have no dead and no unsafe marking, all markings safe")
        fail = True
    t = report(pnetc, two_step)
    c = t["classes"]
    print("two-step: %d markings, classes %s, safe set %d" % (t["states"], c, t["safe_set"]))
    if t["deadlocks"] == 0 or c["unsafe"] == 0:
        print("FAIL: taking the lane and the tier in opposite orders must create dead and "
              "unsafe markings")
        fail = True
    if t["safe_set"] != t["states"] - c["unsafe"] - c["deadlock"]:
        print("FAIL: the safe set must leave out exactly the unsafe and dead markings")
        fail = True
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
