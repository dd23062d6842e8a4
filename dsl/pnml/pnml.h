/* pnml: reader for ISO/IEC 15909-2 PNML place/transition nets
 * (docs/analysis.md, "PNML input").
 *
 * Every place is tracked (PNML has no notion of environment places), no
 * place has a capacity, and a transition is an admission when its id or
 * its <name> starts with "admit_"; every other transition is a progress
 * step. The net gets one implicit assertion: no reachable dead marking. */
#ifndef CS_DSL_PNML_H
#define CS_DSL_PNML_H

#include "pn_net.h"

/* Reads the first and only <net> of the file. Returns NULL after printing
 * file:line:col: error: ... (line numbers from libxml2). */
struct pn_net *pnml_parse_file(const char *path);

/* Same, from memory (tests, fuzzing); name is used in diagnostics. */
struct pn_net *pnml_parse_memory(const char *name, const char *data, size_t length);

#endif
