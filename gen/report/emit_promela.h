/* emit_promela: the net as a Promela model for Spin, so deadlock freedom
 * can be confirmed by an independent tool (docs/analysis.md, "Spin").
 *
 * One process fires one enabled transition per atomic step; a marking in
 * which nothing is enabled blocks the process outside a valid end state,
 * so Spin's invalid-end-state check reports exactly the dead markings.
 * Environment places are abstracted as in the analysis: a source never
 * guards a transition and a sink is not represented. Every tracked place
 * is a byte (or an int when its initial marking or capacity exceeds 255)
 * and every increment asserts that it does not overflow, so a wrap-around
 * shows up as an assertion violation instead of a wrong state count. */
#ifndef CS_GEN_EMIT_PROMELA_H
#define CS_GEN_EMIT_PROMELA_H

#include <stdio.h>

#include "pn_net.h"

/* 0, -EIO on a write error. Deterministic: same net, same bytes. */
int emit_promela(FILE *out, const struct pn_net *net);

#endif
