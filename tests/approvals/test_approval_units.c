/* approvals_units: the approval manager, approvers, store and command
 * rules (cs_approval). argv[1]: the directory of the scripted approvers. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cs_approval.h"
#include "cs_approval_internal.h"
#include "cs_profile_table.h"

static const char *g_dir;
static const char *const g_argv[] = { "rm", "-rf", "build", NULL };

static int ask_exec(const char *script, unsigned timeout_ms, struct cs_approval_decision *d)
{
  char prog[1024];
  struct cs_approval_opts o = { 0 };
  struct cs_approval_mgr *m = NULL;
  struct cs_approval_request req = { .operation = CS_APPROVAL_OP_DELETE,
                                     .argv = g_argv,
                                     .path = "/w/build",
                                     .profile = "standard",
                                     .rule = "builtin rm",
                                     .layer = "command" };
  int r;
  snprintf(prog, sizeof prog, "%s/%s", g_dir, script);
  ck_assert_int_eq(cs_approver_exec(prog, &o.approver), 0);
  o.timeout_ms = timeout_ms;
  ck_assert_int_eq(cs_approval_create(&o, &m), 0);
  r = cs_approval_ask(m, &req, d);
  cs_approval_destroy(m);
  return r;
}

START_TEST(exec_outcomes)
{
  struct cs_approval_decision d;
  ck_assert_int_eq(ask_exec("allow.sh", 5000, &d), 0);
  ck_assert(d.allow);
  ck_assert_int_eq(ask_exec("deny.sh", 5000, &d), -EPERM);
  ck_assert_str_eq(d.reason, "approver: test says no");
  ck_assert_int_eq(ask_exec("garbage.sh", 5000, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "malformed"));
  ck_assert_int_eq(ask_exec("garbage_json.sh", 5000, &d), -EPERM);
  ck_assert_int_eq(ask_exec("trailing.sh", 5000, &d), -EPERM);
  ck_assert_int_eq(ask_exec("crash.sh", 5000, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "signal"));
  ck_assert_int_eq(ask_exec("nonzero.sh", 5000, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "status 3"));
  ck_assert_int_eq(ask_exec("closed.sh", 5000, &d), -EPERM);
  ck_assert_int_eq(ask_exec("big.sh", 5000, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "longer than"));
  ck_assert_int_eq(ask_exec("no-such-approver", 5000, &d), -EPERM);
  ck_assert(!d.allow);
}
END_TEST

START_TEST(exec_hang_times_out)
{
  struct cs_approval_decision d;
  ck_assert_int_eq(ask_exec("hang.sh", 300, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "timed out"));
  ck_assert_uint_ge(d.latency_ms, 300);
  ck_assert_uint_lt(d.latency_ms, 5000); /* killed, not waited for */
}
END_TEST

START_TEST(no_approver_denies)
{
  struct cs_approval_opts o = { 0 };
  struct cs_approval_mgr *m = NULL;
  struct cs_approval_decision d;
  struct cs_approval_request req = { .operation = CS_APPROVAL_OP_SUDO, .argv = g_argv };
  ck_assert_int_eq(cs_approval_create(&o, &m), 0);
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "no approver"));
  cs_approval_destroy(m);
}
END_TEST

static int g_calls;
static int counting(void *ctx, const struct cs_approval_request *req, unsigned t,
                    struct cs_approval_decision *d)
{
  (void)req;
  (void)t;
  g_calls++;
  d->allow = true;
  d->scope = *(enum cs_approval_scope *)ctx;
  return 0;
}

