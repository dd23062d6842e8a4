/* sbx_unotify_op: one notified call of the system-call layer, taken apart
 * and performed (see sbx_unotify.h for the design): copying its arguments
 * out of the caller once, taking our own handles on what they name, and
 * the helper process that performs it with the caller's root, ids and
 * Landlock rules. Internal to sbx_unotify.c. */
#ifndef CS_RUNTIME_SBX_UNOTIFY_OP_H
#define CS_RUNTIME_SBX_UNOTIFY_OP_H

#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "sbx_unotify.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define SBX_UN_MAX_DATA (64u * 1024u) /* sendto payload copied once */

enum sbx_un_kind { SBX_UN_UNLINK, SBX_UN_RENAME, SBX_UN_CONNECT, SBX_UN_SENDTO };

/* Everything the operation needs, copied out of the process once. */
struct sbx_un_op {
  enum sbx_un_kind kind;
  int nr;
  char path[2][4096];
  int dirfd[2];   /* in the process; AT_FDCWD for the cwd */
  int fd[2];      /* ours: O_PATH directories */
  int flags;      /* unlinkat / renameat2 / sendto flags */
  int sockfd;     /* the process's socket number */
  int sock;       /* ours: the same open file description (pidfd_getfd) */
  struct sockaddr_storage addr;
  unsigned addrlen;
  unsigned char *data;
  size_t datalen;
  uid_t uid;
  gid_t gid;
  /* The caller's user and mount namespaces when its user namespace is not
   * ours (sbx without root): the helper enters them to get the rights to
   * chroot there; -1 otherwise. */
  int userns;
  int mntns;
};

/* Probe mode of sbx_un_perform (unlink family): delete only when the entry
 * is on the private /tmp, and say whether it was. */
#define SBX_UN_PROBE_TMP (-2)

/* Copies the call's arguments (once) and takes our handles: 0 or -errno. */
int sbx_un_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t *tgid);
void sbx_un_op_free(struct sbx_un_op *op);
/* The path as the approver is shown it. */
void sbx_un_display(int dirfd, const char *path, char *out, size_t len);
void sbx_un_addr_text(const struct sockaddr_storage *ss, char *buf, size_t len);
/* Runs the helper. flags_override: -1 none, SBX_UN_PROBE_TMP, or renameat2
 * flags. *result: the call's value or -errno; *exempt (may be NULL). */
int sbx_un_perform(const struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg,
                   int flags_override, long *result, int *exempt);

#endif
