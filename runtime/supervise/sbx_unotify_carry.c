/* sbx_unotify_carry: asking about a notified call, and an answer that
 * outlives the notification it was given for.
 *
 * A person's question can take seconds; meanwhile the caller's wait for
 * our reply can be interrupted: by a signal, and always by the freezer,
 * which stops the whole run while the terminal asks (sbx_freeze.c). The
 * kernel then cancels the notification (our reply would be refused) and,
 * the call being restartable, makes the same call again once the task
 * runs: a new notification, same thread, same system call, same
 * registers. Asking again would ask forever. So an answer given for a
 * notification that is no longer valid is kept, once, for the same
 * thread's next call with the same number, arguments and instruction
 * pointer that asks the same question (operation, resolved path,
 * address): that call is what the person answered about. Anything else
 * is asked normally; an entry unused after SBX_UN_CARRY_MS is dropped. */
#include "sbx_unotify_op.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

static uint64_t sbx_un_carry_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#define SBX_UN_CARRY_SLOTS 16
#define SBX_UN_CARRY_MS 30000u

struct sbx_un_carried {
  bool used;
  uint64_t expires_ms;
  uint32_t pid;
  int nr;
  uint64_t ip;
  uint64_t args[6];
  enum cs_approval_operation op;
  char path[4200];
  char address[80];
  struct cs_approval_decision d;
};

static struct {
  pthread_mutex_t lock;
  unsigned next;
  struct sbx_un_carried slot[SBX_UN_CARRY_SLOTS];
} sbx_un_carry = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool sbx_un_carry_same(const struct sbx_un_carried *c, const struct seccomp_notif *n,
                              const struct cs_approval_request *req)
{
  return c->pid == n->pid && c->nr == n->data.nr && c->ip == n->data.instruction_pointer &&
         memcmp(c->args, n->data.args, sizeof c->args) == 0 && c->op == req->operation &&
         strcmp(c->path, req->path ? req->path : "") == 0 &&
         strcmp(c->address, req->address ? req->address : "") == 0;
}

static bool sbx_un_carry_take(const struct seccomp_notif *n, const struct cs_approval_request *req,
                              struct cs_approval_decision *d)
{
  uint64_t now = sbx_un_carry_now_ms();
  bool found = false;
  pthread_mutex_lock(&sbx_un_carry.lock);
  for (unsigned i = 0; i < SBX_UN_CARRY_SLOTS && !found; i++) {
    struct sbx_un_carried *c = &sbx_un_carry.slot[i];
    if (c->used && c->expires_ms < now)
      c->used = false;
    if (c->used && sbx_un_carry_same(c, n, req)) {
      *d = c->d;
      c->used = false; /* once */
      found = true;
    }
  }
  pthread_mutex_unlock(&sbx_un_carry.lock);
  return found;
}

static void sbx_un_carry_put(const struct seccomp_notif *n, const struct cs_approval_request *req,
                             const struct cs_approval_decision *d)
{
  struct sbx_un_carried *c;
  size_t pl = req->path ? strlen(req->path) : 0, al = req->address ? strlen(req->address) : 0;
  /* Too long to keep whole: not kept (the call is asked again). */
  if (pl >= sizeof c->path || al >= sizeof c->address)
    return;
  pthread_mutex_lock(&sbx_un_carry.lock);
  c = &sbx_un_carry.slot[sbx_un_carry.next++ % SBX_UN_CARRY_SLOTS];
  memset(c, 0, sizeof *c);
  c->used = true;
  c->expires_ms = sbx_un_carry_now_ms() + SBX_UN_CARRY_MS;
  c->pid = n->pid;
  c->nr = n->data.nr;
  c->ip = n->data.instruction_pointer;
  memcpy(c->args, n->data.args, sizeof c->args);
  c->op = req->operation;
  memcpy(c->path, req->path ? req->path : "", pl + 1);
  memcpy(c->address, req->address ? req->address : "", al + 1);
  c->d = *d;
  pthread_mutex_unlock(&sbx_un_carry.lock);
}

int sbx_un_ask(int listener, const struct seccomp_notif *n, const struct sbx_unotify_cfg *cfg,
               struct cs_approval_request *req, struct cs_approval_decision *d)
{
  uint64_t id = n->id;
  int r;
  if (sbx_un_carry_take(n, req, d))
    return d->allow ? 0 : -EPERM;
  r = cs_approval_ask(cfg->mgr, req, d);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
    sbx_un_carry_put(n, req, d);
    return -ESRCH;
  }
  return r;
}
