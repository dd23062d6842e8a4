/* diag: source files and compiler diagnostics shared by every pnetc front end.
 *
 * A diagnostic is printed as
 *     file:line:col: error: message
 *      source line
 *           ^
 * so editors can jump to it and a reader sees the offending text. Columns are
 * 1-based and count bytes; a tab in the source line is copied into the caret
 * line so the caret stays under the right character. */
#ifndef CS_DSL_DIAG_H
#define CS_DSL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A whole source file held in memory, so diagnostics can quote any line. */
struct diag_source {
  char *path;          /* as given on the command line or in an include */
  char *text;          /* NUL-terminated contents */
  size_t length;       /* bytes in text, without the NUL */
  size_t *line_starts; /* offset of each line's first byte */
  size_t line_count;
};

/* Position of a construct in a source file. file points into a
 * diag_source that outlives every location taken from it. */
struct diag_loc {
  const struct diag_source *file;
  int line; /* 1-based; 0 when the position is unknown */
  int col;  /* 1-based */
};

/* Loads path; on failure prints "path: error: <strerror>" and returns NULL.
 * included_from, when not NULL, is the include directive that asked for it. */
struct diag_source *diag_source_load(const char *path, const struct diag_loc *included_from);
/* Wraps an in-memory buffer (used by the fuzz harnesses); copies it. */
struct diag_source *diag_source_from_memory(const char *name, const char *data, size_t length);
void diag_source_free(struct diag_source *src);

/* Where diagnostics go (stderr unless a test redirects them). */
void diag_set_stream(FILE *stream);
/* Counts errors but prints nothing (fuzz harnesses: diagnostics are not
 * what they test, and printing them would dominate the run). */
void diag_set_quiet(bool quiet);
FILE *diag_stream(void);

/* Prints an error with the quoted line and a caret. Returns nothing: the
 * caller decides the exit code (see dsl/pnetc_exit.h). */
void diag_error(const struct diag_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void diag_verror(const struct diag_loc *loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* A note attached to the previous error (e.g. "previous definition is here"). */
void diag_note(const struct diag_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A warning; never changes the exit code. */
void diag_warning(const struct diag_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Number of errors printed since the last diag_reset(). */
unsigned diag_error_count(void);
void diag_reset(void);

#endif
