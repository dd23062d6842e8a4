/* cs_sched: in-process admission by table lookup (docs/runtime.md).
 *
 * The marking is one atomic state index into S. Every step (admission,
 * progress, completion) is: load the state, look up next_state, CAS. A
 * state index only ever comes from the table, and the table only maps
 * states of S to states of S, so no interleaving can leave S or over-commit
 * a place: a CAS that lost a race just retries from the newer state.
 *
 * Waiting. A refused admission takes `lock`, queues a waiter node in its
 * admission's FIFO and sleeps on the node's own condition variable. A
 * waiter is only ever granted by a dispatcher (someone holding `lock`) that
 * performs the CAS on its behalf, so the FIFO order is exact.
 *
 * No lost wake-up (Dekker, all operations seq_cst): a waiter increments
 * n_waiters BEFORE it reads the state it finds refused; every successful
 * state change reads n_waiters AFTER its CAS. In the single total order
 * either the changer's CAS precedes the waiter's read (the waiter sees the
 * new state) or the waiter's increment precedes the changer's read (the
 * changer sees a waiter, takes the lock, which the waiter holds until it is
 * asleep, and dispatches).
 *
 * No overtaking: waiting[a] counts callers of admission a inside the slow
 * path; the fast path is only taken while it is 0. A caller that saw 0
 * arrived before the waiter incremented it. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commander.h"
#include "cs_table_check.h"

/* Ticket registry slot word: status (2 bits), admission (15 bits),
 * generation (47 bits). One word, so claim/release are single atomics. */
enum { SLOT_FREE = 0, SLOT_BUSY = 1, SLOT_COMPLETING = 2, SLOT_PARKED = 3 };
#define SLOT_STATUS(w) ((uint32_t)((w)&3u))
#define SLOT_ADMISSION(w) ((uint32_t)(((w) >> 2) & 0x7fffu))
#define SLOT_GEN(w) ((w) >> 17)
#define SLOT_WORD(gen, adm, st) (((uint64_t)(gen) << 17) | ((uint64_t)(adm) << 2) | (uint64_t)(st))
#define SLOT_GEN_MASK ((UINT64_C(1) << 47) - 1)

struct waiter {
  struct waiter *next, *prev;
  pthread_cond_t cond;
  uint64_t arrival; /* global arrival order, to grant the oldest eligible head first */
  bool granted;
  uint32_t from, to; /* filled by the dispatcher with the grant */
};

struct queue {
  struct waiter *head, *tail;
};

/* Per transition, what the hot path needs in one place. */
struct tinfo {
  _Atomic uint32_t waiting; /* callers of this admission inside the slow path */
  uint8_t admission;        /* kind == CS_TRANSITION_ADMISSION */
  uint8_t completion_step;  /* some admission's completion */
  int32_t completion;       /* for an admission: its completion step, -1 */
};

struct cs_sched {
  /* One cache line: the state word, with what every step reads next to it
   * (a step that wins the line for its CAS finds the rest there too). */
  _Alignas(64) _Atomic uint32_t state;
  _Atomic uint32_t n_waiters; /* callers inside the slow path, all admissions */
  uint32_t nt;
  uint32_t nslots;
  const int32_t *next;
  struct tinfo *ti;
  _Atomic uint64_t *slots;
  const struct cs_model_table *table;
  uint64_t uid; /* for parked slots; under live_lock */
  struct cs_sched *live_next;
  pthread_mutex_t lock;
  struct queue *queues; /* per transition, admissions only */
  uint64_t arrivals;    /* under lock */
  pthread_condattr_t condattr;
};

/* Per-thread starting point of the registry scan: each thread tends to
 * reuse the slot it released last, so claims do not contend. */
static _Thread_local uint32_t slot_hint = UINT32_MAX;
static _Thread_local uint64_t slot_hint_word =
    SLOT_COMPLETING; /* never a free word: forces a scan */
static _Atomic uint32_t slot_hint_seed;

/* Parked slot. A thread that completes a ticket may keep that registry word
 * as PARKED for its own next admission. Nobody else writes a PARKED word
 * (claims skip it, completions expect BUSY), so its owner claims it with a
 * plain store instead of a CAS: one atomic read-modify-write less per
 * admission. A thread parks at most one word, of one scheduler, named by
 * the scheduler's uid (never reused, unlike its address). When the thread
 * exits, a pthread key destructor frees the word if that scheduler still
 * exists (the registry of live schedulers below). */