START_TEST(scopes_and_store)
{
  char dir[] = "/tmp/approvals_units.XXXXXX", store[256];
  enum cs_approval_scope scope = CS_APPROVAL_SESSION;
  struct cs_approval_opts o = { .approver = {
                                    .kind = "count", .decide = counting, .ctx = &scope } };
  struct cs_approval_mgr *m = NULL;
  struct cs_approval_decision d;
  const char *const make[] = { "make", "clean", NULL };
  const char *const other[] = { "make", "install", NULL };
  struct cs_approval_request req = { .operation = CS_APPROVAL_OP_DELETE, .argv = make };
  uint64_t id;

  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(store, sizeof store, "%s/approvals.json", dir);
  o.store_path = store;
  g_calls = 0;
  ck_assert_int_eq(cs_approval_create(&o, &m), 0);
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), 0);
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), 0);
  ck_assert_str_eq(d.approver, "session");
  ck_assert_int_eq(g_calls, 1);
  req.operation = CS_APPROVAL_OP_NETWORK; /* another operation asks again */
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), 0);
  ck_assert_int_eq(g_calls, 2);
  req.argv = other;
  scope = CS_APPROVAL_ALWAYS;
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), 0);
  ck_assert_int_eq(d.scope, CS_APPROVAL_ALWAYS);
  cs_approval_destroy(m);

  ck_assert_int_eq(cs_approval_store_find(store, CS_APPROVAL_OP_NETWORK, "make install", &id), 0);
  /* A new manager (a new session) finds the standing grant. */
  g_calls = 0;
  ck_assert_int_eq(cs_approval_create(&o, &m), 0);
  ck_assert_int_eq(cs_approval_ask(m, &req, &d), 0);
  ck_assert_str_eq(d.approver, "store");
  ck_assert_int_eq(g_calls, 0);
  cs_approval_destroy(m);

  /* A store others can write is not trusted. */
  ck_assert_int_eq(chmod(store, 0644), 0);
  ck_assert_int_eq(cs_approval_store_find(store, CS_APPROVAL_OP_NETWORK, "make install", &id),
                   -EACCES);
  ck_assert_int_eq(cs_approval_store_list(store, stdout), -EACCES);
  ck_assert_int_eq(chmod(store, 0600), 0);
  ck_assert_int_eq(cs_approval_store_revoke(store, id + 100), -ENOENT);
  ck_assert_int_eq(cs_approval_store_revoke(store, id), 0);
  ck_assert_int_eq(cs_approval_store_find(store, CS_APPROVAL_OP_NETWORK, "make install", &id),
                   -ENOENT);
  ck_assert_int_eq(cs_approval_store_add(store, CS_APPROVAL_OP_SUDO, "apt"), 0);
  ck_assert_int_eq(cs_approval_store_clear(store), 0);
  ck_assert_int_eq(cs_approval_store_find(store, CS_APPROVAL_OP_SUDO, "apt", &id), -ENOENT);
  /* A symlinked store is not followed. */
  char link[300];
  snprintf(link, sizeof link, "%s/link.json", dir);
  ck_assert_int_eq(symlink(store, link), 0);
  ck_assert_int_eq(cs_approval_store_find(link, CS_APPROVAL_OP_SUDO, "apt", &id), -EACCES);
  unlink(link);
  unlink(store);
  snprintf(link, sizeof link, "%s.lock", store);
  unlink(link);
  rmdir(dir);
}
END_TEST

START_TEST(reply_parsing)
{
  struct cs_approval_decision d;
  memset(&d, 0, sizeof d);
  ck_assert_int_eq(cs_approval_reply_parse("{\"decision\":\"allow\",\"scope\":\"session\"}", 0, &d),
                   0);
  ck_assert(d.allow);
  ck_assert_int_eq(d.scope, CS_APPROVAL_SESSION);
  ck_assert_int_eq(cs_approval_reply_parse("{\"decision\":\"allow\",\"scope\":\"forever\"}", 0, &d),
                   -EPROTO);
  ck_assert(!d.allow);
  ck_assert_int_eq(cs_approval_reply_parse("{\"decision\":\"ALLOW\"}", 0, &d), -EPROTO);
  ck_assert_int_eq(cs_approval_reply_parse("[\"allow\"]", 0, &d), -EPROTO);
  ck_assert_int_eq(cs_approval_reply_parse("{\"decision\":\"allow\",\"decision\":\"deny\"}", 0, &d),
                   -EPROTO);
  ck_assert_int_eq(cs_approval_reply_parse("{\"id\":4,\"decision\":\"allow\"}", 5, &d), -EPROTO);
  ck_assert_int_eq(cs_approval_reply_parse("{\"id\":5,\"decision\":\"allow\"}", 5, &d), 0);
  ck_assert(d.allow);
}
END_TEST

/* ---- socket approver: a scripted host application in a thread ---- */
struct srv {
  int lfd;
  const char *mode;
};

static void *srv_main(void *arg)
{
  struct srv *s = arg;
  char buf[8192];
  int c = accept(s->lfd, NULL, NULL);
  ssize_t n;
  if (c < 0)
    return NULL;
  n = read(c, buf, sizeof buf - 1);
  if (n > 0) {
    char *id = strstr(buf, "\"id\":");
    long v = id ? atol(id + 5) : 0;
    char out[256];
    if (strcmp(s->mode, "allow") == 0) {
      /* A stale answer for another id first: must be skipped. */
      snprintf(out, sizeof out,
               "{\"id\":%ld,\"decision\":\"deny\"}\n{\"id\":%ld,\"decision\":\"allow\"}\n",
               v + 1000, v);
      (void)!write(c, out, strlen(out));
    } else if (strcmp(s->mode, "garbage") == 0) {
      (void)!write(c, "sure\n", 5);
    } else if (strcmp(s->mode, "hang") == 0) {
      sleep(2);
    }
    /* "close": nothing */
  }
  close(c);
  return NULL;
}

