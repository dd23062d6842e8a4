/* cs_shared_sched: cross-process admission through a shared file
 * (commander.h section 3, docs/runtime.md "Shared-memory variant").
 *
 * Layout of the file: a header (magic, model fingerprint, sizes, the state
 * index, a redo journal), then max_holders holder records, then
 * max_waiters waiter records. Every change happens under the lock and goes
 * through the journal: the new values are written to the journal, the
 * journal is marked valid, the values are applied, the mark is cleared. A
 * process killed anywhere in that sequence leaves either an invalid journal
 * (nothing applied) or a valid one, which the next locker applies again
 * (the values are absolute, so replaying is idempotent): a live holder
 * always clears the mark before it unlocks, so a valid journal at locking
 * time is a dead one's. The file is therefore never half-updated: a
 * SIGKILL cannot leak a slot or duplicate one.
 *
 * The lock is flock(2) on a descriptor of the file opened for that one
 * critical section, not a mutex inside the mapping: the kernel releases it
 * when its holder dies (as a robust mutex), it excludes threads too (each
 * opens its own), no process that forked keeps it by accident (the
 * descriptor exists only inside the critical section), and its format
 * belongs to no C library. sbx's static front end is linked against musl,
 * the full sbx against glibc, and both admit through this file
 * (docs/sbx.md, "Front end"); a process-shared pthread mutex has a
 * different layout in each.
 *
 * A holder is identified by pid and start time (field 22 of /proc/PID/stat,
 * clock ticks since boot), so a recycled pid is not mistaken for it. When
 * its process is gone (or a zombie), reclaim fires its completion, unless
 * it named a guard (cs_shared_guard: the run's pid 1) still alive. When the
 * liveness of a process cannot be determined (no /proc), it is treated as
 * alive: a slot may stay taken, but none is ever handed out twice. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "commander.h"
#include "cs_table_check.h"

#define SHM_MAGIC UINT64_C(0x31304d44415343) /* "CSADM01" */
#define SHM_LAYOUT 4u /* 3: flock instead of an in-file pthread mutex; 4: guards */
#define JOURNAL_MAX 12

struct jentry {
  uint64_t off; /* from the start of the mapping */
  uint64_t value;
  uint32_t width; /* 4 or 8 */
  uint32_t pad;
};

struct shm_header {
  uint64_t magic; /* written last at creation: a torn creation is not valid */
  uint32_t layout;
  uint32_t n_transitions;
  uint32_t n_states;
  uint32_t max_holders;
  uint32_t max_waiters;
  uint32_t pad0;
  uint64_t fingerprint;
  uint64_t size;
  _Atomic uint32_t state;
  uint32_t pad1;
  uint64_t next_arrival;
  uint64_t last_poll_ms; /* advisory: when a waiter last looked for dead holders */
  _Atomic uint32_t journal_valid;
  uint32_t journal_n;
  struct jentry journal[JOURNAL_MAX];
};

struct shm_holder {
  uint64_t generation; /* bumped when the record is freed */
  uint32_t used;
  uint32_t admission;
  int32_t pid;
  int32_t guard_pid; /* cs_shared_guard; 0: none */
  uint64_t start_time;
  uint64_t guard_start;
};

struct shm_waiter {
  uint32_t used;
  uint32_t admission;
  int32_t pid;
  _Atomic uint32_t granted; /* futex word: 0 waiting, 1 granted */
  uint64_t start_time;
  uint64_t arrival;
  uint32_t holder; /* valid once granted */
  uint32_t pad;
  uint64_t holder_gen;
};

struct cs_shared_sched {
  const struct cs_model_table *table;
  struct shm_header *h;
  struct shm_holder *holders;
  struct shm_waiter *waiters;
  size_t size;
  pid_t pid; /* identity of this process, refreshed after fork */
  uint64_t start_time;
  /* The file, for the lock: reopened by name for each critical section
   * and checked to be the mapped one (dev, ino). */
  char *path;
  dev_t dev;
  ino_t ino;
};

/* ---- process identity ---- */

