/* sbx_diag: where sbx's own messages of a run go (grep tag: SBX_DIAG).
 *
 * One stream per process: stderr unless the command line set another
 * (`sbx run --diag-fd N`, runtime/cli). Every layer of a run writes its
 * warnings and refusals here, never to stderr directly, so that a caller
 * that asked for it gets on descriptor 2 the command's output alone. */
#ifndef CS_RUNTIME_SBX_DIAG_H
#define CS_RUNTIME_SBX_DIAG_H

#include <stdio.h>

/* The stream set by sbx_diag_set, else stderr; never NULL. */
FILE *sbx_diag(void);
/* Sets it (NULL: stderr again). Not thread-safe: set before a run. */
void sbx_diag_set(FILE *stream);

#endif
