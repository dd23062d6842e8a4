/* sbx_unotify_msg: sendmsg and sendmmsg in the system-call approval layer
 * (docs/approvals.md, "sendmsg / sendmmsg").
 *
 * A seccomp filter cannot look inside a msghdr, so in a profile that
 * approves `network` every sendmsg and sendmmsg is notified. Answering
 * CONTINUE for one without a destination, or with a loopback one, would
 * not be sound: another thread can point msg_name at an external address
 * between our check and the kernel's own read. So the supervisor performs
 * every one of them, like sendto: it copies each msghdr, its destination,
 * its data and its ancillary data ONCE, asks about each external
 * destination, and sends the copies in the helper (the caller's root,
 * ids, no capabilities, Landlock) on the same open file description
 * (pidfd_getfd). What is sent is exactly what was checked.
 *
 * Ancillary data: SCM_RIGHTS descriptors are taken from the caller with
 * pidfd_getfd and sent as ours (the receiver gets the same open files).
 * SCM_CREDENTIALS is refused (EPERM and a message): the helper is
 * another process, and credentials it vouched for would not be the
 * caller's. Ancillary data that could carry a route (routing headers,
 * hop-by-hop and destination options, IP options, SCTP's destination
 * addresses: anything not on sbx_unotify_net.c's short list) is refused
 * with EPERM. The rest (IP_PKTINFO, UDP_SEGMENT, ...) is passed as it
 * is; the kernel checks it against the helper, which has no more
 * privilege than the caller.
 *
 * Limits: at most SBX_UN_MAX_MMSG messages per sendmmsg (it then returns
 * that count, as sendmmsg may); per message SBX_UN_MAX_DATA bytes: a
 * stream socket sends that much and returns the short count (a partial
 * send the caller must already handle), a datagram larger than that is
 * EMSGSIZE; SBX_UN_MAX_CONTROL bytes of ancillary data (else ENOBUFS). */
#include "sbx_diag.h"
#include "sbx_unotify_op.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Replaces the SCM_RIGHTS numbers of our copy by our own descriptors;
 * refuses SCM_CREDENTIALS. */
static int sbx_un_msg_control(pid_t tgid, struct sbx_un_msg *m, struct sbx_un_op *op)
{
  struct msghdr mh = { .msg_control = m->control, .msg_controllen = m->controllen };
  /* Routing headers and IP options first: refused whatever the socket. */
  int r = sbx_un_cmsg_check(m->control, m->controllen);
  if (r != 0)
    return r;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != SOL_SOCKET)
      continue;
    if (c->cmsg_type == SCM_CREDENTIALS) {
      fprintf(sbx_diag(), "sbx: approval: sendmsg with SCM_CREDENTIALS refused (system-call "
                          "layer: the supervisor cannot send the caller's credentials)\n");
      return -EPERM;
    }
    if (c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
      continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k; i++) {
      int num, ours;
      int *grown;
      memcpy(&num, CMSG_DATA(c) + i * sizeof(int), sizeof num);
      ours = sbx_un_pidfd_getfd(tgid, num);
      if (ours < 0)
        return ours == -EBADF ? -EBADF : ours;
      grown = realloc(op->passfds, (op->npassfds + 1) * sizeof *grown);
      if (!grown) {
        close(ours);
        return -ENOMEM;
      }
      op->passfds = grown;
      op->passfds[op->npassfds++] = ours;
      memcpy(CMSG_DATA(c) + i * sizeof(int), &ours, sizeof ours);
    }
  }
  return 0;
}

/* Copies one struct msghdr of the caller (at addr) into *m. */
static int sbx_un_msg_one(pid_t tid, pid_t tgid, uint64_t addr, bool stream, struct sbx_un_msg *m,
                          struct sbx_un_op *op)
{
  struct msghdr h;
  struct iovec *iov = NULL;
  size_t total = 0, got = 0;
  int r;

  if ((r = sbx_un_read_mem(tid, addr, &h, sizeof h)) != 0)
    return r;
  if (h.msg_name && h.msg_namelen) {
    if (h.msg_namelen > sizeof m->name)
      return -EINVAL;
    m->namelen = h.msg_namelen;
    if ((r = sbx_un_read_mem(tid, (uint64_t)(uintptr_t)h.msg_name, &m->name, m->namelen)) != 0)
      return r;
  }
  if (h.msg_iovlen > 1024)
    return -EMSGSIZE; /* UIO_MAXIOV, as the kernel */
  if (h.msg_iovlen) {
    iov = calloc(h.msg_iovlen, sizeof *iov);
    if (!iov)
      return -ENOMEM;
    r = sbx_un_read_mem(tid, (uint64_t)(uintptr_t)h.msg_iov, iov, h.msg_iovlen * sizeof *iov);
    if (r != 0)
      goto done;
  }
  for (size_t i = 0; i < h.msg_iovlen; i++)
    total += iov[i].iov_len < SBX_UN_MAX_DATA + 1 ? iov[i].iov_len : SBX_UN_MAX_DATA + 1;
  if (total > SBX_UN_MAX_DATA) {
    if (!stream) {
      r = -EMSGSIZE;
      goto done;
    }
    total = SBX_UN_MAX_DATA; /* a short send; documented above */
  }
  m->data = malloc(total ? total : 1);
  if (!m->data) {
    r = -ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < h.msg_iovlen && got < total; i++) {
    size_t len = iov[i].iov_len < total - got ? iov[i].iov_len : total - got;
    if ((r = sbx_un_read_mem(tid, (uint64_t)(uintptr_t)iov[i].iov_base, m->data + got, len)) != 0)
      goto done;
    got += len;
  }
  m->datalen = got;
  if (h.msg_control && h.msg_controllen) {
    if (h.msg_controllen > SBX_UN_MAX_CONTROL) {
      r = -ENOBUFS;
      goto done;
    }
    m->controllen = h.msg_controllen;
    m->control = malloc(m->controllen);
    if (!m->control) {
      r = -ENOMEM;
      goto done;
    }
    r = sbx_un_read_mem(tid, (uint64_t)(uintptr_t)h.msg_control, m->control, m->controllen);
    if (r == 0)
      r = sbx_un_msg_control(tgid, m, op);
  }
done:
  free(iov);
  return r;
}

