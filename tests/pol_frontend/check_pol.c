/* Unit tests of the .pol front end: inheritance, overrides, aliases,
 * groups, constants, conditions to DNF, 32-bit argument marking, paths,
 * limits and approvals. Each test compiles a small policy from memory
 * and looks at the resolved profile or the lowered rule set. */
#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pol.h"
#include "pol_consts.h"

/* Header lines every test policy needs, so each test states only what it
 * is about. */
#define LIMITS                                                                                        \
  "summary = \"t\"; tier = seccomp; allowShell = none; allowNetwork = false; allowFileWrite = false;" \
  " allowFileDelete = false; maxExecutionTime = 1m; maxMemory = 64MiB; maxCpuTime = 10s;"             \
  " maxProcesses = 8; maxOpenFiles = 64; maxFileSize = 1MiB; approve none;"

static char *diag_text;
static size_t diag_len;
static FILE *diag_mem;

static struct pol_policy *load(const char *text)
{
  struct pol_policy *pol = NULL;
  free(diag_text);
  diag_text = NULL;
  diag_mem = open_memstream(&diag_text, &diag_len);
  ck_assert_ptr_nonnull(diag_mem);
  diag_set_stream(diag_mem);
  diag_reset();
  int rc = pol_load_memory("t.pol", text, strlen(text), &pol);
  fclose(diag_mem);
  diag_set_stream(NULL);
  if (rc)
    ck_assert_ptr_null(pol);
  return pol;
}

static const struct pol_rule *rule_at(const struct pol_profile *p, const char *name, size_t k)
{
  for (size_t i = 0; i < p->nrules; i++)
    if (strcmp(p->rules[i].name, name) == 0 && k-- == 0)
      return &p->rules[i];
  return NULL;
}

static size_t rules_for(const struct pol_profile *p, const char *name)
{
  size_t n = 0;
  for (size_t i = 0; i < p->nrules; i++)
    n += strcmp(p->rules[i].name, name) == 0;
  return n;
}

static uint32_t eval(const struct pol_profile *p, int nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
  struct sc_ruleset rs;
  ck_assert_int_eq(pol_lower(p, &rs), 0);
  struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64, .args = { a0, a1, a2, 0, 0, 0 } };
  uint32_t ret = sc_ruleset_eval(&rs, &sd);
  sc_ruleset_free(&rs);
  return ret;
}