struct park {
  uint64_t uid; /* 0: nothing parked */
  uint32_t slot;
  uint64_t gen;
  bool keyed; /* the destructor is registered for this thread */
};
static _Thread_local struct park parked;
static pthread_once_t park_once = PTHREAD_ONCE_INIT;
static pthread_key_t park_key;
static bool park_key_ok;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cs_sched *live_head;
static uint64_t live_uids;

/* Registries smaller than this are not parked into: one parked word per
 * thread would be a noticeable share of them. */
#define PARK_MIN_SLOTS 64u

const char *cs_strerror(int err)
{
  switch (err) {
  case 0:
    return "success";
  case -EINVAL:
    return "invalid argument, or a ticket this scheduler never issued";
  case -EAGAIN:
    return "refused now: the step would leave the safe set, or is not enabled";
  case -ETIMEDOUT:
    return "deadline passed before the admission was granted";
  case -EALREADY:
    return "ticket already completed";
  case -EPERM:
    return "completion steps are fired by completing their ticket";
  case -ENOENT:
    return "no transition of that name";
  case -ENOSPC:
    return "no free ticket, holder or waiter record";
  case -ENOMEM:
    return "out of memory";
  case -EPROTO:
    return "model table is malformed or inconsistent";
  case -EBUSY:
    return "waiters queued or tickets outstanding";
  case -ESTALE:
    return "shared admission file holds another model";
  default:
    return err < 0 ? strerror(-err) : "unknown error";
  }
}

static bool is_admission(const struct cs_sched *s, uint32_t t)
{
  return t < s->nt && s->ti[t].admission;
}

/* The only way the state changes. 0 with from/to, or -EAGAIN when t is
 * disabled or refused in the state this attempt observed. */
static int fire_from(struct cs_sched *s, uint32_t t, uint32_t cur, uint32_t *from, uint32_t *to)
{
  for (;;) {
    int32_t nx = s->next[(size_t)cur * s->nt + t];
    if (nx < 0) {
      /* cur may be an early snapshot: refuse only on a fresh read. */
      uint32_t now = atomic_load(&s->state);
      if (now == cur)
        return -EAGAIN;
      cur = now;
      continue;
    }
    if (atomic_compare_exchange_weak(&s->state, &cur, (uint32_t)nx)) {
      *from = cur;
      *to = (uint32_t)nx;
      return 0;
    }
  }
}

/* fire_from with the lookup for a guessed state done by the caller before
 * its previous atomic operation: on the uncontended path no load then
 * stands between that operation and this CAS. */
static inline __attribute__((always_inline)) int
fire_guess(struct cs_sched *s, uint32_t t, uint32_t cur, int32_t nx, uint32_t *from, uint32_t *to)
{
  if (nx >= 0 && atomic_compare_exchange_strong(&s->state, &cur, (uint32_t)nx)) {
    *from = cur;
    *to = (uint32_t)nx;
    return 0;
  }
  return fire_from(s, t, cur, from, to);
}

static int fire(struct cs_sched *s, uint32_t t, uint32_t *from, uint32_t *to)
{
  return fire_from(s, t, atomic_load(&s->state), from, to);
}

static void unlink_waiter(struct queue *q, struct waiter *w)
{
  if (w->prev)
    w->prev->next = w->next;
  else
    q->head = w->next;
  if (w->next)
    w->next->prev = w->prev;
  else
    q->tail = w->prev;
  w->next = w->prev = NULL;
}

/* Grants queue heads while some head's admission is allowed, oldest
 * eligible arrival first. Called with lock held after the state changed. */
static void dispatch(struct cs_sched *s)
{
  for (;;) {
    uint32_t cur = atomic_load(&s->state);
    struct waiter *best = NULL;
    uint32_t best_t = 0;
    for (uint32_t t = 0; t < s->nt; t++) {
      struct waiter *h = s->queues[t].head;
      if (h && s->next[(size_t)cur * s->nt + t] >= 0 && (!best || h->arrival < best->arrival)) {
        best = h;
        best_t = t;
      }
    }
    if (!best)
      return;
    if (fire(s, best_t, &best->from, &best->to) != 0)
      continue; /* the state moved under us; look again */
    unlink_waiter(&s->queues[best_t], best);
    best->granted = true;
    atomic_fetch_sub(&s->ti[best_t].waiting, 1);
    atomic_fetch_sub(&s->n_waiters, 1);
    pthread_cond_signal(&best->cond);
  }
}

