/* t_unlink: deletes with the system calls directly (no rm): unlink,
 * unlinkat relative to a directory descriptor, rmdir, rename over an
 * existing file, and a rename that replaces nothing. Prints each result;
 * the test script compares with what the approver decided. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void show(const char *what, int r)
{
  printf("%s: %s\n", what, r == 0 ? "ok" : strerror(errno));
}

int main(int argc, char **argv)
{
  if (argc != 2 || chdir(argv[1]) != 0)
    return 2;
  show("unlink a", unlink("a"));
  int d = open("sub", O_RDONLY | O_DIRECTORY);
  show("unlinkat sub/b", unlinkat(d, "b", 0));
  close(d);
  show("rmdir emptydir", rmdir("emptydir"));
  show("rename c over e", rename("c", "e"));
  show("rename f to new", rename("f", "g"));
  return 0;
}
