/* pnet: the .pnet language front end (docs/pnet-language.md).
 *
 * Reads a model, expands constants, families and includes, checks names,
 * arcs and assertions, and lowers it to the fully resolved struct pn_net.
 * Every problem is printed through dsl/diag.h as file:line:col with the
 * source line and a caret; the functions then return NULL and the caller
 * exits with PNETC_EXIT_INPUT. */
#ifndef CS_DSL_PNET_H
#define CS_DSL_PNET_H

#include <stddef.h>

#include "pn_net.h"

/* Parses the model in path (includes are resolved relative to the file
 * that names them). Returns NULL after printing diagnostics. */
struct pn_net *pnet_parse_file(const char *path);

/* Parses an in-memory model; name is used in diagnostics and as the base
 * for relative includes. text need not be NUL-terminated. For the fuzz
 * harness and tests. */
struct pn_net *pnet_parse_memory(const char *name, const char *text, size_t len);

#endif