/* Start time of pid in clock ticks since boot; 0 when it is gone or a
 * zombie (dead for our purposes), -1 when it cannot be told. */
static int64_t proc_start_time(pid_t pid)
{
  char path[64], buf[1024];
  ssize_t n;
  int fd;
  char *p;
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT || errno == ESRCH ? 0 : -1;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return n == 0 ? 0 : -1;
  buf[n] = '\0';
  /* comm may hold spaces and parentheses: fields start after the last ')'. */
  p = strrchr(buf, ')');
  if (!p || p[1] != ' ')
    return -1;
  p += 2; /* field 3: state */
  if (*p == 'Z' || *p == 'X')
    return 0;
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p)
      return -1;
    p++;
  }
  return strtoll(p, NULL, 10);
}

static bool holder_dead(pid_t pid, uint64_t start)
{
  int64_t st = proc_start_time(pid);
  if (st < 0)
    return false; /* unknown: keep the slot rather than risk handing it out twice */
  return st == 0 || (uint64_t)st != start;
}

static int refresh_identity(struct cs_shared_sched *sh)
{
  pid_t me = getpid();
  if (me == sh->pid && sh->start_time)
    return 0;
  int64_t st = proc_start_time(me);
  if (st <= 0)
    return -EPROTO; /* without our own identity a kill could not be told apart */
  sh->pid = me;
  sh->start_time = (uint64_t)st;
  return 0;
}

/* ---- journal and lock ---- */

static void jr_begin(struct cs_shared_sched *sh)
{
  sh->h->journal_n = 0;
}

static void jr_put(struct cs_shared_sched *sh, const void *field, uint64_t value, uint32_t width)
{
  struct shm_header *h = sh->h;
  /* JOURNAL_MAX covers the largest update (a waiter's grant: 9 holder and
   * waiter fields plus the state); overflowing it is a bug, not an input. */
  if (h->journal_n >= JOURNAL_MAX)
    abort();
  h->journal[h->journal_n++] =
      (struct jentry){ (uint64_t)((const char *)field - (const char *)h), value, width, 0 };
}

static void jr_apply_n(struct shm_header *h, uint32_t n)
{
  for (uint32_t i = 0; i < n && i < h->journal_n && i < JOURNAL_MAX; i++) {
    struct jentry *e = &h->journal[i];
    bool ok = (e->width == 4 && e->off == offsetof(struct shm_header, state)) ||
              (e->width == 8 && e->off == offsetof(struct shm_header, next_arrival)) ||
              ((e->width == 4 || e->width == 8) && e->off >= sizeof *h && e->off % e->width == 0 &&
               e->off + e->width <= h->size);
    if (!ok)
      continue; /* never write outside the records, whatever the file says */
    char *p = (char *)h + e->off;
    if (e->width == 4)
      __atomic_store_n((uint32_t *)p, (uint32_t)e->value, __ATOMIC_RELEASE);
    else
      __atomic_store_n((uint64_t *)p, e->value, __ATOMIC_RELEASE);
  }
}

static void jr_apply(struct shm_header *h)
{
  jr_apply_n(h, JOURNAL_MAX);
}

#ifdef CS_SHARED_TEST_HOOKS
/* Test builds only (tests/admission links a separate copy): >= 0 kills the
 * process with SIGKILL after applying that many entries of its next commit,
 * -2 before the commit becomes valid, so the repair path can be shown. */
int cs_shared_test_kill_at = -1;
#endif

static void jr_commit(struct cs_shared_sched *sh)
{
#ifdef CS_SHARED_TEST_HOOKS
  if (cs_shared_test_kill_at == -2)
    raise(SIGKILL);
#endif
  atomic_store_explicit(&sh->h->journal_valid, 1, memory_order_release);
#ifdef CS_SHARED_TEST_HOOKS
  if (cs_shared_test_kill_at >= 0) {
    jr_apply_n(sh->h, (uint32_t)cs_shared_test_kill_at);
    raise(SIGKILL);
  }
#endif
  jr_apply(sh->h);
  atomic_store_explicit(&sh->h->journal_valid, 0, memory_order_release);
}

