/* warm_fp PROFILE: prints the warm-start fingerprint of a built-in
 * profile (sbx_profile_fingerprint), so that tests/warm can hand-craft
 * requests the server takes for its own build's (tests/warm/client.py).
 * Exit 2 for an unknown profile. */
#include <inttypes.h>
#include <stdio.h>

#include "profiles.h"
#include "sbx_warm.h"

int main(int argc, char **argv)
{
  const struct cs_profile *p = argc == 2 ? cs_profile_find(argv[1]) : NULL;
  if (!p) {
    fprintf(stderr, "usage: warm_fp PROFILE (a built-in profile)\n");
    return 2;
  }
  printf("%" PRIu64 "\n", sbx_profile_fingerprint(p));
  return 0;
}