#ifdef CS_SCHED_TEST_HOOKS
/* Test builds only (tests/admission links a separate copy): called after a
 * successful state change, before waiters are dispatched, to probe the
 * window in which the fast path must not overtake queued waiters. */
void (*cs_sched_test_after_change)(struct cs_sched *s);
#endif

/* After any successful state change: hand the new state to waiters. */
static void after_change(struct cs_sched *s)
{
#ifdef CS_SCHED_TEST_HOOKS
  if (cs_sched_test_after_change)
    cs_sched_test_after_change(s);
#endif
  if (atomic_load(&s->n_waiters) == 0)
    return;
  pthread_mutex_lock(&s->lock);
  dispatch(s);
  pthread_mutex_unlock(&s->lock);
}

static inline __attribute__((always_inline)) int slot_claim(struct cs_sched *s, uint32_t admission,
                                                            uint32_t *slot, uint64_t *gen)
{
  uint32_t k = slot_hint;
  uint64_t w;
  if (parked.uid == s->uid) {
    /* Ours alone: see struct park. */
    k = parked.slot;
    w = SLOT_WORD(parked.gen, 0, SLOT_FREE);
    parked.uid = 0;
    atomic_store_explicit(&s->slots[k], SLOT_WORD(parked.gen, admission, SLOT_BUSY),
                          memory_order_release);
    goto claimed;
  }
  if (k >= s->nslots) /* first claim of this thread, or a smaller registry */
    k = slot_hint =
        atomic_fetch_add_explicit(&slot_hint_seed, 61, memory_order_relaxed) % s->nslots;
  /* Usually the slot this thread released last is still free, with the
   * word it stored: try that without reading it first. */
  w = slot_hint_word;
  if (SLOT_STATUS(w) == SLOT_FREE &&
      atomic_compare_exchange_strong_explicit(&s->slots[k], &w,
                                              SLOT_WORD(SLOT_GEN(w), admission, SLOT_BUSY),
                                              memory_order_acquire, memory_order_relaxed))
    goto claimed;
  /* No division on the hot path: walk and wrap. */
  for (uint32_t i = 0; i < s->nslots; i++, k = k + 1 == s->nslots ? 0 : k + 1) {
    w = atomic_load_explicit(&s->slots[k], memory_order_relaxed);
    if (SLOT_STATUS(w) != SLOT_FREE)
      continue;
    if (atomic_compare_exchange_strong_explicit(&s->slots[k], &w,
                                                SLOT_WORD(SLOT_GEN(w), admission, SLOT_BUSY),
                                                memory_order_acquire, memory_order_relaxed))
      goto claimed;
  }
  return -ENOSPC;

claimed:
  slot_hint = k;
  *slot = k;
  *gen = SLOT_GEN(w);
  return 0;
}

static void park_free(void *p)
{
  struct park *pk = p;
  pthread_mutex_lock(&live_lock);
  for (struct cs_sched *s = live_head; s && pk->uid; s = s->live_next)
    if (s->uid == pk->uid)
      atomic_store_explicit(&s->slots[pk->slot], SLOT_WORD(pk->gen, 0, SLOT_FREE),
                            memory_order_release);
  pthread_mutex_unlock(&live_lock);
  pk->uid = 0;
}

static void park_key_init(void)
{
  park_key_ok = pthread_key_create(&park_key, park_free) == 0;
}

static void slot_release(struct cs_sched *s, uint32_t slot, uint64_t gen)
{
  gen = (gen + 1) & SLOT_GEN_MASK;
  if (parked.uid == 0 && s->nslots >= PARK_MIN_SLOTS) {
    if (!parked.keyed) {
      pthread_once(&park_once, park_key_init);
      parked.keyed = park_key_ok && pthread_setspecific(park_key, &parked) == 0;
    }
    if (parked.keyed) {
      atomic_store_explicit(&s->slots[slot], SLOT_WORD(gen, 0, SLOT_PARKED), memory_order_release);
      parked = (struct park){ s->uid, slot, gen, true };
      return;
    }
  }
  uint64_t w = SLOT_WORD(gen, 0, SLOT_FREE);
  atomic_store_explicit(&s->slots[slot], w, memory_order_release);
  slot_hint = slot;
  slot_hint_word = w;
}

/* A claimed slot that was never handed out goes back unchanged: no ticket
 * carries its generation, so nothing can be confused by reusing it. */
