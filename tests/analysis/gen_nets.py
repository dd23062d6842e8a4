#!/usr/bin/env python3
"""Writes published benchmark Petri nets as PNML (ISO/IEC 15909-2 P/T nets).

  gen_nets.py kanban N        Kanban system (Ciardo & Tilgner 1996; MCC "Kanban")
  gen_nets.py philosophers N  dining philosophers (MCC "Philosophers")
  gen_nets.py fms N           flexible manufacturing system (Ciardo & Trivedi 1993; MCC "FMS")

Structures are written from the published model descriptions; the tests
check the reachable-marking counts against the published figures
(docs/analysis.md, "Benchmark nets"). Output goes to stdout, or to -o FILE.
"""
import argparse
import sys
from xml.sax.saxutils import quoteattr


def kanban(n):
    places = []
    trans = []
    for i in range(1, 5):
        places += [("Pm%d" % i, 0), ("Pback%d" % i, 0), ("Pout%d" % i, 0), ("P%d" % i, n)]
    for i in range(1, 5):
        # A part in machine i is either fine (ok) or must be redone.
        trans.append(("tok%d" % i, {"Pm%d" % i: 1}, {"Pout%d" % i: 1}))
        trans.append(("tredo%d" % i, {"Pm%d" % i: 1}, {"Pback%d" % i: 1}))
        trans.append(("tback%d" % i, {"Pback%d" % i: 1}, {"Pm%d" % i: 1}))
    trans.append(("tin1", {"P1": 1}, {"Pm1": 1}))
    trans.append(("tsynch1_23", {"Pout1": 1, "P2": 1, "P3": 1}, {"P1": 1, "Pm2": 1, "Pm3": 1}))
    trans.append(("tsynch4_23", {"Pout2": 1, "Pout3": 1, "P4": 1}, {"P2": 1, "P3": 1, "Pm4": 1}))
    trans.append(("tout4", {"Pout4": 1}, {"P4": 1}))
    return "Kanban-%d" % n, places, trans


def philosophers(n):
    places = []
    trans = []
    for i in range(n):
        places += [("Think_%d" % i, 1), ("Fork_%d" % i, 1), ("Catch1_%d" % i, 0),
                   ("Catch2_%d" % i, 0), ("Eat_%d" % i, 0)]
    for i in range(n):
        left, right = "Fork_%d" % i, "Fork_%d" % ((i + 1) % n)
        trans.append(("FF1a_%d" % i, {"Think_%d" % i: 1, left: 1}, {"Catch1_%d" % i: 1}))
        trans.append(("FF1b_%d" % i, {"Think_%d" % i: 1, right: 1}, {"Catch2_%d" % i: 1}))
        trans.append(("FF2a_%d" % i, {"Catch1_%d" % i: 1, right: 1}, {"Eat_%d" % i: 1}))
        trans.append(("FF2b_%d" % i, {"Catch2_%d" % i: 1, left: 1}, {"Eat_%d" % i: 1}))
        trans.append(("End_%d" % i, {"Eat_%d" % i: 1}, {"Think_%d" % i: 1, left: 1, right: 1}))
    return "Philosophers-%d" % n, places, trans


def fms(n):
    names = ["P1", "P1wM1", "P1M1", "M1", "P1d", "P1s", "P1wP2",
             "P2", "P2wM2", "P2M2", "M2", "P2d", "P2s", "P2wP1",
             "P12", "P12wM3", "P12M3", "M3", "P12s",
             "P3", "P3M2", "P3s"]
    init = {"P1": n, "P2": n, "P3": n, "M1": 3, "M2": 1, "M3": 2}
    places = [(p, init.get(p, 0)) for p in names]
    t = [
        ("tP1", {"P1": 1}, {"P1wM1": 1}),
        ("tM1", {"P1wM1": 1, "M1": 1}, {"P1M1": 1}),
        ("tP1M1", {"P1M1": 1}, {"M1": 1, "P1d": 1}),
        ("tP1e", {"P1d": 1}, {"P1s": 1}),
        ("tP1j", {"P1d": 1}, {"P1wP2": 1}),
        ("tP1s", {"P1s": 1}, {"P1": 1}),
        ("tP2", {"P2": 1}, {"P2wM2": 1}),
        ("tM2", {"P2wM2": 1, "M2": 1}, {"P2M2": 1}),
        ("tP2M2", {"P2M2": 1}, {"M2": 1, "P2d": 1}),
        ("tP2e", {"P2d": 1}, {"P2s": 1}),
        ("tP2j", {"P2d": 1}, {"P2wP1": 1}),
        ("tP2s", {"P2s": 1}, {"P2": 1}),
        ("tx", {"P1wP2": 1, "P2wP1": 1}, {"P12": 1}),
        ("tP12", {"P12": 1}, {"P12wM3": 1}),
        ("tM3", {"P12wM3": 1, "M3": 1}, {"P12M3": 1}),
        ("tP12M3", {"P12M3": 1}, {"M3": 1, "P12s": 1}),
        ("tP12s", {"P12s": 1}, {"P1": 1, "P2": 1}),
        # Type-3 parts are machined on M2 only while it is idle (a read arc:
        # M2 is tested, not held), which is what gives the published counts.
        ("tP3", {"P3": 1}, {"P3M2": 1}),
        ("tP3M2", {"P3M2": 1, "M2": 1}, {"M2": 1, "P3s": 1}),
        ("tP3s", {"P3s": 1}, {"P3": 1}),
    ]
    return "FMS-%d" % n, places, t


def pnml(name, places, trans):
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">',
           '  <net id=%s type="http://www.pnml.org/version-2009/grammar/ptnet">' % quoteattr(name),
           '    <name><text>%s</text></name>' % name,
           '    <page id="page0">']
    for p, m in places:
        out.append('      <place id=%s><name><text>%s</text></name>' % (quoteattr(p), p))
        if m:
            out.append('        <initialMarking><text>%d</text></initialMarking>' % m)
        out.append('      </place>')
    for tn, _, _ in trans:
        out.append('      <transition id=%s><name><text>%s</text></name></transition>' % (quoteattr(tn), tn))
    k = 0
    for tn, pre, post in trans:
        for p, w in sorted(pre.items()):
            out.append('      <arc id="a%d" source=%s target=%s>%s</arc>' % (
                k, quoteattr(p), quoteattr(tn), weight(w)))
            k += 1
        for p, w in sorted(post.items()):
            out.append('      <arc id="a%d" source=%s target=%s>%s</arc>' % (
                k, quoteattr(tn), quoteattr(p), weight(w)))
            k += 1
    out += ['    </page>', '  </net>', '</pnml>', '']
    return "\n".join(out)


def weight(w):
    return "" if w == 1 else "<inscription><text>%d</text></inscription>" % w


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=["kanban", "philosophers", "fms"])
    ap.add_argument("n", type=int)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.n < 1:
        ap.error("N must be >= 1")
    text = pnml(*{"kanban": kanban, "philosophers": philosophers, "fms": fms}[a.model](a.n))
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