/* The lock (see the top of the file): a descriptor >= 0 for shm_unlock,
 * or a negative errno (-ESTALE: the name now holds another file). */
static int shm_lock(struct cs_shared_sched *sh)
{
  struct stat st;
  int fd = open(sh->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), e;
  if (fd < 0)
    return -errno;
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      e = errno;
      close(fd);
      return -e;
    }
  if (fstat(fd, &st) != 0 || st.st_dev != sh->dev || st.st_ino != sh->ino) {
    close(fd);
    return -ESTALE;
  }
  /* A valid journal now is the update of a locker that died inside the
   * critical section: finish it (or drop it, if it never became valid). */
  if (atomic_load(&sh->h->journal_valid))
    jr_apply(sh->h);
  atomic_store(&sh->h->journal_valid, 0);
  return fd;
}

/* Closing the only descriptor of its open file description releases it. */
static void shm_unlock(int lock)
{
  close(lock);
}

static void futex_wake_all(_Atomic uint32_t *word)
{
  syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

static void futex_wait_ms(_Atomic uint32_t *word, uint32_t expect, long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  syscall(SYS_futex, word, FUTEX_WAIT, expect, &ts, NULL, 0);
}

/* ---- the model, under the lock ---- */

static int32_t next_of(const struct cs_shared_sched *sh, uint32_t st, uint32_t t)
{
  return sh->table->next_state[(size_t)st * sh->table->n_transitions + t];
}

static uint32_t cur_state(const struct cs_shared_sched *sh)
{
  uint32_t st = atomic_load(&sh->h->state);
  /* The file is shared with other processes: never index with a value
   * that is out of range, whoever wrote it. */
  return st < sh->table->n_states ? st : UINT32_MAX;
}

static bool is_admission(const struct cs_shared_sched *sh, uint32_t t)
{
  return t < sh->table->n_transitions && sh->table->transition_kinds[t] == CS_TRANSITION_ADMISSION;
}

/* The state after completing admission a from st: fires enabled
 * non-completion progress steps until the completion is enabled (the
 * admitted work runs through its stages), then the completion. Returns the
 * state, or -EAGAIN when the completion cannot be reached. */
static int64_t completion_target(const struct cs_shared_sched *sh, uint32_t st, uint32_t a)
{
  const struct cs_model_table *t = sh->table;
  int32_t c = t->transition_completion[a];
  if (c < 0)
    return st;
  for (uint32_t steps = 0; steps <= t->n_states; steps++) {
    int32_t nx = next_of(sh, st, (uint32_t)c);
    if (nx >= 0)
      return nx;
    bool moved = false;
    for (uint32_t p = 0; p < t->n_transitions && !moved; p++) {
      if (t->transition_kinds[p] != CS_TRANSITION_PROGRESS || cs_table_is_completion(t, p))
        continue;
      nx = next_of(sh, st, p);
      if (nx >= 0) {
        st = (uint32_t)nx;
        moved = true;
      }
    }
    if (!moved)
      return -EAGAIN;
  }
  return -EAGAIN;
}

static int free_holder(const struct cs_shared_sched *sh)
{
  for (uint32_t i = 0; i < sh->h->max_holders; i++)
    if (!sh->holders[i].used)
      return (int)i;
  return -ENOSPC;
}

/* Journals a new holder record for (pid, start) and the state change. */
static void put_grant(struct cs_shared_sched *sh, uint32_t idx, uint32_t a, pid_t pid,
                      uint64_t start, uint32_t to)
{
  struct shm_holder *ho = &sh->holders[idx];
  jr_put(sh, &ho->admission, a, 4);
  jr_put(sh, &ho->pid, (uint32_t)pid, 4);
  jr_put(sh, &ho->start_time, start, 8);
  jr_put(sh, &ho->guard_pid, 0, 4);
  jr_put(sh, &ho->guard_start, 0, 8);
  jr_put(sh, &ho->used, 1, 4);
  jr_put(sh, &sh->h->state, to, 4);
}

/* Oldest queued waiter of admission a, or -1. */
static int oldest_waiter(const struct cs_shared_sched *sh, uint32_t a)
{
  int best = -1;
  for (uint32_t i = 0; i < sh->h->max_waiters; i++) {
    const struct shm_waiter *w = &sh->waiters[i];
    if (w->used && !atomic_load(&w->granted) && w->admission == a &&
        (best < 0 || w->arrival < sh->waiters[best].arrival))
      best = (int)i;
  }
  return best;
}

/* Grants queued waiters while the table allows, oldest eligible first. */
static void dispatch(struct cs_shared_sched *sh)
{
  for (;;) {
    uint32_t st = cur_state(sh);
    int best = -1, hidx;
    if (st == UINT32_MAX)
      return;
    for (uint32_t a = 0; a < sh->table->n_transitions; a++) {
      if (!is_admission(sh, a) || next_of(sh, st, a) < 0)
        continue;
      int w = oldest_waiter(sh, a);
      if (w >= 0 && (best < 0 || sh->waiters[w].arrival < sh->waiters[best].arrival))
        best = w;
    }
    if (best < 0 || (hidx = free_holder(sh)) < 0)
      return;
    struct shm_waiter *w = &sh->waiters[best];
    jr_begin(sh);
    put_grant(sh, (uint32_t)hidx, w->admission, w->pid, w->start_time,
              (uint32_t)next_of(sh, st, w->admission));
    jr_put(sh, &w->holder, (uint32_t)hidx, 4);
    jr_put(sh, &w->holder_gen, sh->holders[hidx].generation, 8);
    jr_put(sh, &w->granted, 1, 4);
    jr_commit(sh);
    futex_wake_all(&w->granted);
  }
}

/* Fires the completion of holder record idx and frees it. */
static int release_holder(struct cs_shared_sched *sh, uint32_t idx)
{
  struct shm_holder *ho = &sh->holders[idx];
  uint32_t st = cur_state(sh);
  int64_t to;
  if (st == UINT32_MAX || ho->admission >= sh->table->n_transitions)
    return -EPROTO;
  to = completion_target(sh, st, ho->admission);
  if (to < 0)
    return (int)to;
  jr_begin(sh);
  jr_put(sh, &sh->h->state, (uint64_t)to, 4);
  jr_put(sh, &ho->generation, ho->generation + 1, 8);
  jr_put(sh, &ho->used, 0, 4);
  jr_commit(sh);
  return 0;
}

static int reclaim_locked(struct cs_shared_sched *sh)
{
  int n = 0;
  for (uint32_t i = 0; i < sh->h->max_waiters; i++) {
    struct shm_waiter *w = &sh->waiters[i];
    /* A dead waiter leaves the queue; if it had been granted, its holder
     * record carries its identity and is reclaimed below. */
    if (w->used && holder_dead(w->pid, w->start_time)) {
      jr_begin(sh);
      jr_put(sh, &w->used, 0, 4);
      jr_commit(sh);
    }
  }
  for (uint32_t i = 0; i < sh->h->max_holders; i++) {
    struct shm_holder *ho = &sh->holders[i];
    /* With a guard (the run's pid 1), the slot returns only once the
     * sandbox is gone too: a holder killed first does not free it early. */
    if (ho->used && holder_dead(ho->pid, ho->start_time) &&
        (ho->guard_pid <= 0 || holder_dead(ho->guard_pid, ho->guard_start)) &&
        release_holder(sh, i) == 0)
      n++;
  }
  if (n)
    dispatch(sh);
  return n;
}

/* ---- open / close ---- */

static size_t layout_size(uint32_t holders, uint32_t waiters)
{
  return sizeof(struct shm_header) + (size_t)holders * sizeof(struct shm_holder) +
         (size_t)waiters * sizeof(struct shm_waiter);
}

static void bind_records(struct cs_shared_sched *sh)
{
  sh->holders = (struct shm_holder *)(sh->h + 1);
  sh->waiters = (struct shm_waiter *)(sh->holders + sh->h->max_holders);
}

static int init_file(int fd, const struct cs_model_table *t, const struct cs_shared_opts *opts,
                     uint64_t fingerprint, size_t *size)
{
  uint32_t nh = opts && opts->max_holders ? opts->max_holders : CS_SHARED_DEFAULT_RECORDS;
  uint32_t nw = opts && opts->max_waiters ? opts->max_waiters : CS_SHARED_DEFAULT_RECORDS;
  struct shm_header *h;

  if (nh > 65536 || nw > 65536)
    return -EINVAL;
  *size = layout_size(nh, nw);
  if (ftruncate(fd, (off_t)*size) != 0)
    return -errno;
  h = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (h == MAP_FAILED)
    return -errno;
  memset(h, 0, *size);
  h->layout = SHM_LAYOUT;
  h->n_transitions = t->n_transitions;
  h->n_states = t->n_states;
  h->max_holders = nh;
  h->max_waiters = nw;
  h->fingerprint = fingerprint;
  h->size = *size;
  atomic_init(&h->state, t->initial_state);
  atomic_thread_fence(memory_order_release);
  __atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
  munmap(h, *size);
  return 0;
}

/* cs_table_check, saying why on stderr when the table is malformed. */
static int shm_table_check(const struct cs_model_table *t, bool deep)
{
  char why[256];
  int rc = cs_table_check(t, deep, why, sizeof why);
  if (rc == -EPROTO)
    fprintf(stderr, "cs_runtime: model table %s rejected: %s\n",
            t->model_name ? t->model_name : "?", why);
  return rc;
}

int cs_shared_open(const char *path, const struct cs_model_table *table,
                   const struct cs_shared_opts *opts, struct cs_shared_sched **out)
{
  struct cs_shared_sched *sh = NULL;
  struct shm_header hdr;
  struct stat st;
  uint64_t fp;
  size_t size;
  int fd = -1, rc;

  if (!path || !table || !out)
    return -EINVAL;
  *out = NULL;
  /* The structural checks now; the deep one (every successor re-derived
   * from the arcs) only when this process creates the file. A file that
   * exists holds the fingerprint of a table its creator deep-checked, and
   * its header must match ours below, so that table is this one. */
  if ((rc = shm_table_check(table, false)) != 0)
    return rc;
  fp = cs_table_fingerprint(table);
  /* O_NOFOLLOW: a symlink planted in the directory must not redirect the
   * state of every sandbox to a file of the attacker's choosing. */
  fd =
      open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, opts && opts->mode ? opts->mode : 0600);
  if (fd < 0)
    return -errno;
  /* Creation and first inspection are serialised by an advisory lock, so
   * two processes racing to create the file cannot both initialise it. */
  if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
    rc = -errno;
    goto fail;
  }
  if (!S_ISREG(st.st_mode) || (st.st_mode & S_IWOTH)) {
    /* Anyone who can write the file decides who is admitted. */
    rc = -EPERM;
    goto fail;
  }
  /* Under the flock, a file without the magic is one whose creator died
   * before finishing (nobody uses a file before its magic is set): make
   * it again. */
  if (st.st_size == 0 ||
      ((size_t)st.st_size >= sizeof hdr && pread(fd, &hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr &&
       hdr.magic == 0)) {
    if ((rc = shm_table_check(table, true)) != 0 ||
        (rc = init_file(fd, table, opts, fp, &size)) != 0)
      goto fail;
  } else {
    if ((size_t)st.st_size < sizeof hdr || pread(fd, &hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr) {
      rc = -ESTALE;
      goto fail;
    }
    if (hdr.magic != SHM_MAGIC || hdr.layout != SHM_LAYOUT || hdr.fingerprint != fp ||
        hdr.n_states != table->n_states || hdr.n_transitions != table->n_transitions ||
        hdr.max_holders == 0 || hdr.max_holders > 65536 || hdr.max_waiters == 0 ||
        hdr.max_waiters > 65536 || hdr.size != layout_size(hdr.max_holders, hdr.max_waiters) ||
        hdr.size != (uint64_t)st.st_size) {
      /* Not the file of this table: a malformed table says so first. */
      rc = shm_table_check(table, true);
      if (rc == 0)
        rc = -ESTALE;
      goto fail;
    }
    size = hdr.size;
  }
  sh = calloc(1, sizeof *sh);
  if (!sh) {
    rc = -ENOMEM;
    goto fail;
  }
  sh->h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (sh->h == MAP_FAILED) {
    rc = -errno;
    goto fail;
  }
  sh->size = size;
  sh->table = table;
  sh->dev = st.st_dev;
  sh->ino = st.st_ino;
  if (!(sh->path = strdup(path))) {
    rc = -ENOMEM;
    goto fail;
  }
  bind_records(sh);
  rc = refresh_identity(sh);
  if (rc)
    goto fail;
  flock(fd, LOCK_UN);
  close(fd);
  *out = sh;
  return 0;

fail:
  if (sh && sh->h && sh->h != MAP_FAILED)
    munmap(sh->h, sh->size);
  if (sh)
    free(sh->path);
  free(sh);
  if (fd >= 0)
    close(fd);
  return rc;
}

void cs_shared_close(struct cs_shared_sched *sh)
{
  if (!sh)
    return;
  munmap(sh->h, sh->size);
  free(sh->path);
  free(sh);
}

/* ---- admission ---- */

static bool waiters_for(const struct cs_shared_sched *sh, uint32_t a)
{
  return oldest_waiter(sh, a) >= 0;
}

/* Under the lock: grant a to this process now if the table allows and no
 * earlier caller of a waits. 0, -EAGAIN, -ENOSPC. */
static int grant_now(struct cs_shared_sched *sh, uint32_t a, struct cs_shared_ticket *tk)
{
  uint32_t st = cur_state(sh);
  int hidx;
  if (st == UINT32_MAX)
    return -EPROTO;
  if (waiters_for(sh, a) || next_of(sh, st, a) < 0)
    return -EAGAIN;
  hidx = free_holder(sh);
  if (hidx < 0)
    return -ENOSPC;
  jr_begin(sh);
  put_grant(sh, (uint32_t)hidx, a, sh->pid, sh->start_time, (uint32_t)next_of(sh, st, a));
  jr_commit(sh);
  tk->holder = (uint32_t)hidx;
  tk->admission = a;
  tk->generation = sh->holders[hidx].generation;
  return 0;
}

/* Common start of both admissions: arguments, our identity, the lock
 * (its descriptor, or a negative errno). */
static int admit_enter(struct cs_shared_sched *sh, uint32_t a, const struct timespec *deadline,
                       const struct cs_shared_ticket *tk)
{
  int rc;
  if (!sh || !tk || !is_admission(sh, a) ||
      (deadline && (deadline->tv_nsec < 0 || deadline->tv_nsec >= 1000000000L)))
    return -EINVAL;
  rc = refresh_identity(sh);
  return rc ? rc : shm_lock(sh);
}

int cs_shared_try_admit(struct cs_shared_sched *sh, uint32_t a, struct cs_shared_ticket *tk)
{
  int lock = admit_enter(sh, a, NULL, tk), rc;
  if (lock < 0)
    return lock;
  rc = grant_now(sh, a, tk);
  shm_unlock(lock);
  return rc;
}

static uint64_t mono_ms(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

static long ms_until(const struct timespec *dl)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long)(dl->tv_sec - now.tv_sec) * 1000 + (dl->tv_nsec - now.tv_nsec) / 1000000;
}