static void slot_unclaim(struct cs_sched *s, uint32_t slot, uint64_t gen)
{
  atomic_store_explicit(&s->slots[slot], SLOT_WORD(gen, 0, SLOT_FREE), memory_order_release);
}

static void fill_ticket(struct cs_ticket *tk, uint32_t slot, uint32_t adm, uint64_t gen,
                        uint32_t from, uint32_t to)
{
  tk->slot = slot;
  tk->admission = adm;
  tk->generation = gen;
  tk->from_state = from;
  tk->to_state = to;
}

int cs_sched_create(const struct cs_model_table *table, const struct cs_sched_opts *opts,
                    struct cs_sched **out)
{
  struct cs_sched *s = NULL;
  char why[256];
  int rc;
  bool lock_ok = false, attr_ok = false;

  if (!table || !out)
    return -EINVAL;
  *out = NULL;
  rc = cs_table_check(table, !(opts && opts->skip_table_check), why, sizeof why);
  if (rc == -EPROTO) {
    fprintf(stderr, "cs_runtime: model table %s rejected: %s\n",
            table->model_name ? table->model_name : "?", why);
  }
  if (rc)
    return rc;
  if (table->n_transitions > CS_SCHED_MAX_TRANSITIONS)
    return -EPROTO;
  /* sizeof is a multiple of the 64-byte alignment, as aligned_alloc wants. */
  s = aligned_alloc(_Alignof(struct cs_sched), sizeof *s);
  if (!s)
    return -ENOMEM;
  memset(s, 0, sizeof *s);
  s->table = table;
  s->next = table->next_state;
  s->nt = table->n_transitions;
  s->nslots = opts && opts->max_tickets ? opts->max_tickets : CS_SCHED_DEFAULT_TICKETS;
  atomic_init(&s->state, table->initial_state);
  atomic_init(&s->n_waiters, 0);
  s->ti = calloc(s->nt, sizeof *s->ti);
  s->queues = calloc(s->nt, sizeof *s->queues);
  s->slots = calloc(s->nslots, sizeof *s->slots);
  if (!s->ti || !s->queues || !s->slots) {
    rc = -ENOMEM;
    goto fail;
  }
  for (uint32_t t = 0; t < s->nt; t++) {
    s->ti[t].admission = table->transition_kinds[t] == CS_TRANSITION_ADMISSION;
    s->ti[t].completion_step = cs_table_is_completion(table, t);
    s->ti[t].completion = table->transition_completion[t];
  }
  if (pthread_mutex_init(&s->lock, NULL)) {
    rc = -ENOMEM;
    goto fail;
  }
  lock_ok = true;
  /* Deadlines are CLOCK_MONOTONIC: a wall-clock jump must not release or
   * starve a waiter. */
  if (pthread_condattr_init(&s->condattr) ||
      pthread_condattr_setclock(&s->condattr, CLOCK_MONOTONIC)) {
    rc = -ENOMEM;
    goto fail;
  }
  attr_ok = true;
  pthread_mutex_lock(&live_lock);
  s->uid = ++live_uids;
  s->live_next = live_head;
  live_head = s;
  pthread_mutex_unlock(&live_lock);
  *out = s;
  return 0;

fail:
  if (attr_ok)
    pthread_condattr_destroy(&s->condattr);
  if (lock_ok)
    pthread_mutex_destroy(&s->lock);
  free(s->ti);
  free(s->queues);
  free(s->slots);
  free(s);
  return rc;
}

int cs_sched_destroy(struct cs_sched *s)
{
  if (!s)
    return 0;
  if (atomic_load(&s->n_waiters) || cs_sched_outstanding(s))
    return -EBUSY;
  pthread_mutex_lock(&live_lock);
  for (struct cs_sched **pp = &live_head; *pp; pp = &(*pp)->live_next)
    if (*pp == s) {
      *pp = s->live_next;
      break;
    }
  pthread_mutex_unlock(&live_lock);
  if (parked.uid == s->uid)
    parked.uid = 0; /* other threads' parks name a uid that no longer exists */
  pthread_condattr_destroy(&s->condattr);
  pthread_mutex_destroy(&s->lock);
  free(s->ti);
  free(s->queues);
  free(s->slots);
  free(s);
  return 0;
}

int cs_sched_lookup(const struct cs_sched *s, const char *name)
{
  if (!s || !name)
    return -EINVAL;
  for (uint32_t t = 0; t < s->nt; t++)
    if (strcmp(s->table->transition_names[t], name) == 0)
      return (int)t;
  return -ENOENT;
}

