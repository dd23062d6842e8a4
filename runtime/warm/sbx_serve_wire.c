/* sbx_serve_wire: `sbx serve`'s side of the wire format (sbx_warm.h): a
 * request received and decoded (header, strings, descriptors), a reply
 * sent. Nothing a client sends is trusted: every count and length is
 * checked against what arrived. */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sbx_serve_parts.h"

void sbx_send_reply(int fd, enum sbx_warm_kind kind, pid_t pid, pid_t cmd, int status, int pass_fd,
                    const char *note)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } cbuf;
  struct sbx_warm_reply r = {
    .magic = SBX_WARM_MAGIC, .kind = kind, .init_pid = pid, .cmd_pid = cmd, .status = status
  };
  struct iovec iov = { .iov_base = &r, .iov_len = sizeof r };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
  if (note)
    snprintf(r.note, sizeof r.note, "%s", note);
  if (pass_fd >= 0)
    sbx_msg_put_fds(&mh, cbuf.buf, &pass_fd, 1);
  (void)!sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Splits n NUL-terminated strings starting at *pos; NULL-terminated array. */
static char **sbx_take_strings(char *buf, size_t len, size_t *pos, uint32_t n)
{
  char **v;
  if (n > 65536 || !(v = calloc((size_t)n + 1, sizeof *v)))
    return NULL;
  for (uint32_t i = 0; i < n; i++) {
    char *end = *pos < len ? memchr(buf + *pos, '\0', len - *pos) : NULL;
    if (!end) {
      free(v);
      return NULL;
    }
    v[i] = buf + *pos;
    *pos = (size_t)(end - buf) + 1;
  }
  return v;
}

/* Checks a request's header and splits its strings (pointers into buf,
 * the arrays malloc'd). 0 or -EPROTO. */
int sbx_warm_parse(char *buf, size_t n, int n_fds, struct sbx_warm_req *hdr, char ***head,
                   char ***argv, char ***envp)
{
  size_t pos = sizeof *hdr;
  *head = *argv = *envp = NULL;
  if (n < sizeof *hdr)
    return -EPROTO;
  memcpy(hdr, buf, sizeof *hdr);
  if (hdr->magic != SBX_WARM_MAGIC || hdr->version != SBX_WARM_VERSION ||
      (int)hdr->n_fds != n_fds || n_fds < 5 || hdr->n_argv < 1)
    return -EPROTO;
  if (!(*head = sbx_take_strings(buf, n, &pos, 3)) ||
      !(*argv = sbx_take_strings(buf, n, &pos, hdr->n_argv)) ||
      !(*envp = sbx_take_strings(buf, n, &pos, hdr->n_env)) || !(*argv)[0][0] ||
      /* A template keeps the workspace and HOME in PATH_MAX buffers: a
       * longer string would be cut and its key never found again. */
      strlen((*head)[1]) >= PATH_MAX || strlen((*head)[2]) >= PATH_MAX) {
    free(*head);
    free(*argv);
    free(*envp);
    *head = *argv = *envp = NULL;
    return -EPROTO;
  }
  return 0;
}

/* Receives one message with up to SBX_WARM_FDS descriptors into buf. */
ssize_t sbx_warm_recv(int sock, char *buf, size_t size, int *fds, int *n_fds, bool *trunc)
{
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int) * SBX_WARM_FDS)];
  } cbuf;
  struct iovec iov = { .iov_base = buf, .iov_len = size };
  struct msghdr mh = {
    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf, .msg_controllen = sizeof cbuf.buf
  };
  ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  *n_fds = 0;
  if (n < 0)
    return n;
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
      int cnt = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      for (int i = 0; i < cnt; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(cm) + (size_t)i * sizeof(int), sizeof fd);
        if (*n_fds < SBX_WARM_FDS)
          fds[(*n_fds)++] = fd;
        else
          close(fd);
      }
    }
  *trunc = (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
  return n;
}
