/* Check tests of the isolated worker (docs/tiers.md, "How it is tested"):
 * the framing and the arena alone; then real workers through the pool:
 * evaluations, the escape attempts (system calls beyond the channel, the
 * clock, randomness, a realm left changed, an unconfined worker, an
 * endless loop, a memory bomb), the fake workers' malformed replies, and
 * 1,000 evaluations with descriptors, memory and the worker's heap
 * counted. Every escape test has its negative control next to it. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cs_tee.h"
#include "tee_arena.h"
#include "tee_frame.h"

static const char *env_path(const char *name)
{
  const char *p = getenv(name);
  ck_assert_msg(p && *p, "%s is not set (run through ctest)", name);
  return p;
}

static struct cs_tee_pool *open_pool(const char *worker_env, const char *const *extra,
                                     uint64_t timeout_ms, size_t heap)
{
  struct cs_tee_config c = {
    .worker_path = env_path(worker_env),
    .extra_args = extra,
    .timeout_ms = timeout_ms,
    .heap_bytes = heap,
  };
  struct cs_tee_pool *p = NULL;
  int r = cs_tee_pool_open(&p, &c);
  ck_assert_int_eq(r, 0);
  return p;
}

/* One evaluation; the result is left in *res (freed by the caller). */
static enum cs_tee_status eval(struct cs_tee_pool *p, const char *code, const char *input,
                               struct cs_tee_result *res)
{
  int r = cs_tee_eval(p, code, input, 0, res);
  ck_assert_int_eq(r, 0);
  return res->status;
}

static void expect_value(struct cs_tee_pool *p, const char *code, const char *input,
                         const char *want)
{
  struct cs_tee_result res;
  enum cs_tee_status s = eval(p, code, input, &res);
  ck_assert_msg(s == CS_TEE_OK, "%s: %s (%s)", code, cs_tee_status_name(s),
                res.error ? res.error : "");
  ck_assert_str_eq(res.value, want);
  cs_tee_result_free(&res);
}

/* ---- framing ---- */

START_TEST(frame_round_trip)
{
  unsigned char buf[64];
  int sv[2];

  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  ck_assert_int_eq(tee_frame_send(sv[0], "{\"a\":1}", 7), 0);
  ck_assert_int_eq(read(sv[1], buf, sizeof buf), 11);
  ck_assert_uint_eq(tee_frame_length(buf), 7);
  ck_assert_int_eq(memcmp(buf + 4, "{\"a\":1}", 7), 0);
  /* Big-endian, all four bytes. */
  tee_frame_put_length(buf, 0x01020304u);
  ck_assert_int_eq(buf[0], 1);
  ck_assert_int_eq(buf[3], 4);
  ck_assert_uint_eq(tee_frame_length(buf), 0x01020304u);
  /* A body over 64 KiB goes as header and body, still one message. */
  static char big[100000];
  memset(big, 'x', sizeof big);
  ck_assert_int_eq(tee_frame_send(sv[0], big, sizeof big), 0);
  ck_assert_int_eq(read(sv[1], buf, 4), 4);
  ck_assert_uint_eq(tee_frame_length(buf), sizeof big);
  close(sv[0]);
  close(sv[1]);
}
END_TEST

/* ---- arena ---- */

START_TEST(arena_reuse_and_limit)
{
  static unsigned char region[1 << 16];
  struct tee_arena a;
  void *p, *q;

  tee_arena_init(&a, region, sizeof region);
  p = tee_arena_alloc(&a, 100);
  ck_assert_ptr_nonnull(p);
  memset(p, 0xab, 100);
  tee_arena_free(&a, p);
  ck_assert_uint_eq(a.used, 0);
  /* The freed block is reused, not cut anew. */
  size_t top = a.top;
  q = tee_arena_alloc(&a, 90);
  ck_assert_ptr_eq(q, p);
  ck_assert_uint_eq(a.top, top);
  /* realloc keeps the bytes. */
  memset(q, 0x5a, 90);
  q = tee_arena_realloc(&a, q, 1000);
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(((unsigned char *)q)[89], 0x5a);
  tee_arena_free(&a, q);
  /* A large free block is split for small ones once the region is used up. */
  p = tee_arena_alloc(&a, 30000);
  ck_assert_ptr_nonnull(p);
  tee_arena_free(&a, p);
  while (tee_arena_alloc(&a, 4000) != NULL)
    ;
  ck_assert(tee_arena_exhausted(&a));
  ck_assert_uint_le(a.top, sizeof region);
  /* Its control: a fresh arena is not exhausted by what fits. */
  tee_arena_init(&a, region, sizeof region);
  ck_assert_ptr_nonnull(tee_arena_alloc(&a, 60000));
  ck_assert(!tee_arena_exhausted(&a));
  ck_assert_ptr_null(tee_arena_alloc(&a, 60000));
  ck_assert(tee_arena_exhausted(&a));
}
END_TEST

