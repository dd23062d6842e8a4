/* The kernel's audit switch for the tests: `denial_kaudit get` prints 0
 * (off), 1 (on) or 2 (locked); `denial_kaudit set N` sets it (root only;
 * the tests restore what they found). Exit 1 with the reason otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_denial.h"

int main(int argc, char *argv[])
{
  int on = -1, rc;
  if (argc == 2 && strcmp(argv[1], "get") == 0) {
    rc = sbx_kaudit_get(&on);
    if (rc == 0)
      printf("%d\n", on);
  } else if (argc == 3 && strcmp(argv[1], "set") == 0) {
    rc = sbx_kaudit_set(atoi(argv[2]));
  } else {
    fprintf(stderr, "usage: denial_kaudit get | set 0|1\n");
    return 2;
  }
  if (rc != 0) {
    fprintf(stderr, "denial_kaudit: %s\n", strerror(-rc));
    return 1;
  }
  return 0;
}
