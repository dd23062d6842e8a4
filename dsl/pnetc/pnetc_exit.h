/* pnetc's exit codes. Fixed and documented (docs/pnetc.md): scripts and the
 * CMake helper rely on them. */
#ifndef CS_DSL_PNETC_EXIT_H
#define CS_DSL_PNETC_EXIT_H

enum pnetc_exit {
  PNETC_EXIT_OK = 0,        /* compiled / analysed, every assertion holds */
  PNETC_EXIT_ASSERTION = 1, /* a model assertion does not hold */
  PNETC_EXIT_INPUT = 2,     /* bad input or usage: file:line:col: error: ... */
  PNETC_EXIT_LIMIT = 3,     /* a resource limit (--max-states, memory, BPF size) was reached */
};

#endif