/* ---- real evaluations ---- */

START_TEST(eval_positive)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);

  expect_value(p, "function (x) { return x.a + 1; }", "{\"a\":41}", "42");
  /* Negative control: the value really depends on the input. */
  expect_value(p, "function (x) { return x.a + 1; }", "{\"a\":1}", "2");
  expect_value(p, "function (x) { return x.items.map(function (s) { return s.toUpperCase(); }); }",
               "{\"items\":[\"a\",\"b\"]}", "[\"A\",\"B\"]");
  expect_value(p, "function (x) { return { n: x.length, type: typeof x }; }", "[1,2,3]",
               "{\"n\":3,\"type\":\"object\"}");
  expect_value(p, "function (x) { return typeof x; }", NULL, "\"undefined\"");
  expect_value(p, "function () { }", NULL, "null");
  expect_value(p, "function () { return 'caf\\u00e9 \\u2603'; }", NULL,
               "\"caf\xc3\xa9 \xe2\x98\x83\"");
  cs_tee_pool_close(p);
}
END_TEST

START_TEST(eval_errors)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);
  struct cs_tee_result res;
  pid_t first;

  ck_assert_int_eq(eval(p, "function () { throw new TypeError('no'); }", NULL, &res),
                   CS_TEE_JS_ERROR);
  ck_assert_str_eq(res.error, "TypeError: no");
  first = res.worker;
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p, "function ( {", NULL, &res), CS_TEE_JS_ERROR);
  ck_assert_ptr_nonnull(strstr(res.error, "SyntaxError"));
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p, "function () { var o = {}; o.o = o; return o; }", NULL, &res),
                   CS_TEE_JS_ERROR);
  cs_tee_result_free(&res);
  /* An error is the code's, not the worker's: the same worker goes on. */
  ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_OK);
  ck_assert_int_eq(res.worker, first);
  cs_tee_result_free(&res);
  /* What the API refuses before any worker sees it. */
  /* Input that is not JSON fails in the worker, which parses it. */
  ck_assert_int_eq(eval(p, "function () {}", "{bad json", &res), CS_TEE_JS_ERROR);
  ck_assert_ptr_nonnull(strstr(res.error, "SyntaxError"));
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p, "function () {}", "1, \"code\": \"function(){return 9}\"", &res),
                   CS_TEE_JS_ERROR);
  cs_tee_result_free(&res);
  ck_assert_int_eq(cs_tee_eval(p, "function () {}", "", 0, &res), -EINVAL);
  ck_assert_int_eq(cs_tee_eval(p, NULL, NULL, 0, &res), -EINVAL);
  char *big = malloc(2u * 1024u * 1024u);
  memset(big, ' ', 2u * 1024u * 1024u - 1);
  big[2u * 1024u * 1024u - 1] = '\0';
  ck_assert_int_eq(cs_tee_eval(p, big, NULL, 0, &res), -E2BIG);
  free(big);
  cs_tee_pool_close(p);
}
END_TEST

/* The result is held to the message limit by the worker itself. */
START_TEST(eval_result_too_large)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 5000, 0);
  struct cs_tee_result res;

  ck_assert_int_eq(eval(p,
                        "function () { var s = 'x'; while (s.length < 2 * 1024 * 1024) s += s; "
                        "return s; }",
                        NULL, &res),
                   CS_TEE_JS_ERROR);
  ck_assert_ptr_nonnull(strstr(res.error, "too large"));
  cs_tee_result_free(&res);
  /* Control: half a megabyte fits the 1 MiB limit. */
  ck_assert_int_eq(eval(p,
                        "function () { var s = 'x'; while (s.length < 512 * 1024) s += s; "
                        "return s.length; }",
                        NULL, &res),
                   CS_TEE_OK);
  ck_assert_str_eq(res.value, "524288");
  cs_tee_result_free(&res);
  cs_tee_pool_close(p);
}
END_TEST

