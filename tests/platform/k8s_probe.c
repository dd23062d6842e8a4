/* k8s_probe: the one program of the image t_k8s_podman.sh imports (linked
 * statically, so the image is this file and nothing else). Each mode asks
 * one thing of the pod it runs in and prints what happened:
 *
 *   k8s_probe inet     socket(AF_INET): exit 0 made, 1 refused (errno named)
 *   k8s_probe basic    what every command does (getpid, read its own file,
 *                      write stdout) and prints the uid: exit 0, or 1 as root
 *   k8s_probe rootfs   create a file in /: exit 0 when refused with EROFS,
 *                      1 when it was created (the root must be read-only)
 *   k8s_probe pause    the pod's infra process: waits for a signal */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "pause")) {
    for (;;)
      pause();
  }
  if (!strcmp(mode, "inet")) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
      printf("inet: refused: %s\n", strerror(errno));
      return 1;
    }
    printf("inet: made\n");
    close(s);
    return 0;
  }
  if (!strcmp(mode, "basic")) {
    char buf[16];
    int fd = open("/k8s_probe", O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
      printf("basic: cannot read /k8s_probe: %s\n", strerror(errno));
      return 2;
    }
    close(fd);
    printf("basic: pid %d uid %d gid %d\n", (int)getpid(), (int)getuid(), (int)getgid());
    return getuid() == 0 ? 1 : 0;
  }
  if (!strcmp(mode, "rootfs")) {
    int fd = open("/probe-write", O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
      printf("rootfs: created /probe-write\n");
      return 1;
    }
    printf("rootfs: refused: %s\n", strerror(errno));
    return errno == EROFS ? 0 : 1;
  }
  fprintf(stderr, "usage: k8s_probe inet|basic|rootfs|pause\n");
  return 2;
}