int sbx_un_msg_collect(const struct seccomp_notif *n, struct sbx_un_op *op, pid_t tgid)
{
  const __u64 *a = n->data.args;
  pid_t tid = (pid_t)n->pid;
  int type = 0, r = 0;
  socklen_t tl = sizeof type;
  unsigned want;

  op->mmsg = n->data.nr == SYS_sendmmsg;
  op->flags = (int)(op->mmsg ? a[3] : a[2]);
  op->mmsg_addr = a[1];
  want = op->mmsg ? (a[2] < SBX_UN_MAX_MMSG ? (unsigned)a[2] : SBX_UN_MAX_MMSG) : 1;
  if (op->mmsg && want == 0)
    return 0; /* sendmmsg of nothing: performed as nothing, returns 0 */
  /* Datagram or stream decides what too much data means. */
  if (getsockopt(op->sock, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
    return -ENOTSOCK;
  op->msgs = calloc(want, sizeof *op->msgs);
  op->sent = calloc(want, sizeof *op->sent);
  if (!op->msgs || !op->sent)
    return -ENOMEM;
  for (unsigned i = 0; i < want && r == 0; i++) {
    uint64_t at = op->mmsg ? a[1] + i * (uint64_t)sizeof(struct mmsghdr) : a[1];
    r = sbx_un_msg_one(tid, tgid, at, type == SOCK_STREAM, &op->msgs[i], op);
    if (r == 0) {
      op->nmsgs++;
    } else {
      free(op->msgs[i].data);
      free(op->msgs[i].control);
    }
  }
  /* A later message that cannot be copied ends the batch there, as the
   * kernel's sendmmsg stops at its first failing message. */
  return op->nmsgs > 0 ? 0 : r;
}

long sbx_un_msg_send(const struct sbx_un_op *op)
{
  long count = 0;
  for (unsigned i = 0; i < op->nmsgs; i++) {
    const struct sbx_un_msg *m = &op->msgs[i];
    struct iovec iov = { .iov_base = m->data, .iov_len = m->datalen };
    struct msghdr mh = { .msg_name = m->namelen ? (void *)&m->name : NULL,
                         .msg_namelen = m->namelen,
                         .msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = m->control,
                         .msg_controllen = m->controllen };
    ssize_t r = sendmsg(op->sock, &mh, op->flags | MSG_NOSIGNAL);
    if (r < 0) {
      if (i == 0)
        return -errno;
      break;
    }
    op->sent[i] = r;
    count++;
    if (!op->mmsg)
      return r;
  }
  return count;
}

bool sbx_un_msg_direct(const struct sbx_un_op *op)
{
  int dom = 0;
  socklen_t dl = sizeof dom;
  /* Which checks of a send depend on the sending task rather than on the
   * socket: ancillary data (IP options, SO_MARK, credentials: capability
   * checks against the sender), unix sockets (Landlock's scoping of
   * abstract sockets, SO_PASSCRED peers), netlink (capability checks on
   * the sender). An IPv4/IPv6 socket sending plain data to an IPv4/IPv6
   * destination (or its connected peer) has none of them: everything the
   * kernel checks there was fixed when the caller created and set up the
   * socket (and Landlock up to ABI 7 restricts only TCP bind/connect).
   * Those sends are performed by the supervisor itself, without forking
   * a helper; everything else goes through the helper. */
  if (getsockopt(op->sock, SOL_SOCKET, SO_DOMAIN, &dom, &dl) != 0 ||
      (dom != AF_INET && dom != AF_INET6))
    return false;
  for (unsigned i = 0; i < op->nmsgs; i++) {
    const struct sbx_un_msg *m = &op->msgs[i];
    if (m->controllen ||
        (m->namelen && m->name.ss_family != AF_INET && m->name.ss_family != AF_INET6))
      return false;
  }
  return true;
}

int sbx_un_msg_writeback(const struct sbx_un_op *op, pid_t tid, long count)
{
  for (long i = 0; i < count && i < (long)op->nmsgs; i++) {
    unsigned len = (unsigned)op->sent[i];
    struct iovec l = { .iov_base = &len, .iov_len = sizeof len };
    struct iovec r = { .iov_base = (void *)(uintptr_t)(op->mmsg_addr +
                                                       (uint64_t)i * sizeof(struct mmsghdr) +
                                                       offsetof(struct mmsghdr, msg_len)),
                       .iov_len = sizeof len };
    if (process_vm_writev(tid, &l, 1, &r, 1, 0) != (ssize_t)sizeof len)
      return -EFAULT;
  }
  return 0;
}

void sbx_un_msg_free(struct sbx_un_op *op)
{
  for (unsigned i = 0; i < op->nmsgs; i++) {
    free(op->msgs[i].data);
    free(op->msgs[i].control);
  }
  free(op->msgs);
  free(op->sent);
  for (unsigned i = 0; i < op->npassfds; i++)
    close(op->passfds[i]);
  free(op->passfds);
}