/* Workers kept ready: each started at open, used in turn; one that dies
 * is replaced and the others go on. */
START_TEST(pool_keeps_workers_ready)
{
  static const char *const extra[] = { "--test-syscall", NULL };
  struct cs_tee_config c = { .worker_path = env_path("TEE_WORKER_TEST"),
                             .extra_args = extra,
                             .workers = 3,
                             .timeout_ms = 2000 };
  struct cs_tee_pool *p;
  struct cs_tee_result res;
  struct cs_tee_stats st;
  pid_t pids[3];

  ck_assert_int_eq(cs_tee_pool_open(&p, &c), 0);
  cs_tee_pool_stats(p, &st);
  ck_assert_uint_eq(st.started, 3); /* before any request */
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_OK);
    pids[i] = res.worker;
    cs_tee_result_free(&res);
  }
  ck_assert_int_ne(pids[0], pids[1]);
  ck_assert_int_ne(pids[1], pids[2]);
  ck_assert_int_ne(pids[0], pids[2]);
  /* The next in turn is the first again; kill it with a system call. */
  ck_assert_int_eq(eval(p, "function () { return __syscall(39); }", NULL, &res),
                   CS_TEE_WORKER_DIED);
  ck_assert_int_eq(res.worker, pids[0]);
  cs_tee_result_free(&res);
  /* The other two are the same workers as before. */
  ck_assert_int_eq(eval(p, "function () { return 2; }", NULL, &res), CS_TEE_OK);
  ck_assert_int_eq(res.worker, pids[1]);
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p, "function () { return 3; }", NULL, &res), CS_TEE_OK);
  ck_assert_int_eq(res.worker, pids[2]);
  cs_tee_result_free(&res);
  /* And the first slot has a new one, started when the old one died. */
  ck_assert_int_eq(eval(p, "function () { return 4; }", NULL, &res), CS_TEE_OK);
  ck_assert_int_ne(res.worker, pids[0]);
  cs_tee_result_free(&res);
  cs_tee_pool_stats(p, &st);
  ck_assert_uint_eq(st.started, 4);
  ck_assert_uint_eq(st.replaced, 1);
  cs_tee_pool_close(p);
  /* What the configuration refuses. */
  c.workers = CS_TEE_MAX_WORKERS + 1;
  ck_assert_int_eq(cs_tee_pool_open(&p, &c), -EINVAL);
  c.workers = 1;
  c.timeout_ms = 61000; /* more than the default CPU budget of 60 s */
  ck_assert_int_eq(cs_tee_pool_open(&p, &c), -EINVAL);
  c.timeout_ms = 1000;
  c.worker_path = "sbx-tee-worker"; /* relative: never a search of PATH */
  ck_assert_int_eq(cs_tee_pool_open(&p, &c), -EINVAL);
}
END_TEST

/* ---- escape attempts ---- */

/* Any system call beyond the channel: the worker dies by SIGKILL from the
 * kernel, the request fails cleanly, the pool recovers. */
START_TEST(escape_syscalls)
{
  static const char *const extra[] = { "--test-syscall", NULL };
  static const long forbidden[] = {
    SYS_getpid, SYS_open,      SYS_openat,     SYS_socket, SYS_connect, SYS_clock_gettime,
    SYS_mmap,   SYS_brk,       SYS_mprotect,   SYS_clone,  SYS_fork,    SYS_execve,
    SYS_kill,   SYS_getrandom, SYS_exit_group, SYS_close,  SYS_dup,     SYS_ptrace,
  };
  struct cs_tee_pool *p = open_pool("TEE_WORKER_TEST", extra, 2000, 0);
  struct cs_tee_stats st;
  struct cs_tee_result res;
  char code[128];

  for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
    snprintf(code, sizeof code, "function () { return __syscall(%ld, 0, 0, 0); }", forbidden[i]);
    ck_assert_int_eq(eval(p, code, NULL, &res), CS_TEE_WORKER_DIED);
    ck_assert_msg(res.signal == 9, "syscall %ld: signal %d", forbidden[i], res.signal);
    pid_t dead = res.worker;
    cs_tee_result_free(&res);
    /* The pool recovered: the next request runs, in a new worker. */
    ck_assert_int_eq(eval(p, "function () { return 7; }", NULL, &res), CS_TEE_OK);
    ck_assert_int_ne(res.worker, dead);
    cs_tee_result_free(&res);
  }
  cs_tee_pool_stats(p, &st);
  ck_assert_uint_ge(st.replaced, sizeof forbidden / sizeof forbidden[0]);
  /* Negative control: the same hook making the calls strict mode allows
   * (a read and a write of zero bytes on the channel) returns normally,
   * so the deaths above are the filter's and not the hook's. */
  expect_value(p, "function () { return __syscall(0, 3, 0, 0); }", NULL, "0");
  expect_value(p, "function () { return __syscall(1, 3, 0, 0); }", NULL, "0");
  cs_tee_pool_close(p);
}
END_TEST

