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

enum sbx_un_kind {
  SBX_UN_UNLINK,
  SBX_UN_RENAME,
  SBX_UN_CONNECT,
  SBX_UN_SENDTO,
  SBX_UN_SENDMSG,
  SBX_UN_BIND, /* where the socket listens (sbx_unotify_net.c) */
  SBX_UN_LISTEN
};

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
  int dirfd[2]; /* in the process; AT_FDCWD for the cwd */
  int fd[2];    /* ours: O_PATH directories */
  int flags;    /* unlinkat / renameat2 / sendto flags */
  int sockfd;   /* the process's socket number */
  int sock;     /* ours: the same open file description (pidfd_getfd) */
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
  /* The run's account of supervisor work (sbx_unotify_charge.c); NULL:
   * helpers are plain forks, uncounted. */
  struct sbx_un_charge *charge;
};

/* Copies the call's arguments (once) and takes our handles: 0 or -errno. */
int sbx_un_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t *tgid);
void sbx_un_op_free(struct sbx_un_op *op);
/* The path as the approver is shown it. */
void sbx_un_display(int dirfd, const char *path, char *out, size_t len);
void sbx_un_addr_text(const struct sockaddr_storage *ss, char *buf, size_t len);
/* Replaces each path (unlink family: path[0], rename: both) by its final
 * name and op->fd[i] by the directory it lies in, opened once by a helper
 * that resolves the rest as the caller's call would (its root, ids and
 * Landlock; symlinks and ".." followed). From then on the call acts on
 * exactly that directory, and sbx_un_display shows its real path. A path
 * with nothing to split off (empty, only slashes) is left as it is.
 * *failed: the errno the caller's call would have met resolving a
 * directory (ENOENT, ENOTDIR, EACCES, ...), 0 when all resolved. With
 * probe_tmp (unlink family) the same helper also probes the entry:
 * *exempt 1 and *result the unlinkat's result when it was on the private
 * /tmp (cfg->private_tmp) or was born in the run (cfg->run_start_set;
 * then deleted, unasked), or did not exist at all (-ENOENT). 0
 * or -errno (the helper could not run). */
int sbx_un_resolve(struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg,
                   bool probe_tmp, int *failed, int *exempt, long *result);
/* Runs the helper. flags_override: -1 none, or renameat2 flags. *result:
 * the call's value or -errno. */
int sbx_un_perform(const struct sbx_un_op *op, int rootfd, const struct sbx_unotify_cfg *cfg,
                   int flags_override, long *result);

/* sendmsg/sendmmsg (sbx_unotify_msg.c): copies the messages once and
 * takes our own descriptors for SCM_RIGHTS (op->sock must be set); sends
 * them in the helper; writes msg_len back into the caller's mmsghdr. */
int sbx_un_msg_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t tgid);
long sbx_un_msg_send(const struct sbx_un_op *op);
/* May the supervisor send these itself, without the helper? */
bool sbx_un_msg_direct(const struct sbx_un_op *op);
int sbx_un_msg_writeback(const struct sbx_un_op *op, pid_t tid, long count);
void sbx_un_msg_free(struct sbx_un_op *op);

/* Sockets (sbx_unotify_net.c). The socket's real family (SO_DOMAIN), or
 * -errno. Where addr leads on a socket of that family (bind: where it
 * listens, and the wildcard address is every interface): true when it
 * stays on this machine; text is what the approver is shown. Fail closed:
 * anything not understood is external. */
int sbx_un_sock_domain(int sock);
bool sbx_un_reach_local(int domain, const struct sockaddr_storage *ss, unsigned len, bool bind,
                        char *text, size_t tlen);
/* A datagram IP socket bound to port 0 (libuv binds 0.0.0.0:0 before
 * every first send): exactly what the kernel does by itself on the first
 * send, which is never asked about; not asked either. */
bool sbx_un_bind_ephemeral_dgram(int sock, int domain, const struct sockaddr_storage *ss);
/* Would listen() on sock accept only connections from this machine? */
bool sbx_un_listen_local(int sock, char *text, size_t tlen);
/* Ancillary data of a send: 0, or -EPERM (with a message) for anything
 * that could carry a route (routing headers, IP options). */
int sbx_un_cmsg_check(const unsigned char *control, size_t len);
/* The notify filter's refusals for `network`: setsockopt of routing
 * headers, IP options and SCTP's address options. */
int sbx_un_net_rules(scmp_filter_ctx c);

/* Supervisor work charged to the run (sbx_unotify_charge.c): helpers are
 * created in the run's cgroup, and their CPU plus the serving threads'
 * is counted against a budget; once it is spent every notified call is
 * refused (fail closed). */
struct sbx_un_charge;
int sbx_un_charge_open(struct sbx_un_charge **out, const struct sbx_unotify_cfg *cfg);
void sbx_un_charge_close(struct sbx_un_charge *c);
/* fork(), but into the run's cgroup when there is one. */
pid_t sbx_un_charge_fork(struct sbx_un_charge *c);
/* In the child of sbx_un_charge_fork, first thing: joins a v1 cgroup
 * (v2 children are born in it). 0 or -errno. */
int sbx_un_charge_child(struct sbx_un_charge *c);
void sbx_un_charge_add(struct sbx_un_charge *c, uint64_t ns);
/* The calling thread's CPU time, ns. */
uint64_t sbx_un_thread_ns(void);
/* True (and says so once) when the budget is spent. */
bool sbx_un_charge_spent(struct sbx_un_charge *c, const struct sbx_unotify_cfg *cfg);
/* cs_approval_ask for notification n, except that an answer given while
 * n's call was interrupted (the freezer stops the run while the terminal
 * asks) is used, once, by the restarted call (sbx_unotify_carry.c).
 * 0 allowed, -EPERM denied, -ESRCH the notification is gone (the
 * answer is kept for the restarted call; nothing to say or do); *d filled. */
int sbx_un_ask(int listener, const struct seccomp_notif *n, const struct sbx_unotify_cfg *cfg,
               struct cs_approval_request *req, struct cs_approval_decision *d);

/* delete (sbx_unotify_git.c): does <workspace>/.git hold, as a loose
 * object or in a pack index, a blob with the exact contents of `name` in
 * `dirfd` (a regular file or symlink)? Run by a helper, under the
 * directory's lock. */
bool sbx_un_git_holds(int dirfd, const char *name, const char *workspace);
/* Is `id` listed in the version-2 pack index open as `fd`? */
bool sbx_un_git_idx_has(int fd, const unsigned char id[20]);
/* delete (sbx_unotify_gitstore.c): is the removal of `name` in `dirfd`
 * git reorganising its own object store, losing no object: a loose object
 * a pack holds, an empty fan-out directory of objects/, or a pack every
 * object of which another pack holds? `is_dir`: an rmdir. Run by a
 * helper, under the directory's lock. */
bool sbx_un_git_store_free(int dirfd, const char *name, bool is_dir, const char *workspace);

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