void cs_shared_tier_info(const struct cs_shared_sched *sh, uint32_t a, uint64_t before_arrival,
                         struct cs_shared_wait_info *info)
{
  memset(info, 0, sizeof *info);
  info->state = cur_state(sh);
  for (uint32_t i = 0; i < sh->h->max_holders; i++)
    if (__atomic_load_n(&sh->holders[i].used, __ATOMIC_ACQUIRE) && sh->holders[i].admission == a)
      info->in_use++;
  for (uint32_t i = 0; i < sh->h->max_waiters; i++) {
    const struct shm_waiter *w = &sh->waiters[i];
    if (__atomic_load_n(&w->used, __ATOMIC_ACQUIRE) && w->admission == a &&
        !atomic_load(&w->granted) && w->arrival < before_arrival)
      info->ahead++;
  }
}

int cs_shared_admit(struct cs_shared_sched *sh, uint32_t a, const struct timespec *deadline,
                    struct cs_shared_ticket *tk)
{
  return cs_shared_admit_notice(sh, a, deadline, NULL, tk);
}

int cs_shared_admit_notice(struct cs_shared_sched *sh, uint32_t a, const struct timespec *deadline,
                           const struct cs_shared_wait_notice *notice, struct cs_shared_ticket *tk)
{
  struct shm_waiter *w = NULL;
  struct cs_shared_wait_info info;
  bool noticed = notice == NULL || notice->fn == NULL, tell = false;
  uint64_t queued_ms = 0, my_arrival = 0;
  int rc, widx = -1, lock;

  lock = admit_enter(sh, a, deadline, tk);
  if (lock < 0)
    return lock;
  reclaim_locked(sh);
  rc = grant_now(sh, a, tk);
  if (rc != -EAGAIN && rc != -ENOSPC)
    goto out;
  for (uint32_t i = 0; i < sh->h->max_waiters; i++)
    if (!sh->waiters[i].used) {
      widx = (int)i;
      break;
    }
  if (widx < 0) {
    rc = -ENOSPC;
    goto out;
  }
  w = &sh->waiters[widx];
  jr_begin(sh);
  jr_put(sh, &w->admission, a, 4);
  jr_put(sh, &w->pid, (uint32_t)sh->pid, 4);
  jr_put(sh, &w->start_time, sh->start_time, 8);
  jr_put(sh, &w->arrival, sh->h->next_arrival, 8);
  jr_put(sh, &w->granted, 0, 4);
  jr_put(sh, &w->used, 1, 4);
  my_arrival = sh->h->next_arrival;
  jr_put(sh, &sh->h->next_arrival, sh->h->next_arrival + 1, 8);
  jr_commit(sh);
  queued_ms = mono_ms();
  for (;;) {
    if (atomic_load(&w->granted)) {
      tk->holder = w->holder;
      tk->admission = a;
      tk->generation = w->holder_gen;
      jr_begin(sh);
      jr_put(sh, &w->used, 0, 4);
      jr_commit(sh);
      rc = 0;
      goto out;
    }
    long ms = CS_SHARED_POLL_MS;
    if (deadline) {
      long left = ms_until(deadline);
      if (left <= 0) {
        jr_begin(sh);
        jr_put(sh, &w->used, 0, 4);
        jr_commit(sh);
        dispatch(sh); /* a later arrival of another admission may be eligible */
        rc = -ETIMEDOUT;
        goto out;
      }
      if (left < ms)
        ms = left;
    }
    if (!noticed) {
      /* The snapshot is taken under the lock, the caller told without it:
       * a notice written to a full pipe must not stall every other sbx. */
      uint64_t waited = mono_ms() - queued_ms;
      if (waited >= notice->after_ms) {
        cs_shared_tier_info(sh, a, my_arrival, &info);
        info.waited_ms = waited;
        noticed = tell = true;
      } else if ((long)(notice->after_ms - waited) < ms) {
        ms = (long)(notice->after_ms - waited);
      }
    }
    shm_unlock(lock);
    if (tell) {
      notice->fn(notice->ctx, &info);
      tell = false;
    }
    /* Sleep until granted, or poll: a holder killed by SIGKILL never
     * completes, so waiters look for dead holders themselves. */
    futex_wait_ms(&w->granted, 0, ms);
    lock = shm_lock(sh);
    if (lock < 0)
      return lock;
    /* One waiter per poll interval reads /proc for all of them: with many
     * waiters the cost stays that of one. */
    uint64_t now = mono_ms();
    if (!atomic_load(&w->granted) && now - sh->h->last_poll_ms >= CS_SHARED_POLL_MS) {
      sh->h->last_poll_ms = now;
      reclaim_locked(sh);
      dispatch(sh);
    }
  }
out:
  shm_unlock(lock);
  return rc;
}