START_TEST(test_alias_and_lookup)
{
  struct pol_policy *pol =
      load("profile strict alias READ_ONLY { " LIMITS " syscalls { default errno(EPERM); } }");
  ck_assert_ptr_nonnull(pol);
  ck_assert_ptr_eq(pol_profile_find(pol, "strict"), pol_profile_find(pol, "READ_ONLY"));
  ck_assert_ptr_null(pol_profile_find(pol, "read_only"));
  ck_assert_str_eq(pol_profile_find(pol, "READ_ONLY")->alias, "READ_ONLY");
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_inheritance_overrides)
{
  struct pol_policy *pol = load(
      "profile child extends BASE { maxMemory = 128MiB; tier = wasm; syscalls { allow getpid; } }\n"
      "profile base alias BASE { " LIMITS " syscalls { default errno(EPERM); allow read; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *c = pol_profile_find(pol, "child");
  const struct pol_profile *b = pol_profile_find(pol, "base");
  ck_assert_uint_eq(c->limits.max_memory_bytes, 128u << 20);
  ck_assert_uint_eq(b->limits.max_memory_bytes, 64u << 20);
  ck_assert_uint_eq(c->limits.max_execution_ms, 60000);
  ck_assert_uint_eq(c->limits.max_cpu_seconds, 10);
  ck_assert_str_eq(c->tier, "wasm");
  ck_assert_str_eq(c->extends, "base");
  ck_assert_ptr_null(b->extends);
  ck_assert_uint_eq(c->default_action.kind, SC_ACT_ERRNO);
  ck_assert_uint_eq(c->default_action.data, EPERM);
  ck_assert_ptr_nonnull(rule_at(c, "read", 0));
  ck_assert_ptr_nonnull(rule_at(c, "getpid", 0));
  ck_assert_ptr_null(rule_at(b, "getpid", 0));
  pol_policy_free(pol);
}
END_TEST

/* An unconditional statement replaces everything said before about the
 * call, in the same profile or a parent; a conditional one adds an
 * exception tried before the fallback. */
START_TEST(test_statement_semantics)
{
  struct pol_policy *pol =
      load("profile a { " LIMITS
           " syscalls { default errno(EPERM); allow kill; errno(EPERM) kill if sig == 9; } }\n"
           "profile b extends a { syscalls { errno(EACCES) kill if sig == 15; } }\n"
           "profile c extends a { syscalls { allow kill; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *a = pol_profile_find(pol, "a"), *b = pol_profile_find(pol, "b"),
                           *c = pol_profile_find(pol, "c");
  ck_assert_uint_eq(rules_for(a, "kill"), 2);
  ck_assert_uint_eq(rule_at(a, "kill", 0)->nclauses, 1);
  ck_assert_uint_eq(rule_at(a, "kill", 1)->nclauses, 0); /* fallback last */
  ck_assert_uint_eq(rules_for(b, "kill"), 3);
  ck_assert_uint_eq(rule_at(b, "kill", 1)->action.data, EACCES);
  ck_assert_uint_eq(rules_for(c, "kill"), 1);
  ck_assert_uint_eq(eval(b, SYS_kill, 1, 9, 0), SECCOMP_RET_ERRNO | EPERM);
  ck_assert_uint_eq(eval(b, SYS_kill, 1, 15, 0), SECCOMP_RET_ERRNO | EACCES);
  ck_assert_uint_eq(eval(b, SYS_kill, 1, 2, 0), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(eval(c, SYS_kill, 1, 9, 0), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(eval(a, SYS_getpid, 0, 0, 0), SECCOMP_RET_ERRNO | EPERM);
  /* Origins name the profile that wrote the rule. */
  ck_assert_ptr_nonnull(strstr(rule_at(b, "kill", 0)->origin, "(profile a)"));
  ck_assert_ptr_nonnull(strstr(rule_at(b, "kill", 1)->origin, "(profile b)"));
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_groups_nested_and_deduplicated)
{
  struct pol_policy *pol =
      load("group @a { read, write }\ngroup @b { @a, read, close, }\n"
           "profile p { " LIMITS " syscalls { default kill-process; allow @b, write; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *p = pol_profile_at(pol, 0);
  ck_assert_uint_eq(p->nrules, 3);
  ck_assert_int_eq(p->rules[0].nr, SYS_read);
  ck_assert_int_eq(p->rules[1].nr, SYS_write);
  ck_assert_int_eq(p->rules[2].nr, SYS_close);
  ck_assert_str_eq(p->default_text, "kill-process");
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_constants)
{
  uint64_t v;
  ck_assert_int_eq(pol_const_lookup("TIOCSTI", &v), 0);
  ck_assert_uint_eq(v, TIOCSTI);
  ck_assert_int_eq(pol_const_lookup("TIOCLINUX", &v), 0);
  ck_assert_uint_eq(v, TIOCLINUX);
  ck_assert_int_eq(pol_const_lookup("PER_LINUX", &v), 0);
  ck_assert_uint_eq(v, 0);
  ck_assert_int_eq(pol_const_lookup("NOT_A_CONSTANT", &v), -ENOENT);
  int e;
  ck_assert_int_eq(pol_errno_lookup("ENOSYS", &e), 0);
  ck_assert_int_eq(e, ENOSYS);
  ck_assert_int_eq(pol_errno_lookup("TIOCSTI", &e), -ENOENT);
  ck_assert_str_eq(pol_errno_name(EPERM), "EPERM");
  ck_assert_uint_gt(pol_const_count(), 300);

  struct pol_policy *pol =
      load("const MINE = CLONE_NEWUSER | CLONE_NEWNET;\nconst BOTH = MINE | 0x1;\n"
           "profile p { " LIMITS
           " syscalls { default errno(EPERM); errno(EPERM) clone if flags == BOTH; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_rule *r = rule_at(pol_profile_at(pol, 0), "clone", 0);
  ck_assert_uint_eq(r->clauses[0].conds[0].value, 0x10000000u | 0x40000000u | 1u);
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_dnf_distribution)
{
  struct pol_policy *pol = load("profile p { " LIMITS " syscalls { default allow; "
                                "errno(EPERM) socket if domain == 1 && (type == 2 || type == 3); "
                                "errno(EACCES) socketpair if !(domain == 1 || type == 2); } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *p = pol_profile_at(pol, 0);
  const struct pol_rule *r = rule_at(p, "socket", 0);
  ck_assert_uint_eq(r->nclauses, 2);
  for (int c = 0; c < 2; c++) {
    ck_assert_uint_eq(r->clauses[c].nconds, 2);
    ck_assert_uint_eq(r->clauses[c].conds[0].arg, 0);
    ck_assert_uint_eq(r->clauses[c].conds[1].arg, 1);
    ck_assert_uint_eq(r->clauses[c].conds[1].value, 2u + (unsigned)c);
  }
  r = rule_at(p, "socketpair", 0);
  ck_assert_uint_eq(r->nclauses, 1);
  ck_assert_uint_eq(r->clauses[0].nconds, 2);
  ck_assert_int_eq(r->clauses[0].conds[0].op, SC_CMP_NE);
  ck_assert_int_eq(r->clauses[0].conds[1].op, SC_CMP_NE);
  ck_assert_uint_eq(eval(p, SYS_socket, 1, 3, 0), SECCOMP_RET_ERRNO | EPERM);
  ck_assert_uint_eq(eval(p, SYS_socket, 1, 4, 0), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(eval(p, SYS_socketpair, 5, 5, 0), SECCOMP_RET_ERRNO | EACCES);
  ck_assert_uint_eq(eval(p, SYS_socketpair, 1, 5, 0), SECCOMP_RET_ALLOW);
  pol_policy_free(pol);
}
END_TEST

/* (a & m) != v is one masked equality per bit of m; the lowering must
 * decide exactly like the C expression for every value. */
START_TEST(test_masked_not_equal_per_bit)
{
  struct pol_policy *pol =
      load("profile p { " LIMITS
           " syscalls { default allow; errno(EPERM) clone if (flags & 0x30) != 0x10; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *p = pol_profile_at(pol, 0);
  const struct pol_rule *r = rule_at(p, "clone", 0);
  ck_assert_uint_eq(r->nclauses, 2);
  ck_assert_int_eq(r->clauses[0].conds[0].op, SC_CMP_MASKED_EQ);
  ck_assert_uint_eq(r->clauses[0].conds[0].mask, 0x10);
  ck_assert_uint_eq(r->clauses[0].conds[0].value, 0);
  ck_assert_uint_eq(r->clauses[1].conds[0].mask, 0x20);
  ck_assert_uint_eq(r->clauses[1].conds[0].value, 0x20);
  for (uint64_t f = 0; f < 0x80; f++) {
    uint32_t want = ((f & 0x30) != 0x10) ? (SECCOMP_RET_ERRNO | EPERM) : SECCOMP_RET_ALLOW;
    ck_assert_uint_eq(eval(p, SYS_clone, f, 0, 0), want);
  }
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_arg_width)
{
  struct pol_policy *pol = load("profile p { " LIMITS " syscalls { default allow; "
                                "errno(EPERM) ioctl if cmd == TIOCSTI || arg2 == 5; "
                                "errno(EPERM) clone if (flags & CLONE_NEWUSER) == CLONE_NEWUSER; "
                                "errno(EPERM) socket if domain == AF_NETLINK; "
                                "errno(EPERM) kill if sig == -1; "
                                "errno(EPERM) personality if arg0 == 8; } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *p = pol_profile_at(pol, 0);
  const struct pol_rule *r = rule_at(p, "ioctl", 0);
  ck_assert(r->clauses[0].conds[0].is32);  /* unsigned int cmd */
  ck_assert(!r->clauses[1].conds[0].is32); /* unsigned long arg */
  ck_assert(!rule_at(p, "clone", 0)->clauses[0].conds[0].is32);
  ck_assert(rule_at(p, "socket", 0)->clauses[0].conds[0].is32);
  ck_assert(rule_at(p, "personality", 0)->clauses[0].conds[0].is32);
  /* A negative int is the low word of its two's complement. */
  ck_assert_uint_eq(rule_at(p, "kill", 0)->clauses[0].conds[0].value, 0xffffffffu);
  /* The kernel truncates cmd: high bits must not get TIOCSTI through. */
  ck_assert_uint_eq(eval(p, SYS_ioctl, 0, TIOCSTI | (1ull << 32), 0), SECCOMP_RET_ERRNO | EPERM);
  ck_assert_uint_eq(eval(p, SYS_ioctl, 0, TIOCSTI + 1, 0), SECCOMP_RET_ALLOW);
  pol_policy_free(pol);

  /* 64-bit values cannot be compared with a 32-bit argument. */
  ck_assert_ptr_null(
      load("profile p { " LIMITS
           " syscalls { default allow; errno(EPERM) ioctl if cmd == 0x100000000; } }"));
  ck_assert_ptr_nonnull(strstr(diag_text, "does not fit the 32-bit argument 'cmd' of ioctl"));
}
END_TEST

START_TEST(test_dnf_limit)
{
  /* (a||b) && (c||d) && ... doubles the clauses with every factor. */
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "profile p { " LIMITS " syscalls { default allow; errno(EPERM) clone if ");
  for (int i = 0; i < 7; i++)
    n += snprintf(text + n, sizeof text - (size_t)n, "%s(arg%d == 1 || arg%d == 2)",
                  i ? " && " : "", i % 6, (i + 1) % 6);
  snprintf(text + n, sizeof text - (size_t)n, "; } }");
  ck_assert_ptr_null(load(text));
  ck_assert_ptr_nonnull(strstr(diag_text, "condition is too complex"));
}
END_TEST

START_TEST(test_paths_replace_and_append)
{
  struct pol_policy *pol = load(
      "profile a { " LIMITS " allowedPaths { read \"/usr\", \"${WORKSPACE}\"; execute \"/usr\"; }"
      " deniedPaths { all \"~/.ssh\"; } syscalls { default allow; } }\n"
      "profile b extends a { allowedPaths += { read \"/opt\"; } }\n"
      "profile c extends a { allowedPaths { read \"/srv\"; } deniedPaths { } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *a = pol_profile_find(pol, "a"), *b = pol_profile_find(pol, "b"),
                           *c = pol_profile_find(pol, "c");
  ck_assert_uint_eq(a->n_allowed, 2);
  ck_assert_str_eq(a->allowed[0].path, "/usr");
  ck_assert_uint_eq(a->allowed[0].access, CS_PATH_READ | CS_PATH_EXEC);
  ck_assert_uint_eq(b->n_allowed, 3);
  ck_assert_str_eq(b->allowed[2].path, "/opt");
  ck_assert_uint_eq(b->n_denied, 1);
  ck_assert_uint_eq(b->denied[0].access, CS_PATH_READ | CS_PATH_WRITE | CS_PATH_EXEC);
  ck_assert_uint_eq(c->n_allowed, 1);
  ck_assert_uint_eq(c->n_denied, 0);
  ck_assert_int_eq(strncmp(a->allowed[0].origin, "t.pol:1:", 8), 0);
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_approvals_and_settings)
{
  struct pol_policy *pol = load(
      "profile a { summary = \"s\"; tier = tee; allowShell = sandboxed; allowNetwork = true; allowFileWrite = true;"
      " allowFileDelete = true; maxExecutionTime = 90s; maxMemory = 4GiB; maxCpuTime = 2h; maxProcesses = 1024;"
      " maxOpenFiles = 4096; maxFileSize = 1TiB; approve delete, network, sudo, git-config;"
      " syscalls { default errno(ENOSYS); } }");
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *a = pol_profile_at(pol, 0);
  ck_assert_uint_eq(a->approval_ops, CS_APPROVE_FILE_DELETE | CS_APPROVE_EXTERNAL_NETWORK |
                                         CS_APPROVE_SUDO | CS_APPROVE_GIT_CONFIG);
  ck_assert_int_eq(a->shell, CS_SHELL_SANDBOXED);
  ck_assert(a->allow_network && a->allow_file_write && a->allow_file_delete);
  ck_assert_uint_eq(a->limits.max_execution_ms, 90000);
  ck_assert_uint_eq(a->limits.max_memory_bytes, 4ull << 30);
  ck_assert_uint_eq(a->limits.max_cpu_seconds, 7200);
  ck_assert_uint_eq(a->limits.max_file_size, 1ull << 40);
  ck_assert_str_eq(a->default_text, "errno(ENOSYS)");
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_errors_fail_closed)
{
  static const char *const bad[] = {
    "profile p { " LIMITS " syscalls { default allow; allow not_a_syscall; } }",
    "profile p { " LIMITS " syscalls { default allow; errno(EPERM) ioctl if cmd == NOPE; } }",
    "profile p { " LIMITS " deniedPaths { read \"relative/path\"; } syscalls { default allow; } }",
    "profile p extends q { } profile q extends p { " LIMITS " syscalls { default allow; } }",
    "profile p { " LIMITS " }",
    "profile p { summary = \"x\"; syscalls { default allow; } }",
    "profile p { " LIMITS " syscalls { default allow; } } profile p { }",
    "profile p { " LIMITS " syscalls { default allow; allow socketcall; } }",
  };
  /* Buffers (the fuzz harness) cannot include files, and size is bounded. */
  ck_assert_ptr_null(load("include \"x.pol\";"));
  ck_assert_ptr_nonnull(strstr(diag_text, "includes are not allowed here"));
  size_t big = (1u << 20) + 1;
  char *huge = malloc(big + 1);
  ck_assert_ptr_nonnull(huge);
  memset(huge, ' ', big);
  huge[big] = '\0';
  ck_assert_ptr_null(load(huge));
  free(huge);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(load(bad[i]) == NULL, "accepted: %s", bad[i]);
    ck_assert_msg(diag_text && strstr(diag_text, "error:"), "no message for: %s", bad[i]);
  }
}
END_TEST

START_TEST(test_lowered_ruleset)
{
  struct pol_policy *pol =
      load("profile p { " LIMITS " syscalls { default errno(EPERM); allow read; } }");
  ck_assert_ptr_nonnull(pol);
  struct sc_ruleset rs;
  ck_assert_int_eq(pol_lower(pol_profile_at(pol, 0), &rs), 0);
  ck_assert_uint_eq(rs.audit_arch, AUDIT_ARCH_X86_64);
  ck_assert_int_eq(rs.bad_arch_action.kind, SC_ACT_KILL_PROCESS);
  ck_assert(!rs.allow_x32);
  ck_assert_uint_eq(rs.nrules, 1);
  struct seccomp_data sd = { .nr = SYS_read, .arch = AUDIT_ARCH_I386 };
  ck_assert_uint_eq(sc_ruleset_eval(&rs, &sd), SECCOMP_RET_KILL_PROCESS);
  sd.arch = AUDIT_ARCH_X86_64;
  sd.nr = SYS_read | 0x40000000; /* x32 */
  ck_assert_uint_eq(sc_ruleset_eval(&rs, &sd), SECCOMP_RET_KILL_PROCESS);
  sc_ruleset_free(&rs);
  pol_policy_free(pol);
}
END_TEST

/* libseccomp's name table (the front end's resolver) against the kernel
 * headers' numbers, for calls the seed profiles name: two independent
 * sources must agree. */
START_TEST(test_syscall_numbers_cross_checked)
{
  static const struct {
    const char *name;
    long nr;
  } calls[] = {
    { "read", SYS_read },
    { "ioctl", SYS_ioctl },
    { "clone", SYS_clone },
    { "clone3", SYS_clone3 },
    { "ptrace", SYS_ptrace },
    { "unshare", SYS_unshare },
    { "setns", SYS_setns },
    { "bpf", SYS_bpf },
    { "userfaultfd", SYS_userfaultfd },
    { "io_uring_setup", SYS_io_uring_setup },
    { "io_uring_enter", SYS_io_uring_enter },
    { "open_tree", SYS_open_tree },
    { "fsopen", SYS_fsopen },
    { "mount_setattr", SYS_mount_setattr },
    { "kexec_file_load", SYS_kexec_file_load },
    { "open_by_handle_at", SYS_open_by_handle_at },
    { "process_vm_writev", SYS_process_vm_writev },
    { "faccessat2", SYS_faccessat2 },
    { "epoll_pwait2", SYS_epoll_pwait2 },
    { "close_range", SYS_close_range },
    { "socket", SYS_socket },
  };
  char text[8192];
  int n =
      snprintf(text, sizeof text, "profile p { " LIMITS " syscalls { default allow; errno(EPERM) ");
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", i ? ", " : "", calls[i].name);
  snprintf(text + n, sizeof text - (size_t)n, "; } }");
  struct pol_policy *pol = load(text);
  ck_assert_ptr_nonnull(pol);
  const struct pol_profile *p = pol_profile_at(pol, 0);
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
    const struct pol_rule *r = rule_at(p, calls[i].name, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->nr == calls[i].nr, "%s: libseccomp %d, <asm/unistd_64.h> %ld", calls[i].name,
                  r->nr, calls[i].nr);
  }
  pol_policy_free(pol);
}
END_TEST

START_TEST(test_every_action)
{
  static const struct {
    const char *written, *text;
    enum sc_action_kind kind;
    unsigned data;
  } acts[] = {
    { "allow", "allow", SC_ACT_ALLOW, 0 },
    { "log", "log", SC_ACT_LOG, 0 },
    { "kill-process", "kill-process", SC_ACT_KILL_PROCESS, 0 },
    { "kill-thread", "kill-thread", SC_ACT_KILL_THREAD, 0 },
    { "trap", "trap", SC_ACT_TRAP, 0 },
    { "trap(7)", "trap(7)", SC_ACT_TRAP, 7 },
    { "notify", "notify", SC_ACT_NOTIFY, 0 },
    { "trace(3)", "trace(3)", SC_ACT_TRACE, 3 },
    { "errno(EPERM)", "errno(EPERM)", SC_ACT_ERRNO, EPERM },
    { "errno(38)", "errno(ENOSYS)", SC_ACT_ERRNO, ENOSYS },
    { "errno(4095)", "errno(4095)", SC_ACT_ERRNO, 4095 },
  };
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, "profile p { " LIMITS " syscalls { default %s; %s getpid; } }",
             acts[i].written, acts[i].written);
    struct pol_policy *pol = load(text);
    ck_assert_msg(pol != NULL, "%s", acts[i].written);
    const struct pol_profile *p = pol_profile_at(pol, 0);
    ck_assert_str_eq(p->default_text, acts[i].text);
    ck_assert_int_eq(p->default_action.kind, acts[i].kind);
    ck_assert_uint_eq(p->default_action.data, acts[i].data);
    ck_assert_str_eq(rule_at(p, "getpid", 0)->action_text, acts[i].text);
    pol_policy_free(pol);
  }
}
END_TEST

static Suite *pol_suite(void)
{
  Suite *s = suite_create("pol");
  TCase *tc = tcase_create("frontend");
  tcase_add_test(tc, test_alias_and_lookup);
  tcase_add_test(tc, test_inheritance_overrides);
  tcase_add_test(tc, test_statement_semantics);
  tcase_add_test(tc, test_groups_nested_and_deduplicated);
  tcase_add_test(tc, test_constants);
  tcase_add_test(tc, test_dnf_distribution);
  tcase_add_test(tc, test_masked_not_equal_per_bit);
  tcase_add_test(tc, test_arg_width);
  tcase_add_test(tc, test_dnf_limit);
  tcase_add_test(tc, test_paths_replace_and_append);
  tcase_add_test(tc, test_approvals_and_settings);
  tcase_add_test(tc, test_errors_fail_closed);
  tcase_add_test(tc, test_lowered_ruleset);
  tcase_add_test(tc, test_syscall_numbers_cross_checked);
  tcase_add_test(tc, test_every_action);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(pol_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  free(diag_text);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
