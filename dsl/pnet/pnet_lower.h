/* pnet_lower: turns the syntax trees of a model and its includes into a
 * struct pn_net, checking every name, arc and assertion. Internal. */
#ifndef CS_DSL_PNET_LOWER_H
#define CS_DSL_PNET_LOWER_H

#include <stddef.h>

#include "pn_net.h"

struct pnet_lower;

struct pnet_lower *pnet_lower_new(void);
/* Reads, parses and lowers the main file (from disk, or text when not
 * NULL). Errors are printed; see pnet_lower_finish. */
void pnet_lower_main(struct pnet_lower *lw, const char *path, const char *text, size_t len);
/* Resolves completions, adds the implicit assertions and hands over the
 * net, or returns NULL when any error was reported. Frees lw. */
struct pn_net *pnet_lower_finish(struct pnet_lower *lw);

#endif
