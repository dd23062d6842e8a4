/* sbx_explain: `sbx explain`, what a profile enforces in plain words. The
 * text is generated from the very table sbx enforces (cs_profile), never
 * from separate documentation, so it cannot drift from what runs. The
 * output is deterministic (no dates, no host facts): it is compared with a
 * golden file in tests/sbx_cli. */
#ifndef CS_RUNTIME_SBX_EXPLAIN_H
#define CS_RUNTIME_SBX_EXPLAIN_H

#include <stdio.h>

#include "cs_profile_table.h"

void sbx_explain(FILE *out, const struct cs_profile *p);

/* "1 GiB", "512 MiB", "1000 bytes": a byte count in words. Into buf. */
const char *sbx_explain_bytes(char *buf, size_t size, uint64_t bytes);

#endif