/* No clock, no randomness, no engine object, no module loader. */
START_TEST(escape_clock_random)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);

  expect_value(p,
               "function () { return [typeof Date, typeof Math.random, typeof Duktape, "
               "typeof require, typeof print, typeof performance, typeof process, typeof Buffer, "
               "typeof CBOR]; }",
               NULL,
               "[\"undefined\",\"undefined\",\"undefined\",\"undefined\",\"undefined\","
               "\"undefined\",\"undefined\",\"undefined\",\"undefined\"]");
  /* Control: what is left of the standard library is there. */
  expect_value(p, "function () { return [typeof Math.floor, typeof JSON.parse, typeof Object]; }",
               NULL, "[\"function\",\"function\",\"function\"]");
  /* Getting Date back through a constructor chain finds nothing either. */
  expect_value(p, "function () { return typeof (function(){ return this; })().Date; }", NULL,
               "\"undefined\"");
  cs_tee_pool_close(p);
}
END_TEST

/* One evaluation cannot leave anything for the next: the realm is frozen. */
START_TEST(escape_realm_persistence)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);
  struct cs_tee_result res;

  ck_assert_int_eq(eval(p,
                        "function () { Array.prototype.push = null; Object.prototype.x = 1; "
                        "JSON.stringify = null; (function(){ this.leak = 1; })(); "
                        "var o = {}; o.y = 2; return o.y; }",
                        NULL, &res),
                   CS_TEE_OK);
  /* Control inside the same evaluation: an object of its own is writable. */
  ck_assert_str_eq(res.value, "2");
  pid_t w = res.worker;
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p,
                        "function () { return [typeof Array.prototype.push, ({}).x, "
                        "typeof JSON.stringify, typeof leak]; }",
                        NULL, &res),
                   CS_TEE_OK);
  ck_assert_str_eq(res.value, "[\"function\",null,\"function\",\"undefined\"]");
  ck_assert_int_eq(res.worker, w); /* the same worker: the freeze did it, not a new one */
  cs_tee_result_free(&res);
  /* The compiled function is kept for the same code: it is frozen too,
   * so the second call finds nothing the first one left on it. */
  static const char self_counter[] =
      "function f() { f.n = (f.n || 0) + 1; f.prototype.n = (f.prototype.n || 0) + 1; "
      "return [f.n, f.prototype.n]; }";
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(eval(p, self_counter, NULL, &res), CS_TEE_OK);
    ck_assert_str_eq(res.value, "[null,null]");
    ck_assert_int_eq(res.worker, w);
    cs_tee_result_free(&res);
  }
  /* Control: the same counter on an object of the call's own counts. */
  expect_value(p, "function f() { var o = {}; o.n = (o.n || 0) + 1; return [o.n]; }", NULL, "[1]");
  /* In strict code the attempt is an error, not silence. */
  ck_assert_int_eq(
      eval(p, "function () { 'use strict'; Array.prototype.push = null; }", NULL, &res),
      CS_TEE_JS_ERROR);
  cs_tee_result_free(&res);
  cs_tee_pool_close(p);
}
END_TEST

/* A worker that is not in seccomp strict mode is never handed code. */
START_TEST(escape_unconfined_worker)
{
  static const char *const unfiltered[] = { "--test-no-filter", NULL };
  struct cs_tee_pool *p = open_pool("TEE_WORKER_TEST", unfiltered, 2000, 0);
  struct cs_tee_result res;

  ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_NO_WORKER);
  ck_assert_ptr_nonnull(strstr(res.error, "strict mode"));
  cs_tee_result_free(&res);
  cs_tee_pool_close(p);
  /* Control: the same test build with its filter is accepted. */
  p = open_pool("TEE_WORKER_TEST", NULL, 2000, 0);
  expect_value(p, "function () { return 1; }", NULL, "1");
  cs_tee_pool_close(p);
  /* And a fake that skips the filter but says ready is refused too. */
  static const char *const fake[] = { "--mode=unconfined", NULL };
  p = open_pool("TEE_FAKE_WORKER", fake, 2000, 0);
  ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_NO_WORKER);
  cs_tee_result_free(&res);
  cs_tee_pool_close(p);
}
END_TEST

