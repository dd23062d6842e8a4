/* c_text: text that goes into generated C and other generated files, for
 * every emitter of gen/: string literals, comment text, identifiers, and
 * the error state of the stream written to.
 *
 * Why one helper: the emitted files are compiled and read by auditors; a
 * name from a model or a policy must not end a comment early, form a
 * trigraph or change meaning inside a literal, whichever emitter writes it. */
#ifndef CS_GEN_C_TEXT_H
#define CS_GEN_C_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A C string literal for s (quotes included); escapes what C would read
 * differently: quote, backslash, '?' (trigraphs), controls and non-ASCII.
 * NULL is written as NULL (the pointer, unquoted). */
void text_c_string(FILE *out, const char *s);
/* Text safe inside a C block comment: a blank breaks up every "*" "/" and
 * "/" "*" pair, the second '?' of "??" becomes '_' (no trigraph), and
 * controls (line breaks included), backslashes and bytes outside
 * printable ASCII become '_'. */
size_t text_c_comment(FILE *out, const char *s); /* returns bytes written */
/* Upper-case C identifier fragment ([A-Z0-9_]); caller frees. */
char *text_upper_ident(const char *s);
/* Makes names[0..n) pairwise distinct by appending _<index> to later
 * duplicates (deterministic). Returns 0 or -ENOMEM. */
int text_uniquify(char **names, uint32_t n);

/* The identifier a model or policy file yields: the file name without
 * directory and extension, every byte outside [A-Za-z0-9_] replaced by
 * '_', and a '_' prepended when it starts with a digit (CMake's
 * MAKE_C_IDENTIFIER, so the build knows the generated file names in
 * advance). Caller frees. */
char *text_model_ident(const char *path);

/* 0 when the stream recorded no write error, else -ENOSPC, -EDQUOT,
 * -EFBIG (from errno) or -EIO. */
int text_stream_status(FILE *out);

#endif