static int ask_socket(const char *mode, unsigned timeout, struct cs_approval_decision *d)
{
  char dir[] = "/tmp/approvals_sock.XXXXXX";
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  struct srv s = { .mode = mode };
  struct cs_approval_opts o = { 0 };
  struct cs_approval_mgr *m = NULL;
  struct cs_approval_request req = { .operation = CS_APPROVAL_OP_NETWORK,
                                     .argv = g_argv,
                                     .address = "203.0.113.1:443" };
  pthread_t t;
  int r;
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", dir);
  s.lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  ck_assert_int_eq(bind(s.lfd, (struct sockaddr *)&sa, sizeof sa), 0);
  ck_assert_int_eq(listen(s.lfd, 1), 0);
  pthread_create(&t, NULL, srv_main, &s);
  ck_assert_int_eq(cs_approver_socket(sa.sun_path, &o.approver), 0);
  o.timeout_ms = timeout;
  ck_assert_int_eq(cs_approval_create(&o, &m), 0);
  r = cs_approval_ask(m, &req, d);
  cs_approval_destroy(m);
  pthread_join(t, NULL);
  close(s.lfd);
  unlink(sa.sun_path);
  rmdir(dir);
  return r;
}

START_TEST(socket_outcomes)
{
  struct cs_approval_decision d;
  ck_assert_int_eq(ask_socket("allow", 3000, &d), 0);
  ck_assert_int_eq(ask_socket("garbage", 3000, &d), -EPERM);
  ck_assert_int_eq(ask_socket("close", 3000, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "closed"));
  ck_assert_int_eq(ask_socket("hang", 300, &d), -EPERM);
  ck_assert_ptr_nonnull(strstr(d.reason, "timed out"));
}
END_TEST

START_TEST(rules_examples)
{
  char why[512] = "";
  int r =
      cs_cmdrule_check_examples(cs_cmdrules_builtin, cs_cmdrules_builtin_count, why, sizeof why);
  ck_assert_msg(r == 0, "%s", why);
  /* And the check can fail. */
  static const char *const ex[] = { "ls x", NULL };
  static const struct cs_cmdrule bad[] = { { "bad", "rm", NULL, CS_CMDRULE_ASK,
                                             CS_APPROVAL_OP_DELETE, "t", ex, NULL } };
  ck_assert_int_eq(cs_cmdrule_check_examples(bad, 1, why, sizeof why), -EPROTO);
  ck_assert_ptr_nonnull(strstr(why, "ls x"));
}
END_TEST

static enum cs_cmdrule_action act(const char *cmd, uint32_t ops, const char **rule)
{
  char buf[512], *argv[33];
  struct cs_cmdrule_result res;
  ck_assert_int_gt(cs_cmdrule_split(cmd, buf, sizeof buf, argv, 33), 0);
  ck_assert_int_eq(
      cs_cmdrule_match(cs_cmdrules_builtin, cs_cmdrules_builtin_count, argv, ops, &res), 0);
  if (rule)
    *rule = res.rule ? res.rule->name : NULL;
  return res.action;
}

START_TEST(rules_match)
{
  const uint32_t all = CS_APPROVE_FILE_DELETE | CS_APPROVE_EXTERNAL_NETWORK | CS_APPROVE_SUDO |
                       CS_APPROVE_GIT_CONFIG;
  const char *rule;
  ck_assert_int_eq(act("ls -l", all, &rule), CS_CMDRULE_ALLOW);
  ck_assert_ptr_null(rule);
  ck_assert_int_eq(act("rm -rf /", all, &rule), CS_CMDRULE_ASK);
  ck_assert_str_eq(rule, "rm");
  ck_assert_int_eq(act("env FOO=1 nice -n 5 rm x", all, &rule), CS_CMDRULE_ASK);
  ck_assert_int_eq(act("timeout 5 git clean -fdx", all, &rule), CS_CMDRULE_ASK);
  ck_assert_str_eq(rule, "git clean");
  ck_assert_int_eq(act("sudo rm x", all, NULL), CS_CMDRULE_ASK);
  /* Strictest wins: sudo is not offered by this profile, rm is. */
  ck_assert_int_eq(act("sudo rm x", CS_APPROVE_FILE_DELETE, &rule), CS_CMDRULE_DENY);
  ck_assert_str_eq(rule, "sudo");
  ck_assert_int_eq(act("git -C repo config user.name x", all, &rule), CS_CMDRULE_ASK);
  ck_assert_str_eq(rule, "git config");
  ck_assert_int_eq(act("git commit -m config", all, NULL), CS_CMDRULE_ALLOW);
  ck_assert_int_eq(act("curl https://example.org", 0, NULL), CS_CMDRULE_DENY);
}
END_TEST

