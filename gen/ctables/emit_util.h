/* emit_util: text helpers shared by the net emitters (internal to cs_emit). */
#ifndef CS_GEN_EMIT_UTIL_H
#define CS_GEN_EMIT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pn_net.h"
#include "pn_analysis.h"

/* A C string literal for s (quotes included); escapes what C would read
 * differently: quote, backslash, '?' (trigraphs), controls and non-ASCII. */
void emit_util_c_string(FILE *out, const char *s);
/* Text safe inside a C block comment: no comment delimiters, no trigraphs,
 * no line breaks; other unusual bytes become '_'. */
size_t emit_util_comment(FILE *out, const char *s); /* returns bytes written */
/* Upper-case C identifier fragment ([A-Z0-9_]); caller frees. */
char *emit_util_upper_ident(const char *s);
/* Makes names[0..n) pairwise distinct by appending _<index> to later
 * duplicates (deterministic). Returns 0 or -ENOMEM. */
int emit_util_uniquify(char **names, uint32_t n);

const char *emit_util_class_name(enum pn_class c);
const char *emit_util_role_name(enum pn_place_role r);
const char *emit_util_kind_name(enum pn_transition_kind k);
const char *emit_util_assert_kind_name(enum pn_assert_kind k);

/* 0 when the stream recorded no write error, else -ENOSPC, -EDQUOT,
 * -EFBIG (from errno) or -EIO. */
int emit_util_stream_status(FILE *out);

#endif