int cs_sched_lookup_admission(const struct cs_sched *s, const char *name)
{
  int t = cs_sched_lookup(s, name);
  if (t >= 0 && !is_admission(s, (uint32_t)t))
    return -EINVAL;
  return t;
}

const struct cs_model_table *cs_sched_table(const struct cs_sched *s)
{
  return s ? s->table : NULL;
}

/* The lock-free path, only while nobody of this admission is waiting.
 * `waiting` and `cur` were read before the ticket was claimed, so their
 * latency overlaps the claim; the CAS validates cur, and a caller that saw
 * no waiter arrived before any waiter announced itself. */
static inline __attribute__((always_inline)) int admit_fast(struct cs_sched *s, uint32_t a,
                                                            uint32_t waiting, uint32_t cur,
                                                            int32_t nx, struct cs_ticket *tk,
                                                            uint32_t slot, uint64_t gen)
{
  uint32_t from, to;
  if (waiting != 0 || fire_guess(s, a, cur, nx, &from, &to) != 0)
    return -EAGAIN;
  fill_ticket(tk, slot, a, gen, from, to);
  after_change(s);
  return 0;
}

static int admit_slow(struct cs_sched *s, uint32_t a, const struct timespec *deadline,
                      struct cs_ticket *tk, uint32_t slot, uint64_t gen);

/* Both entry points: the fast path, then (when blocking) the queue. */
static inline __attribute__((always_inline)) int admit(struct cs_sched *s, uint32_t a, bool block,
                                                       const struct timespec *deadline,
                                                       struct cs_ticket *tk)
{
  uint32_t slot;
  uint64_t gen;
  int rc;
  if (!s || !tk || !is_admission(s, a) ||
      (deadline && (deadline->tv_nsec < 0 || deadline->tv_nsec >= 1000000000L)))
    return -EINVAL;
  uint32_t waiting = atomic_load(&s->ti[a].waiting), cur = atomic_load(&s->state);
  int32_t nx = s->next[(size_t)cur * s->nt + a];
  rc = slot_claim(s, a, &slot, &gen);
  if (rc)
    return rc;
  if (admit_fast(s, a, waiting, cur, nx, tk, slot, gen) == 0)
    return 0;
  rc = block ? admit_slow(s, a, deadline, tk, slot, gen) : -EAGAIN;
  if (rc)
    slot_unclaim(s, slot, gen);
  return rc;
}

int cs_try_admit(struct cs_sched *s, uint32_t a, struct cs_ticket *tk)
{
  return admit(s, a, false, NULL, tk);
}

