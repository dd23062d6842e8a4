/* ctr_probe: the one program of the container backend's test image
 * (t_container.sh). Static, so the image needs nothing else.
 *
 *   ctr_probe exit N        prints "ran" and exits N
 *   ctr_probe inet          socket(AF_INET): "inet: made" or the error
 *   ctr_probe read PATH     "read: ok N bytes" or the error
 *   ctr_probe write PATH    creates PATH: "write: ok" or the error
 *   ctr_probe mem MIB       touches MIB MiB: "mem: ok" (or is killed)
 *   ctr_probe sleep S       sleeps S seconds
 *   ctr_probe cat PATH      copies PATH to stdout
 *   ctr_probe netifs        the interfaces in /proc/net/dev, one a line */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int probe_read(const char *path)
{
  char buf[4096];
  ssize_t n, total = 0;
  int fd = open(path, O_RDONLY);

  if (fd < 0) {
    printf("read: %s\n", strerror(errno));
    return 1;
  }
  while ((n = read(fd, buf, sizeof buf)) > 0)
    total += n;
  close(fd);
  if (n < 0) {
    printf("read: %s\n", strerror(errno));
    return 1;
  }
  printf("read: ok %zd bytes\n", total);
  return 0;
}

static int probe_netifs(void)
{
  char line[512];
  FILE *f = fopen("/proc/net/dev", "r");

  if (!f) {
    printf("netifs: %s\n", strerror(errno));
    return 1;
  }
  /* Two header lines, then "  name: counters". */
  for (int i = 0; fgets(line, sizeof line, f); i++) {
    char *colon = strchr(line, ':');
    char *name = line;
    if (i < 2 || !colon)
      continue;
    *colon = '\0';
    while (*name == ' ')
      name++;
    printf("%s\n", name);
  }
  fclose(f);
  return 0;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  const char *arg = argc > 2 ? argv[2] : "";

  if (!strcmp(mode, "exit")) {
    printf("ran\n");
    return atoi(arg);
  }
  if (!strcmp(mode, "inet")) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
      printf("inet: refused: %s\n", strerror(errno));
      return 1;
    }
    printf("inet: made\n");
    return 0;
  }
  if (!strcmp(mode, "read"))
    return probe_read(arg);
  if (!strcmp(mode, "write")) {
    int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
      printf("write: %s\n", strerror(errno));
      return 1;
    }
    close(fd);
    printf("write: ok\n");
    return 0;
  }
  if (!strcmp(mode, "mem")) {
    size_t size = (size_t)atol(arg) << 20;
    char *p = malloc(size);
    if (!p) {
      printf("mem: malloc failed\n");
      return 1;
    }
    for (size_t i = 0; i < size; i += 4096)
      p[i] = 1;
    printf("mem: ok\n");
    free(p);
    return 0;
  }
  if (!strcmp(mode, "sleep")) {
    sleep((unsigned)atoi(arg));
    printf("slept\n");
    return 0;
  }
  if (!strcmp(mode, "cat")) {
    char buf[4096];
    size_t n;
    FILE *f = fopen(arg, "r");
    if (!f) {
      printf("cat: %s\n", strerror(errno));
      return 1;
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
      fwrite(buf, 1, n, stdout);
    fclose(f);
    return 0;
  }
  if (!strcmp(mode, "netifs"))
    return probe_netifs();
  fprintf(stderr, "ctr_probe: unknown mode '%s'\n", mode);
  return 2;
}