/* A ticket's arguments: the ones every ticket call checks first. */
static bool ticket_ok(const struct cs_shared_sched *sh, const struct cs_shared_ticket *tk)
{
  return sh && tk && tk->holder < sh->h->max_holders && is_admission(sh, tk->admission);
}

/* Under the lock: 0 when tk's holder record is still the one it was
 * granted; generations only grow, so an older ticket was completed
 * already (-EALREADY); -EINVAL: not a ticket of this record. */
static int ticket_current(const struct cs_shared_sched *sh, const struct cs_shared_ticket *tk)
{
  const struct shm_holder *ho = &sh->holders[tk->holder];
  if (ho->used && ho->generation == tk->generation && ho->admission == tk->admission)
    return 0;
  return tk->generation < ho->generation ? -EALREADY : -EINVAL;
}

int cs_shared_complete(struct cs_shared_sched *sh, const struct cs_shared_ticket *tk)
{
  int rc, lock;
  if (!ticket_ok(sh, tk))
    return -EINVAL;
  lock = shm_lock(sh);
  if (lock < 0)
    return lock;
  rc = ticket_current(sh, tk);
  if (rc == 0)
    rc = release_holder(sh, tk->holder);
  if (rc == 0)
    dispatch(sh);
  shm_unlock(lock);
  return rc;
}

