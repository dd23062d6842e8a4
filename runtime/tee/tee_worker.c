/* tee_worker: the isolated worker's set-up and request loop (see
 * tee_worker.h). After step 4 nothing here may make a system call other
 * than read, write or exit: no stdio, no malloc, no clock. */
#include "tee_worker.h"

#include "tee_arena.h"
#include "tee_frame.h"
#include "tee_realm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TEE_WORKER_SETUP_FAILED 70
#define TEE_WORKER_CHANNEL_FAILED 71
/* Room for the reply's own fields around the value. */
#define TEE_WORKER_REPLY_SLACK 256u
/* An error message is cut to this. */
#define TEE_WORKER_ERROR_MAX 4096u
/* Above what is mapped when RLIMIT_AS is set: the stack's growth. */
#define TEE_WORKER_AS_MARGIN (16u * 1024u * 1024u)

struct tee_worker {
  int fd;
  char *in;  /* the request as read: two headers and max_message */
  char *out; /* reply buffer, max_message */
  size_t max_message;
  struct tee_arena arena;
  duk_context *ctx;
};

static struct tee_worker tee_w;

/* exit(2), not exit_group(2): strict mode allows only the first, and
 * glibc's _exit() calls the second. The worker has one thread. */
static _Noreturn void tee_worker_exit(int status)
{
  for (;;)
    syscall(SYS_exit, status);
}

static unsigned long long tee_worker_number(const char *s, int *bad)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = strtoull(s, &end, 10);
  if (errno || end == s || *end || *s == '-')
    *bad = 1;
  return v;
}

int tee_worker_parse(int argc, char **argv, struct tee_worker_opts *o)
{
  int bad = 0;

  memset(o, 0, sizeof(*o));
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--heap=", 7) == 0)
      o->heap_bytes = (size_t)tee_worker_number(a + 7, &bad);
    else if (strncmp(a, "--cpu=", 6) == 0)
      o->cpu_seconds = (unsigned)tee_worker_number(a + 6, &bad);
    else if (strncmp(a, "--max-message=", 14) == 0)
      o->max_message = (size_t)tee_worker_number(a + 14, &bad);
#ifdef TEE_WORKER_TEST_HOOKS
    else if (strcmp(a, "--test-no-filter") == 0)
      o->no_filter = true;
    else if (strcmp(a, "--test-syscall") == 0)
      o->syscall_hook = true;
#endif
    else
      bad = 1;
  }
  /* Every limit must be given: a worker never runs on defaults it chose. */
  if (bad || o->heap_bytes < 1024u * 1024u || o->cpu_seconds == 0 || o->max_message < 64u ||
      o->max_message > 64u * 1024u * 1024u)
    return -1;
  return 0;
}

/* Step 1. The channel must be a socket; everything else goes, the three
 * standard descriptors included: the worker has nowhere to print. */
static int tee_worker_close_fds(void)
{
  struct stat st;

  if (fstat(TEE_WORKER_CHANNEL_FD, &st) != 0 || !S_ISSOCK(st.st_mode))
    return -1;
  if (syscall(SYS_close_range, 0u, (unsigned)TEE_WORKER_CHANNEL_FD - 1u, 0u) != 0 ||
      syscall(SYS_close_range, (unsigned)TEE_WORKER_CHANNEL_FD + 1u, ~0u, 0u) != 0)
    return -1;
  return 0;
}

static int tee_worker_limit(int resource, rlim_t value)
{
  struct rlimit rl = { value, value };
  return setrlimit(resource, &rl);
}

/* Step 2. Hard limits (soft = hard, so the worker cannot raise them). */
static int tee_worker_limits(const struct tee_worker_opts *o)
{
  /* RLIMIT_CPU: SIGXCPU at the limit, which kills (no handler is ever
   * installed); the pool retires a worker before its budget is spent. */
  if (tee_worker_limit(RLIMIT_CPU, o->cpu_seconds) != 0 || tee_worker_limit(RLIMIT_CORE, 0) != 0 ||
      tee_worker_limit(RLIMIT_FSIZE, 0) != 0 ||
      tee_worker_limit(RLIMIT_NOFILE, TEE_WORKER_CHANNEL_FD + 1) != 0 ||
      tee_worker_limit(RLIMIT_NPROC, 0) != 0 || tee_worker_limit(RLIMIT_MEMLOCK, 0) != 0 ||
      tee_worker_limit(RLIMIT_MSGQUEUE, 0) != 0)
    return -1;
  return 0;
}

