/* Shared by the escape programs. Each program makes one kind of attempt to
 * leave the sandbox, in several ways, and exits:
 *   0   every attempt was refused (the sandbox held),
 *   10  an attempt succeeded (ESCAPED: the test fails and says which),
 *   2   the program was misused.
 * Being killed (SIGSYS from the seccomp filter) also means "held"; the
 * driver decides which outcomes a test accepts. */
#ifndef ESC_COMMON_H
#define ESC_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int esc_escaped __attribute__((unused));

/* Records the result of one attempt: `ok` true means the sandbox allowed it. */
#define ESC_ATTEMPT(ok, what)                                                                      \
  do {                                                                                             \
    int esc_ok_ = (ok);                                                                            \
    int esc_e_ = errno;                                                                            \
    if (esc_ok_) {                                                                                 \
      fprintf(stderr, "ESCAPED: %s\n", what);                                                      \
      esc_escaped = 1;                                                                             \
    } else                                                                                         \
      fprintf(stderr, "held: %s (%s)\n", what, strerror(esc_e_));                                  \
  } while (0)

#define ESC_DONE() return esc_escaped ? 10 : 0

#define ESC_USAGE(text)                                                                            \
  do {                                                                                             \
    fprintf(stderr, "usage: %s\n", text);                                                          \
    return 2;                                                                                      \
  } while (0)

#endif