int cs_shared_guard(struct cs_shared_sched *sh, const struct cs_shared_ticket *tk, pid_t guard)
{
  struct shm_holder *ho;
  int64_t start;
  int rc, lock;
  if (!ticket_ok(sh, tk) || guard <= 0)
    return -EINVAL;
  /* A guard whose liveness cannot be told would keep the slot for good. */
  start = proc_start_time(guard);
  if (start == 0)
    return -ESRCH;
  if (start < 0)
    return -EPROTO;
  lock = shm_lock(sh);
  if (lock < 0)
    return lock;
  rc = ticket_current(sh, tk);
  if (rc == 0) {
    ho = &sh->holders[tk->holder];
    jr_begin(sh);
    jr_put(sh, &ho->guard_pid, (uint32_t)guard, 4);
    jr_put(sh, &ho->guard_start, (uint64_t)start, 8);
    jr_commit(sh);
  }
  shm_unlock(lock);
  return rc;
}

int cs_shared_reclaim(struct cs_shared_sched *sh)
{
  int rc, lock;
  if (!sh)
    return -EINVAL;
  lock = shm_lock(sh);
  if (lock < 0)
    return lock;
  rc = reclaim_locked(sh);
  shm_unlock(lock);
  return rc;
}

int cs_shared_lookup_admission(const struct cs_shared_sched *sh, const char *name)
{
  if (!sh || !name)
    return -EINVAL;
  for (uint32_t t = 0; t < sh->table->n_transitions; t++)
    if (strcmp(sh->table->transition_names[t], name) == 0)
      return is_admission(sh, t) ? (int)t : -EINVAL;
  return -ENOENT;
}

uint32_t cs_shared_state(const struct cs_shared_sched *sh)
{
  return atomic_load(&sh->h->state);
}

/* Records in use, counting the `used` word of each. */
static int count_used(const void *records, size_t stride, uint32_t n)
{
  int used = 0;
  for (uint32_t i = 0; i < n; i++)
    used += __atomic_load_n((const uint32_t *)((const char *)records + i * stride),
                            __ATOMIC_ACQUIRE) != 0;
  return used;
}

int cs_shared_holders(const struct cs_shared_sched *sh)
{
  return count_used(&sh->holders[0].used, sizeof *sh->holders, sh->h->max_holders);
}

int cs_shared_waiters(const struct cs_shared_sched *sh)
{
  return count_used(&sh->waiters[0].used, sizeof *sh->waiters, sh->h->max_waiters);
}