/* Step 3's cap: the address space as now mapped plus the stack's room. */
static int tee_worker_cap_address_space(void)
{
  char buf[128];
  unsigned long long pages;
  ssize_t n;
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  pages = strtoull(buf, NULL, 10);
  if (pages == 0)
    return -1;
  return tee_worker_limit(RLIMIT_AS, (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) +
                                              TEE_WORKER_AS_MARGIN));
}

static void tee_worker_fatal(void *udata, const char *msg)
{
  static const char reply[] =
      "{\"ok\":false,\"error\":\"fatal engine error\",\"heap\":0,\"retire\":true}";
  (void)udata;
  (void)msg;
  /* The heap is not to be trusted now: a fixed reply, then exit. */
  (void)tee_frame_send(tee_w.fd, reply, sizeof reply - 1);
  tee_worker_exit(TEE_WORKER_SETUP_FAILED);
}

#ifdef TEE_WORKER_TEST_HOOKS
#define TEE_WORKER_EXTRA_GLOBAL "__syscall"
/* __syscall(nr, a, b, c): what a hole in the engine would let code do;
 * the escape tests call it (docs/tiers.md, "How it is tested"). */
static duk_ret_t tee_worker_syscall(duk_context *ctx)
{
  long nr = (long)duk_require_number(ctx, 0);
  long a = (long)duk_get_number_default(ctx, 1, 0);
  long b = (long)duk_get_number_default(ctx, 2, 0);
  long c = (long)duk_get_number_default(ctx, 3, 0);
  duk_push_number(ctx, (double)syscall(nr, a, b, c));
  return 1;
}
#else
#define TEE_WORKER_EXTRA_GLOBAL NULL
#endif

static int tee_worker_setup(const struct tee_worker_opts *o)
{
  /* The request with its two headers, and the reply. */
  size_t io = o->max_message + 2 * TEE_FRAME_HEADER + o->max_message;
  unsigned char *region;

  if (tee_worker_close_fds() != 0 || tee_worker_limits(o) != 0)
    return -1;
  /* A worker in an endless loop reads nothing, so it would not see its
   * caller go: it dies with it instead. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    return -1;
  tee_w.fd = TEE_WORKER_CHANNEL_FD;
  tee_w.max_message = o->max_message;
  /* Step 3: all the memory the worker will ever have, in one mapping. */
  region =
      mmap(NULL, io + o->heap_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return -1;
  tee_w.in = (char *)region;
  tee_w.out = (char *)region + o->max_message + 2 * TEE_FRAME_HEADER;
  tee_arena_init(&tee_w.arena, region + io, o->heap_bytes);
  tee_w.ctx = tee_realm_create(&tee_w.arena, tee_worker_fatal);
  if (!tee_w.ctx)
    return -1;
#ifdef TEE_WORKER_TEST_HOOKS
  if (o->syscall_hook) {
    duk_push_c_function(tee_w.ctx, tee_worker_syscall, DUK_VARARGS);
    duk_put_global_string(tee_w.ctx, "__syscall");
  }
#endif
  if (tee_realm_prepare(tee_w.ctx, TEE_WORKER_EXTRA_GLOBAL) != 0)
    return -1;
  /* A set-up allocation that failed means too small a heap: refuse now
   * rather than fail the first request. */
  if (tee_arena_exhausted(&tee_w.arena))
    return -1;
  if (tee_worker_cap_address_space() != 0)
    return -1;
  /* Step 4. Undumpable: no process of the same user may ptrace it or read
   * its memory through /proc. */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    return -1;
#ifdef TEE_WORKER_TEST_HOOKS
  if (o->no_filter)
    return 0;
#endif
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0) != 0)
    return -1;
  return 0;
}

/* Appends s to out at *pos if it fits below cap. */
static int tee_worker_put(size_t *pos, size_t cap, const char *s, size_t n)
{
  if (n > cap - *pos)
    return -1;
  memcpy(tee_w.out + *pos, s, n);
  *pos += n;
  return 0;
}

static int tee_worker_put_heap(size_t *pos, size_t cap)
{
  char digits[32];
  int i = (int)sizeof digits;
  size_t v = tee_w.arena.used;

  do
    digits[--i] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  return tee_worker_put(pos, cap, ",\"heap\":", 8) ||
         tee_worker_put(pos, cap, digits + i, sizeof digits - (size_t)i);
}

