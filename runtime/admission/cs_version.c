/* cs_version: which library a program runs with (cs_version.h). Part of
 * libcs_runtime, the library every embedder links. */
#include "cs_version.h"

const char *cs_version(void)
{
  return CS_VERSION;
}

long cs_version_number(void)
{
  return CS_VERSION_NUMBER;
}