/* What a worker holds: descriptor 3 only, an empty environment. */
START_TEST(escape_worker_holds_nothing)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);
  struct cs_tee_result res;
  char path[64], env[64];
  int n = 0, fd;
  struct dirent *d;
  DIR *dir;

  setenv("TEE_TEST_SECRET", "parent-only", 1);
  ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_OK);
  snprintf(path, sizeof path, "/proc/%d/fd", (int)res.worker);
  dir = opendir(path);
  ck_assert_ptr_nonnull(dir);
  while ((d = readdir(dir)))
    if (d->d_name[0] != '.') {
      ck_assert_str_eq(d->d_name, "3");
      n++;
    }
  closedir(dir);
  ck_assert_int_eq(n, 1);
  snprintf(path, sizeof path, "/proc/%d/environ", (int)res.worker);
  fd = open(path, O_RDONLY);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(read(fd, env, sizeof env), 0);
  close(fd);
  /* Control: the same reads of this process find more than that. */
  n = 0;
  dir = opendir("/proc/self/fd");
  while ((d = readdir(dir)))
    n += d->d_name[0] != '.';
  closedir(dir);
  ck_assert_int_gt(n, 1);
  fd = open("/proc/self/environ", O_RDONLY);
  ck_assert_int_gt(read(fd, env, sizeof env), 0);
  close(fd);
  cs_tee_result_free(&res);
  cs_tee_pool_close(p);
}
END_TEST

START_TEST(escape_endless_loop)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 300, 0);
  struct cs_tee_result res;

  ck_assert_int_eq(eval(p, "function () { for (;;) {} }", NULL, &res), CS_TEE_TIMEOUT);
  ck_assert_int_eq(res.signal, 9);
  ck_assert_uint_ge(res.duration_us, 300000u);
  ck_assert_uint_lt(res.duration_us, 3000000u);
  cs_tee_result_free(&res);
  ck_assert_int_eq(
      eval(p, "function f() { while (true) { try { f(); } catch (e) {} } }", NULL, &res),
      CS_TEE_TIMEOUT);
  cs_tee_result_free(&res);
  /* Control: a loop that ends, in the replaced worker. */
  expect_value(p, "function () { var s = 0; for (var i = 0; i < 100000; i++) s += i; return s; }",
               NULL, "4999950000");
  cs_tee_pool_close(p);
}
END_TEST

/* A caller that ignores SIGCHLD has its children reaped for it: a worker
 * past its time must be killed all the same, not left looping. */
START_TEST(escape_loop_sigchld_ignored)
{
  struct cs_tee_pool *p;
  struct cs_tee_result res;
  char path[64];

  signal(SIGCHLD, SIG_IGN);
  p = open_pool("TEE_WORKER", NULL, 300, 0);
  /* Control: a worker that answered is there. */
  ck_assert_int_eq(eval(p, "function () { return 1; }", NULL, &res), CS_TEE_OK);
  snprintf(path, sizeof path, "/proc/%d", (int)res.worker);
  ck_assert_int_eq(access(path, F_OK), 0);
  cs_tee_result_free(&res);
  ck_assert_int_eq(eval(p, "function () { for (;;) {} }", NULL, &res), CS_TEE_TIMEOUT);
  snprintf(path, sizeof path, "/proc/%d", (int)res.worker);
  cs_tee_result_free(&res);
  int gone = 0;
  for (int i = 0; i < 200 && !gone; i++) {
    gone = access(path, F_OK) != 0;
    if (!gone)
      usleep(10000);
  }
  ck_assert_msg(gone, "%s still exists after the timeout", path);
  cs_tee_pool_close(p);
  signal(SIGCHLD, SIG_DFL);
}
END_TEST

