/* pnetc's exit codes. Fixed and documented (docs/pnetc.md): scripts and the
 * CMake helper rely on them.
 *
 * Every input kind (net, policy, OCI profile) maps its failures to a code
 * through the one function below, so the same failure gives the same code
 * whatever was compiled. */
#ifndef CS_DSL_PNETC_EXIT_H
#define CS_DSL_PNETC_EXIT_H

#include <stdio.h>

enum pnetc_exit {
  PNETC_EXIT_OK = 0,        /* compiled / analysed, every assertion holds */
  PNETC_EXIT_ASSERTION = 1, /* a model assertion does not hold */
  PNETC_EXIT_INPUT = 2,     /* bad input or usage: file:line:col: error: ... */
  PNETC_EXIT_LIMIT = 3, /* a resource limit (--max-states, memory, BPF size, disk) was reached */
};

/* The exit code for a negative errno from a front end, an analysis, an
 * emitter or an output file; 0 for 0. */
int pnetc_exit_for(int err);

/* After everything was written to out: flushes standard output and
 * returns 0 or the stream's error, the reason kept (-ENOSPC, -EDQUOT,
 * -EFBIG from errno, else -EIO), so a full disk is a limit (3) whether
 * the output was a named file or standard output. */
int pnetc_output_status(FILE *out);

/* The ending of a failed run: says what went wrong when no one has yet
 * (out of memory; cannot write OUTPUT, NULL meaning standard output) and
 * returns pnetc_exit_for(err). */
int pnetc_fail(int err, const char *output);

#endif
