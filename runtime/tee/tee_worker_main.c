/* sbx-tee-worker: the isolated worker's executable (tee_worker.h). */
#include "tee_worker.h"

int main(int argc, char **argv)
{
  struct tee_worker_opts o;

  if (tee_worker_parse(argc, argv, &o) != 0)
    return 64;
  tee_worker_run(&o);
}
