/* sbx_unotify_op: one notified call of the system-call layer, taken apart
 * and performed (see sbx_unotify.h for the design): copying its arguments
 * out of the caller once, taking our own handles on what they name, and
 * the helper process that performs it with the caller's root, ids and
 * Landlock rules. Internal to sbx_unotify.c. */
#ifndef CS_RUNTIME_SBX_UNOTIFY_OP_H
#define CS_RUNTIME_SBX_UNOTIFY_OP_H

#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

enum sbx_un_kind { SBX_UN_UNLINK, SBX_UN_RENAME, SBX_UN_CONNECT, SBX_UN_SENDTO, SBX_UN_SENDMSG };

/* sendmsg / sendmmsg: at most this many messages per call are performed
 * (a shorter count is a legal answer of sendmmsg), each with at most
 * SBX_UN_MAX_DATA bytes of data and SBX_UN_MAX_CONTROL of ancillary data. */
#define SBX_UN_MAX_MMSG 16u
#define SBX_UN_MAX_CONTROL 4096u

/* One message, copied once; control's SCM_RIGHTS numbers are already
 * replaced by our own descriptors (pidfd_getfd). */
struct sbx_un_msg {
  struct sockaddr_storage name;
  unsigned namelen; /* 0: no destination (msg_name NULL) */
  unsigned char *data;
  size_t datalen;
  unsigned char *control;
  size_t controllen;
};

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
  /* The caller's mount namespace when it is not ours (the helper acts
   * from inside it, where the sandbox's mount points cannot be renamed or
   * removed) and its user namespace when that is not ours (sbx without
   * root: entering it gives the rights to chroot there); -1 otherwise. */
  int userns;
  int mntns;
  /* sendmsg (nmsgs 1) / sendmmsg: the messages, the caller's mmsghdr
   * array (msg_len is written back), the descriptors taken for
   * SCM_RIGHTS, and per message the bytes sent (helper's answer). */
  struct sbx_un_msg *msgs;
  unsigned nmsgs;
  bool mmsg;
  uint64_t mmsg_addr;
  int *passfds;
  unsigned npassfds;
  long *sent;
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

/* sendmsg/sendmmsg (sbx_unotify_msg.c): copies the messages once and
 * takes our own descriptors for SCM_RIGHTS (op->sock must be set); sends
 * them in the helper; writes msg_len back into the caller's mmsghdr. */
int sbx_un_msg_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t tgid);
long sbx_un_msg_send(const struct sbx_un_op *op);
/* May the supervisor send these itself, without the helper? */
bool sbx_un_msg_direct(const struct sbx_un_op *op);
int sbx_un_msg_writeback(const struct sbx_un_op *op, pid_t tid, long count);
void sbx_un_msg_free(struct sbx_un_op *op);

/* Copies a NUL-terminated string / len bytes of process pid (once). */
int sbx_un_read_str(pid_t pid, uint64_t addr, char *out, size_t len);
int sbx_un_read_mem(pid_t pid, uint64_t addr, void *out, size_t len);
/* Our O_PATH handle on the caller's directory fd `fdnum` (AT_FDCWD: its
 * cwd), or -errno. */
int sbx_un_dirfd(pid_t tid, int fdnum);
/* Our duplicate of descriptor fdnum of process tgid (pidfd_getfd). */
int sbx_un_pidfd_getfd(pid_t tgid, int fdnum);

/* git-config (sbx_unotify_open.c): the filter rules for write-opens, and
 * the handler. Is nr one of the calls the handler takes? */
int sbx_unotify_open_rules(scmp_filter_ctx c);
bool sbx_un_is_open(int nr);
/* Copies a write-open's arguments (once) and finds the guarded file it
 * reaches: *g NULL means "answer CONTINUE" (*o is then NULL too); else
 * *o holds the copy for sbx_un_open_handle, which frees it. Cheap and
 * never blocking: the serve loop calls it inline, without a thread. */
struct sbx_un_open;
void sbx_un_open_classify(const struct seccomp_notif *n, const struct sbx_unotify_cfg *cfg,
                          struct sbx_un_open **o, const struct sbx_unotify_gitfile **g);
/* Answers a write-open that reaches git configuration `g`: asks, opens,
 * fills *resp and returns 0, or returns 1 when the call was already
 * answered with SECCOMP_IOCTL_NOTIF_ADDFD + SECCOMP_ADDFD_FLAG_SEND.
 * Frees o. */
int sbx_un_open_handle(int listener, const struct seccomp_notif *n,
                       const struct sbx_unotify_cfg *cfg, struct sbx_un_open *o,
                       const struct sbx_unotify_gitfile *g, struct seccomp_notif_resp *resp);

#endif
