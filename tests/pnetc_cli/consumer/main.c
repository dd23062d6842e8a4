/* consumer: admits work through the generated table until the runtime
 * refuses, and prints how many runs were admitted at once. */
#include <stdio.h>

#include "commander.h"
#include "slots.h"

int main(void) {
  struct cs_sched *sched = NULL;
  struct cs_ticket tickets[64];
  int rc = cs_sched_create(&cs_model_slots, NULL, &sched);
  if (rc != 0) {
    fprintf(stderr, "cs_sched_create: %s\n", cs_strerror(rc));
    return 1;
  }
  int admit = cs_sched_lookup_admission(sched, "admit");
  if (admit < 0) return 1;
  unsigned n = 0;
  while (n < 64 && cs_try_admit(sched, (uint32_t)admit, &tickets[n]) == 0) n++;
  printf("states=%u admitted=%u\n", (unsigned)cs_model_slots.n_states, n);
  for (unsigned i = 0; i < n; i++)
    if (cs_complete(sched, &tickets[i]) != 0) return 1;
  return cs_sched_destroy(sched) == 0 ? 0 : 1;
}