/* What the terminal shows of a field: nothing outside printable ASCII,
 * every escape unambiguous, a cut marked. (The whole prompt on a real
 * terminal: approvals_tty.) */
START_TEST(escape_for_terminal)
{
  char out[256];
  cs_approval_escape("plain/name.c", out, sizeof out);
  ck_assert_str_eq(out, "plain/name.c");
  cs_approval_escape("a\x1b[2J\r\n\x7f", out, sizeof out);
  ck_assert_str_eq(out, "a\\x1b[2J\\x0d\\x0a\\x7f");
  /* C1 as a byte and as UTF-8, bidi override and isolate, zero width,
   * a letter, a 4-byte character. */
  cs_approval_escape(
      "\x9b|\xc2\x9b|\xe2\x80\xae|\xe2\x81\xa6|\xe2\x80\x8b|\xc3\xa9|\xf0\x9f\x98\x80", out,
      sizeof out);
  ck_assert_str_eq(out, "\\x9b|\\u{009b}|\\u{202e}|\\u{2066}|\\u{200b}|\\u{00e9}|\\u{1f600}");
  /* Not well-formed UTF-8: overlong, surrogate, truncated, stray. */
  cs_approval_escape("\xc0\xaf|\xed\xa0\x80|\xe2\x80|\x80\xff", out, sizeof out);
  ck_assert_str_eq(out, "\\xc0\\xaf|\\xed\\xa0\\x80|\\xe2\\x80|\\x80\\xff");
  /* A backslash is doubled: "\x41" typed in a name is not an escape. */
  cs_approval_escape("n\\x41me", out, sizeof out);
  ck_assert_str_eq(out, "n\\\\x41me");
  for (const char *p = out; *p; p++)
    ck_assert(*p >= 0x20 && *p <= 0x7e);
  /* Too small: cut, and the cut says so. */
  cs_approval_escape("abcdefghijklmnop", out, 10);
  ck_assert_str_eq(out, "abcdef...");
}
END_TEST

START_TEST(prefix_and_names)
{
  char b[64];
  const char *const a1[] = { "/usr/bin/git", "config", "x", NULL };
  const char *const a2[] = { "rm", "-rf", "x", NULL };
  const char *const a3[] = { "make", "/etc/passwd", NULL };
  enum cs_approval_operation op;
  ck_assert_int_eq(cs_approval_prefix(a1, b, sizeof b), 0);
  ck_assert_str_eq(b, "git config");
  ck_assert_int_eq(cs_approval_prefix(a2, b, sizeof b), 0);
  ck_assert_str_eq(b, "rm");
  ck_assert_int_eq(cs_approval_prefix(a3, b, sizeof b), 0);
  ck_assert_str_eq(b, "make");
  for (int i = 0; i < CS_APPROVAL_OP_COUNT_; i++) {
    ck_assert_int_eq(cs_approval_op_parse(cs_approval_op_name((enum cs_approval_operation)i), &op),
                     0);
    ck_assert_int_eq((int)op, i);
  }
  ck_assert_int_eq(cs_approval_op_parse("format-disk", &op), -EINVAL);
}
END_TEST

int main(int argc, char **argv)
{
  Suite *s = suite_create("approvals");
  TCase *tc = tcase_create("core");
  SRunner *sr;
  int failed;
  if (argc != 2)
    return 2;
  g_dir = argv[1];
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, exec_outcomes);
  tcase_add_test(tc, exec_hang_times_out);
  tcase_add_test(tc, no_approver_denies);
  tcase_add_test(tc, scopes_and_store);
  tcase_add_test(tc, reply_parsing);
  tcase_add_test(tc, socket_outcomes);
  tcase_add_test(tc, rules_examples);
  tcase_add_test(tc, rules_match);
  tcase_add_test(tc, prefix_and_names);
  tcase_add_test(tc, escape_for_terminal);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