START_TEST(escape_memory_bomb)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 20000, 16u * 1024u * 1024u);
  struct cs_tee_result res;
  static const char *const bombs[] = {
    "function () { var s = 'x'; for (;;) s = s + s; }",
    "function () { var a = []; for (;;) a.push({ n: a.length }); }",
    "function () { var a = []; for (;;) a.push(new ArrayBuffer(1 << 20)); }",
    "function () { return new Array(1e9).join('x'); }",
  };

  for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
    enum cs_tee_status s = eval(p, bombs[i], NULL, &res);
    /* Refused inside the arena (an error) or fatal to the worker; never a
     * value, never more memory. */
    ck_assert_msg(s == CS_TEE_JS_ERROR || s == CS_TEE_WORKER_DIED, "%s: %s", bombs[i],
                  cs_tee_status_name(s));
    cs_tee_result_free(&res);
    /* The pool recovers: an exhausted worker is retired, a new one answers. */
    expect_value(p, "function () { return 'after'; }", NULL, "\"after\"");
  }
  /* Control: 1 MB of the same kind fits the 16 MB arena. */
  expect_value(p,
               "function () { var s = 'x'; while (s.length < 1024 * 1024) s = s + s; "
               "return s.length; }",
               NULL, "1048576");
  cs_tee_pool_close(p);
}
END_TEST

/* ---- malformed replies from fake workers ---- */

START_TEST(fake_worker_replies)
{
  static const char *const bad[] = {
    "garbage", "not-json",      "raw-bytes", "cut-header",       "cut-body", "oversize",
    "no-ok",   "unknown-field", "duplicate", "error-not-string", "array",
  };
  struct cs_tee_result res;
  char mode[64];

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(mode, sizeof mode, "--mode=%s", bad[i]);
    const char *const extra[] = { mode, NULL };
    struct cs_tee_pool *p = open_pool("TEE_FAKE_WORKER", extra, 2000, 0);
    ck_assert_msg(eval(p, "function () {}", NULL, &res) == CS_TEE_BAD_REPLY, "%s: %s (%s)", bad[i],
                  cs_tee_status_name(res.status), res.error ? res.error : "");
    pid_t first = res.worker;
    cs_tee_result_free(&res);
    /* The worker that said it is gone; its replacement is asked next. */
    ck_assert_int_eq(eval(p, "function () {}", NULL, &res), CS_TEE_BAD_REPLY);
    ck_assert_int_ne(res.worker, first);
    cs_tee_result_free(&res);
    cs_tee_pool_close(p);
  }
  /* A worker that dies without a word, one that never answers, one that
   * answers before it is ready, one that never gets ready. */
  static const struct {
    const char *mode;
    enum cs_tee_status want;
  } other[] = {
    { "--mode=die", CS_TEE_WORKER_DIED },
    { "--mode=gone", CS_TEE_WORKER_DIED },
    /* the request cannot even be written */ { "--mode=hang", CS_TEE_TIMEOUT },
    { "--mode=cut-hang", CS_TEE_TIMEOUT }, /* half a reply, then nothing */
    { "--mode=no-ready", CS_TEE_NO_WORKER },
    { "--mode=silent", CS_TEE_NO_WORKER },
  };
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
    const char *const extra[] = { other[i].mode, NULL };
    struct cs_tee_config c = { .worker_path = env_path("TEE_FAKE_WORKER"),
                               .extra_args = extra,
                               .timeout_ms = 300,
                               .start_timeout_ms = 300 };
    struct cs_tee_pool *p;
    ck_assert_int_eq(cs_tee_pool_open(&p, &c), 0);
    ck_assert_msg(eval(p, "function () {}", NULL, &res) == other[i].want, "%s: %s", other[i].mode,
                  cs_tee_status_name(res.status));
    cs_tee_result_free(&res);
    cs_tee_pool_close(p);
  }
  /* Negative control: the same fake, answering correctly, is believed. */
  const char *const good[] = { "--mode=good", NULL };
  struct cs_tee_pool *p = open_pool("TEE_FAKE_WORKER", good, 2000, 0);
  expect_value(p, "function () {}", NULL, "1");
  expect_value(p, "function () {}", NULL, "1");
  cs_tee_pool_close(p);
}
END_TEST

/* ---- 1,000 evaluations ---- */

static int count_fds(void)
{
  DIR *dir = opendir("/proc/self/fd");
  struct dirent *d;
  int n = 0;

  while ((d = readdir(dir)))
    n += d->d_name[0] != '.';
  closedir(dir);
  return n;
}

static long rss_kb(void)
{
  char line[256];
  long kb = -1;
  FILE *f = fopen("/proc/self/status", "re");

  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0)
      kb = strtol(line + 6, NULL, 10);
  if (f)
    fclose(f);
  return kb;
}

