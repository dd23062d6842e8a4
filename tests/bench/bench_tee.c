/* bench_tee: round trips through the isolated worker (cs_tee.h).
 *
 *   bench_tee WORKER CODE INPUT_FILE ROUNDS REPEATS
 *
 * Evaluates CODE on the JSON in INPUT_FILE ROUNDS times in a row through
 * one ready worker, REPEATS times, and prints each repeat's mean round
 * trip in microseconds, then the median. tests/bench/bench_tee.sh runs it
 * beside Node's worker_threads and a node spawned per evaluation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_tee.h"

static double now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  static char input[1 << 20];
  struct cs_tee_pool *p;
  struct cs_tee_result res;
  FILE *f;
  size_t n;

  if (argc != 6) {
    fprintf(stderr, "usage: bench_tee WORKER CODE INPUT_FILE ROUNDS REPEATS\n");
    return 2;
  }
  f = fopen(argv[3], "r");
  if (!f || (n = fread(input, 1, sizeof input - 1, f)) == 0) {
    perror(argv[3]);
    return 2;
  }
  fclose(f);
  input[n] = '\0';
  long rounds = atol(argv[4]), repeats = atol(argv[5]);
  struct cs_tee_config c = { .worker_path = argv[1], .timeout_ms = 5000 };
  if (rounds < 1 || repeats < 1 || repeats > 99 || cs_tee_pool_open(&p, &c) != 0) {
    fprintf(stderr, "bench_tee: bad arguments or no pool\n");
    return 2;
  }
  /* One evaluation first: the worker's start is not a round trip. */
  if (cs_tee_eval(p, argv[2], input, 0, &res) != 0 || res.status != CS_TEE_OK) {
    fprintf(stderr, "bench_tee: %s\n", res.error ? res.error : "eval failed");
    return 1;
  }
  printf("result %s\n", res.value);
  cs_tee_result_free(&res);
  double per[99];
  for (long r = 0; r < repeats; r++) {
    double t0 = now_us();
    for (long i = 0; i < rounds; i++) {
      if (cs_tee_eval(p, argv[2], input, 0, &res) != 0 || res.status != CS_TEE_OK) {
        fprintf(stderr, "bench_tee: round %ld: %s\n", i, res.error ? res.error : "failed");
        return 1;
      }
      cs_tee_result_free(&res);
    }
    per[r] = (now_us() - t0) / (double)rounds;
    printf("repeat %ld: %.1f us\n", r + 1, per[r]);
  }
  qsort(per, (size_t)repeats, sizeof per[0], cmp);
  printf("median %.1f us\n", per[repeats / 2]);
  cs_tee_pool_close(p);
  return 0;
}