static bool deadline_passed(const struct timespec *dl)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > dl->tv_sec || (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

static int admit_slow(struct cs_sched *s, uint32_t a, const struct timespec *deadline,
                      struct cs_ticket *tk, uint32_t slot, uint64_t gen)
{
  struct waiter w = { 0 };
  struct queue *q = &s->queues[a];
  uint32_t from, to;
  int rc = 0;

  pthread_mutex_lock(&s->lock);
  /* Announce before looking at the state: see the Dekker argument above. */
  atomic_fetch_add(&s->ti[a].waiting, 1);
  atomic_fetch_add(&s->n_waiters, 1);
  if (!q->head && fire(s, a, &from, &to) == 0) {
    atomic_fetch_sub(&s->ti[a].waiting, 1);
    atomic_fetch_sub(&s->n_waiters, 1);
    fill_ticket(tk, slot, a, gen, from, to);
    dispatch(s); /* our admission may have enabled someone else's */
    goto out;
  }
  if (deadline && deadline_passed(deadline)) {
    rc = -ETIMEDOUT;
    goto leave;
  }
  if (pthread_cond_init(&w.cond, &s->condattr)) {
    rc = -ENOMEM;
    goto leave;
  }
  w.arrival = s->arrivals++;
  w.prev = q->tail;
  if (q->tail)
    q->tail->next = &w;
  else
    q->head = &w;
  q->tail = &w;
  while (!w.granted) {
    int e = deadline ? pthread_cond_timedwait(&w.cond, &s->lock, deadline)
                     : pthread_cond_wait(&w.cond, &s->lock);
    if (e == ETIMEDOUT && !w.granted) {
      bool was_head = q->head == &w;
      unlink_waiter(q, &w);
      pthread_cond_destroy(&w.cond);
      rc = -ETIMEDOUT;
      if (was_head)
        dispatch(s); /* others may now be the oldest eligible head */
      goto leave;
    }
  }
  pthread_cond_destroy(&w.cond);
  fill_ticket(tk, slot, a, gen, w.from, w.to); /* the dispatcher already uncounted us */
  goto out;

leave:
  atomic_fetch_sub(&s->ti[a].waiting, 1);
  atomic_fetch_sub(&s->n_waiters, 1);
out:
  pthread_mutex_unlock(&s->lock);
  return rc;
}

int cs_admit_timed(struct cs_sched *s, uint32_t a, const struct timespec *deadline,
                   struct cs_ticket *tk)
{
  return admit(s, a, true, deadline, tk);
}

int cs_admit(struct cs_sched *s, uint32_t a, struct cs_ticket *tk)
{
  return cs_admit_timed(s, a, NULL, tk);
}

int cs_complete(struct cs_sched *s, const struct cs_ticket *tk)
{
  uint64_t w, busy;
  uint32_t from, to, cur;
  int32_t c, nx;
  if (!s || !tk || tk->slot >= s->nslots || !is_admission(s, tk->admission) ||
      tk->generation > SLOT_GEN_MASK)
    return -EINVAL;
  busy = SLOT_WORD(tk->generation, tk->admission, SLOT_BUSY);
  w = busy;
  c = s->ti[tk->admission].completion;
  /* Guess: nothing moved since the admission. Validated by the CAS. */
  cur = tk->to_state < s->table->n_states ? tk->to_state : 0;
  nx = c >= 0 ? s->next[(size_t)cur * s->nt + (uint32_t)c] : CS_DISABLED;
  /* Claim the ticket first, so two racing completions of one ticket fire
   * the completion step once, not twice. */
  if (!atomic_compare_exchange_strong(&s->slots[tk->slot], &w,
                                      SLOT_WORD(tk->generation, tk->admission, SLOT_COMPLETING))) {
    uint64_t g = SLOT_GEN(w);
    /* Generations only grow: an older one was completed already. */
    if (tk->generation < g || (tk->generation == g && SLOT_STATUS(w) == SLOT_COMPLETING))
      return -EALREADY;
    return -EINVAL;
  }
  if (c >= 0) {
    if (fire_guess(s, (uint32_t)c, cur, nx, &from, &to) != 0) {
      atomic_store(&s->slots[tk->slot], busy); /* not done yet: the ticket stays valid */
      return -EAGAIN;
    }
  }
  slot_release(s, tk->slot, tk->generation);
  if (c >= 0)
    after_change(s);
  return 0;
}

int cs_fire_progress(struct cs_sched *s, uint32_t t)
{
  uint32_t from, to;
  if (!s || t >= s->nt)
    return -EINVAL;
  /* Completions move tokens a ticket accounts for; firing one without its
   * ticket would leave a ticket whose work no longer exists. */
  if (s->ti[t].admission || s->ti[t].completion_step)
    return -EPERM;
  if (fire(s, t, &from, &to) != 0)
    return -EAGAIN;
  after_change(s);
  return 0;
}

uint32_t cs_sched_state(const struct cs_sched *s)
{
  return atomic_load(&((struct cs_sched *)s)->state);
}

int cs_sched_marking(const struct cs_sched *s, int64_t *tokens, size_t ntokens)
{
  const struct cs_model_table *t;
  uint32_t st;
  if (!s || !tokens || ntokens < s->table->n_places)
    return -EINVAL;
  t = s->table;
  st = cs_sched_state(s);
  for (uint32_t p = 0; p < t->n_places; p++)
    tokens[p] = 0;
  for (uint32_t c = 0; c < t->n_tracked; c++)
    tokens[t->tracked_places[c]] = t->markings[(size_t)st * t->n_tracked + c];
  return (int)st;
}

int cs_sched_waiting(const struct cs_sched *s, uint32_t a)
{
  if (!s || !is_admission(s, a))
    return -EINVAL;
  return (int)atomic_load(&s->ti[a].waiting);
}

uint32_t cs_sched_outstanding(const struct cs_sched *s)
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->nslots; i++)
    switch (SLOT_STATUS(atomic_load(&((struct cs_sched *)s)->slots[i]))) {
    case SLOT_BUSY:
    case SLOT_COMPLETING:
      n++;
      break;
    default:
      break;
    }
  return n;
}