START_TEST(thousand_evaluations)
{
  struct cs_tee_pool *p = open_pool("TEE_WORKER", NULL, 2000, 0);
  static const char code[] =
      "function (x) { var o = { n: x.items.length, s: '' }; "
      "for (var i = 0; i < x.items.length; i++) o.s += x.items[i].charAt(0); "
      "return [o, function () {}, new Array(100)].length; }";
  char input[1200];
  struct cs_tee_result res;
  struct cs_tee_stats st;
  size_t heap_100 = 0;
  pid_t worker = 0;
  int fds_100 = 0;
  long rss_100 = 0;
  int pos = snprintf(input, sizeof input, "{\"items\":[");

  for (int i = 0; pos < 1000; i++)
    pos += snprintf(input + pos, sizeof input - (size_t)pos, "%s\"item-%03d\"", i ? "," : "", i);
  snprintf(input + pos, sizeof input - (size_t)pos, "]}");
  for (int i = 1; i <= 1000; i++) {
    unsigned flags = (i == 100 || i == 1000) ? CS_TEE_COLLECT : 0;
    ck_assert_int_eq(cs_tee_eval(p, code, input, flags, &res), 0);
    ck_assert_msg(res.status == CS_TEE_OK, "evaluation %d: %s", i, res.error);
    ck_assert_str_eq(res.value, "3");
    if (i == 1)
      worker = res.worker;
    ck_assert_int_eq(res.worker, worker); /* one worker served them all */
    if (i == 100) {
      heap_100 = res.heap_used;
      fds_100 = count_fds();
      rss_100 = rss_kb();
    }
    if (i == 1000) {
      /* The worker's heap after collection is where it was at 100. */
      ck_assert_msg(res.heap_used <= heap_100 + 4096, "heap %zu at 1000, %zu at 100", res.heap_used,
                    heap_100);
    }
    cs_tee_result_free(&res);
  }
  ck_assert_int_eq(count_fds(), fds_100);
#ifndef TEE_TEST_NO_RSS_CHECK
  ck_assert_msg(rss_kb() <= rss_100 + 1024, "RSS %ld kB after 1000, %ld kB after 100", rss_kb(),
                rss_100);
#else
  (void)rss_100;
#endif
  cs_tee_pool_stats(p, &st);
  ck_assert_uint_eq(st.replaced, 0);
  ck_assert_uint_eq(st.evaluations, 1000);
  /* Negative controls: the counters see a change when there is one. An
   * evaluation that holds half a megabyte reports it in the heap; a descriptor more
   * is counted. */
  ck_assert_int_eq(cs_tee_eval(p,
                               "function () { var s = 'x'; while (s.length < 524288) s += s; "
                               "return s; }",
                               NULL, CS_TEE_COLLECT, &res),
                   0);
  ck_assert_uint_gt(res.heap_used, heap_100 + 500000);
  cs_tee_result_free(&res);
  int extra_fd = dup(0);
  ck_assert_int_eq(count_fds(), fds_100 + 1);
  close(extra_fd);
  cs_tee_pool_close(p);
  /* Closing the pool leaves no descriptor behind either. */
  ck_assert_int_lt(count_fds(), fds_100);
}
END_TEST

static Suite *tee_suite(void)
{
  Suite *s = suite_create("tee");
  TCase *t = tcase_create("units");
  tcase_add_test(t, frame_round_trip);
  tcase_add_test(t, arena_reuse_and_limit);
  suite_add_tcase(s, t);
  t = tcase_create("worker");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, eval_positive);
  tcase_add_test(t, eval_errors);
  tcase_add_test(t, eval_result_too_large);
  tcase_add_test(t, pool_keeps_workers_ready);
  tcase_add_test(t, escape_syscalls);
  tcase_add_test(t, escape_clock_random);
  tcase_add_test(t, escape_realm_persistence);
  tcase_add_test(t, escape_unconfined_worker);
  tcase_add_test(t, escape_worker_holds_nothing);
  tcase_add_test(t, escape_endless_loop);
  tcase_add_test(t, escape_loop_sigchld_ignored);
  tcase_add_test(t, escape_memory_bomb);
  tcase_add_test(t, fake_worker_replies);
  tcase_add_test(t, thousand_evaluations);
  suite_add_tcase(s, t);
  return s;
}

int main(void)
{
  SRunner *r = srunner_create(tee_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