struct tee_worker_job {
  const char *header; /* in tee_w.in */
  size_t len;
  const char *input; /* 0 bytes: undefined */
  size_t input_len;
  bool collect;
};

/* Reads until at least `need` bytes are in tee_w.in (as many as come, up
 * to cap). 0, 1 at end of file before any byte, -1 otherwise. */
static int tee_worker_fill(size_t *got, size_t need, size_t cap)
{
  while (*got < need) {
    ssize_t n = read(tee_w.fd, tee_w.in + *got, cap - *got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n == 0 && *got == 0 ? 1 : -1;
    *got += (size_t)n;
  }
  return 0;
}

/* One request, its two messages, in as few reads as they take. The
 * header and the input together stay within max_message. 0, 1 at end of
 * file between requests, -1 on anything else (the parent never sends
 * ahead, so bytes beyond the request are an error too). */
static int tee_worker_read_request(struct tee_worker_job *job)
{
  size_t cap = tee_w.max_message + 2 * TEE_FRAME_HEADER, got = 0, need;
  int r = tee_worker_fill(&got, TEE_FRAME_HEADER, cap);

  if (r != 0)
    return r;
  job->len = tee_frame_length((unsigned char *)tee_w.in);
  if (job->len > tee_w.max_message)
    return -1;
  need = TEE_FRAME_HEADER + job->len + TEE_FRAME_HEADER;
  if (tee_worker_fill(&got, need, cap) != 0)
    return -1;
  job->input_len = tee_frame_length((unsigned char *)tee_w.in + TEE_FRAME_HEADER + job->len);
  if (job->input_len > tee_w.max_message - job->len)
    return -1;
  need += job->input_len;
  if (tee_worker_fill(&got, need, cap) != 0 || got != need)
    return -1;
  job->header = tee_w.in + TEE_FRAME_HEADER;
  job->input = job->header + job->len + TEE_FRAME_HEADER;
  return 0;
}

/* [ ] -> [ function ]: the code compiled, or the function compiled from
 * the same code last time. Why a cache is safe: the function and its
 * prototype object are frozen, the realm is frozen, and its scope is the
 * global one, so a call leaves nothing in it for the next. */
static void tee_worker_function(duk_context *ctx)
{
  duk_push_global_stash(ctx);          /* [ code stash ] */
  duk_get_prop_string(ctx, -1, "src"); /* [ code stash src ] */
  if (duk_strict_equals(ctx, -1, -3)) {
    duk_pop(ctx);
    duk_get_prop_string(ctx, -1, "fn"); /* [ code stash fn ] */
    duk_remove(ctx, -2);
    duk_remove(ctx, -2);
    return;
  }
  duk_pop_2(ctx);
  duk_dup(ctx, -1);
  duk_push_string(ctx, "eval");
  duk_compile(ctx, DUK_COMPILE_FUNCTION); /* [ code fn ] */
  if (duk_get_prop_string(ctx, -1, "prototype") && duk_is_object(ctx, -1))
    duk_freeze(ctx, -1);
  duk_pop(ctx);
  duk_freeze(ctx, -1);
  duk_push_global_stash(ctx); /* [ code fn stash ] */
  duk_dup(ctx, -2);
  duk_put_prop_string(ctx, -2, "fn");
  duk_dup(ctx, -3);
  duk_put_prop_string(ctx, -2, "src");
  duk_pop(ctx);
  duk_remove(ctx, -2);
}

/* [ ] -> [ json-text-or-undefined ]: the request's header parsed, the
 * function compiled (or found) and called on the input, the result
 * encoded. Runs under duk_safe_call, so whatever the code throws becomes
 * the one value left. duk_json_decode and duk_json_encode are the
 * engine's own, not the JSON object the code could have touched. The
 * input is its own message: no text of it can reach the header. */
static duk_ret_t tee_worker_eval_safe(duk_context *ctx, void *udata)
{
  struct tee_worker_job *job = udata;

  duk_push_lstring(ctx, job->header, job->len);
  duk_json_decode(ctx, -1);
  if (!duk_is_object(ctx, -1))
    return duk_error(ctx, DUK_ERR_TYPE_ERROR, "request is not an object");
  job->collect = duk_get_prop_string(ctx, -1, "collect") && duk_to_boolean(ctx, -1);
  duk_pop(ctx);
  if (!duk_get_prop_string(ctx, -1, "code") || !duk_is_string(ctx, -1))
    return duk_error(ctx, DUK_ERR_TYPE_ERROR, "request has no code");
  tee_worker_function(ctx);
  if (job->input_len) {
    duk_push_lstring(ctx, job->input, job->input_len);
    duk_json_decode(ctx, -1);
  } else {
    duk_push_undefined(ctx);
  }
  duk_call(ctx, 1);
  duk_json_encode(ctx, -1);
  return 1;
}

/* [ value ] -> [ "JSON string of value's text" ] under duk_safe_call. */
static duk_ret_t tee_worker_message_safe(duk_context *ctx, void *udata)
{
  duk_size_t n;
  const char *s;

  (void)udata;
  s = duk_safe_to_lstring(ctx, -1, &n);
  duk_push_lstring(ctx, s, n > TEE_WORKER_ERROR_MAX ? TEE_WORKER_ERROR_MAX : n);
  duk_json_encode(ctx, -1);
  return 1;
}

/* Builds the reply in out: *len its length. */
static void tee_worker_answer(duk_context *ctx, int rc, size_t *len)
{
  size_t cap = tee_w.max_message, pos = 0;
  bool retire = tee_arena_exhausted(&tee_w.arena);
  const char *text = NULL;
  duk_size_t n = 0;

  if (rc == DUK_EXEC_SUCCESS) {
    text = duk_is_string(ctx, -1) ? duk_get_lstring(ctx, -1, &n) : "null";
    if (!duk_is_string(ctx, -1))
      n = 4;
    if (n + TEE_WORKER_REPLY_SLACK <= cap) {
      (void)tee_worker_put(&pos, cap, "{\"ok\":true,\"value\":", 19);
      (void)tee_worker_put(&pos, cap, text, n);
    } else {
      rc = DUK_EXEC_ERROR;
      text = "\"RangeError: result too large\"";
      n = strlen(text);
    }
  } else if (duk_safe_call(ctx, tee_worker_message_safe, NULL, 1, 1) == DUK_EXEC_SUCCESS &&
             duk_is_string(ctx, -1)) {
    text = duk_get_lstring(ctx, -1, &n);
  }
  if (rc != DUK_EXEC_SUCCESS) {
    if (!text || n + TEE_WORKER_REPLY_SLACK > cap) {
      text = "\"Error: the error could not be described\"";
      n = strlen(text);
    }
    pos = 0;
    (void)tee_worker_put(&pos, cap, "{\"ok\":false,\"error\":", 20);
    (void)tee_worker_put(&pos, cap, text, n);
  }
  /* Counted with the result still held: the heap the evaluation left. */
  (void)tee_worker_put_heap(&pos, cap);
  duk_pop(ctx);
  if (retire)
    (void)tee_worker_put(&pos, cap, ",\"retire\":true", 14);
  (void)tee_worker_put(&pos, cap, "}", 1);
  *len = pos;
}

_Noreturn void tee_worker_run(const struct tee_worker_opts *o)
{
  size_t len, pos = 0;
  int r;

  if (tee_worker_setup(o) != 0)
    tee_worker_exit(TEE_WORKER_SETUP_FAILED);
  /* Step 5: ready, with the heap the prepared realm takes. */
  (void)tee_worker_put(&pos, tee_w.max_message, "{\"ready\":true", 13);
  (void)tee_worker_put_heap(&pos, tee_w.max_message);
  (void)tee_worker_put(&pos, tee_w.max_message, "}", 1);
  if (tee_frame_send(tee_w.fd, tee_w.out, pos) != 0)
    tee_worker_exit(TEE_WORKER_CHANNEL_FAILED);
  for (;;) {
    struct tee_worker_job job = { 0 };
    r = tee_worker_read_request(&job);
    if (r == 1)
      tee_worker_exit(0);
    if (r != 0)
      tee_worker_exit(TEE_WORKER_CHANNEL_FAILED);
    r = duk_safe_call(tee_w.ctx, tee_worker_eval_safe, &job, 0, 1);
    /* Collected before the answer, so its "heap" is what stays live
     * (the result on the value stack aside). Twice: the first pass
     * runs finalizers, the second frees what they released. */
    if (job.collect) {
      duk_gc(tee_w.ctx, 0);
      duk_gc(tee_w.ctx, 0);
    }
    tee_worker_answer(tee_w.ctx, r, &len);
    if (tee_frame_send(tee_w.fd, tee_w.out, len) != 0)
      tee_worker_exit(TEE_WORKER_CHANNEL_FAILED);
    if (tee_arena_exhausted(&tee_w.arena))
      tee_worker_exit(0);
  }
}
