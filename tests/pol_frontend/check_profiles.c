/* The seed profiles (models/profiles.pol) refuse what docs/profiles.md
 * promises, checked three ways for every profile:
 *   1. the rule set's meaning (sc_ruleset_eval, dsl/ir/sc_rules.c),
 *   2. the compiled BPF program run in the userspace interpreter
 *      (verify/bpf/bpf_interp.h), which must agree with (1) on every system
 *      call number and on argument values around every condition,
 *   3. (check_profiles_kernel.c) the real kernel,
 * and the OCI export read back as runc would apply it decides the same.
 * argv[1]: path of models/profiles.pol. */
#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpf_gen.h"
#include "bpf_interp.h"
#include "emit_oci.h"
#include "oci_import.h"
#include "pol.h"

static const char *policy_path;
static struct pol_policy *pol;

/* Every non-permissive profile refuses these, each with an errno (never a
 * kill: programs probe some of them and must be able to carry on). */
static const struct {
  const char *name;
  int want_errno; /* 0: any errno */
} required[] = {
  { "ptrace", 0 },
  { "process_vm_readv", 0 },
  { "process_vm_writev", 0 },
  { "bpf", 0 },
  { "userfaultfd", 0 },
  { "keyctl", 0 },
  { "add_key", 0 },
  { "request_key", 0 },
  { "kexec_load", 0 },
  { "kexec_file_load", 0 },
  { "init_module", 0 },
  { "finit_module", 0 },
  { "delete_module", 0 },
  { "mount", 0 },
  { "fsopen", 0 },
  { "fsconfig", 0 },
  { "fsmount", 0 },
  { "fspick", 0 },
  { "move_mount", 0 },
  { "open_tree", 0 },
  { "mount_setattr", 0 },
  { "umount2", 0 },
  { "pivot_root", 0 },
  { "unshare", 0 },
  { "setns", 0 },
  { "perf_event_open", 0 },
  { "io_uring_setup", -1 },
  { "io_uring_enter", -1 },
  { "io_uring_register", -1 },
  { "open_by_handle_at", 0 },
  { "iopl", 0 },
  { "ioperm", 0 },
  { "reboot", 0 },
  { "swapon", 0 },
  { "swapoff", 0 },
  { "clone3", ENOSYS },
};

/* Namespace flags clone() accepts (CLONE_NEWTIME is clone3/unshare only). */
static const uint64_t ns_flags[] = { CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                     CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET };

/* What glibc's fork() and pthread_create() pass. */
#define FORK_FLAGS (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD_)
#define SIGCHLD_ 17
#define THREAD_FLAGS                                                                               \
  (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |              \
   CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

struct compiled {
  struct sc_ruleset rs;
  struct bpf_program_out prog;
};

static void compile(const struct pol_profile *p, struct compiled *c)
{
  memset(c, 0, sizeof *c);
  ck_assert_int_eq(pol_lower(p, &c->rs), 0);
  ck_assert_int_eq(bpf_compile(&c->rs, &c->prog), 0);
  char err[256];
  ck_assert_msg(bpf_validate(c->prog.insns, c->prog.len, err, sizeof err) == 0, "%s: %s", p->name,
                err);
}

static void release(struct compiled *c)
{
  sc_ruleset_free(&c->rs);
  bpf_program_out_free(&c->prog);
}

/* The decision for one call, from the rule set and from the program; they
 * must agree. */
static uint32_t decide(const struct compiled *c, int nr, const uint64_t args[6])
{
  struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64 };
  for (int i = 0; i < 6; i++)
    sd.args[i] = args[i];
  uint32_t want = sc_ruleset_eval(&c->rs, &sd);
  struct bpf_run_result res;
  ck_assert_int_eq(bpf_run(c->prog.insns, c->prog.len, &sd, &res), 0);
  ck_assert_msg(res.ret == want, "%s nr %d: BPF 0x%08x, rule set 0x%08x", c->rs.name, nr, res.ret,
                want);
  return want;
}

static int nr_of(const char *name)
{
  int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name);
  ck_assert_msg(nr >= 0, "%s", name);
  return nr;
}

static uint32_t call(const struct compiled *c, const char *name, uint64_t a0, uint64_t a1,
                     uint64_t a2)
{
  const uint64_t args[6] = { a0, a1, a2, 0, 0, 0 };
  return decide(c, nr_of(name), args);
}

/* The same with a fourth argument (mmap's flags). */
static uint32_t call4(const struct compiled *c, const char *name, uint64_t a0, uint64_t a1,
                      uint64_t a2, uint64_t a3)
{
  const uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
  return decide(c, nr_of(name), args);
}

static bool is_errno(uint32_t ret)
{
  return (ret & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO;
}

START_TEST(test_required_denials)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  if (strcmp(p->name, "permissive") == 0)
    return;
  struct compiled c;
  compile(p, &c);
  for (size_t k = 0; k < sizeof required / sizeof required[0]; k++) {
    uint32_t ret = call(&c, required[k].name, 0, 0, 0);
    ck_assert_msg(is_errno(ret), "%s: %s is not refused with an errno (0x%08x)", p->name,
                  required[k].name, ret);
    unsigned e = ret & SECCOMP_RET_DATA;
    if (required[k].want_errno > 0)
      ck_assert_msg(e == (unsigned)required[k].want_errno, "%s: %s errno %u", p->name,
                    required[k].name, e);
    if (required[k].want_errno < 0)
      ck_assert_msg(e == ENOSYS || e == EPERM, "%s: %s errno %u", p->name, required[k].name, e);
  }
  /* clone: any namespace flag is refused, ordinary fork and thread flags
   * are not. */
  for (size_t k = 0; k < sizeof ns_flags / sizeof ns_flags[0]; k++) {
    ck_assert_msg(is_errno(call(&c, "clone", ns_flags[k] | FORK_FLAGS, 0, 0)), "%s: clone 0x%llx",
                  p->name, (unsigned long long)ns_flags[k]);
    ck_assert(is_errno(call(&c, "clone", ns_flags[k] | THREAD_FLAGS, 0, 0)));
  }
  ck_assert_uint_eq(call(&c, "clone", FORK_FLAGS, 0, 0), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(call(&c, "clone", THREAD_FLAGS, 0, 0), SECCOMP_RET_ALLOW);
  release(&c);
}
END_TEST

/* TIOCSTI / TIOCLINUX in every profile, permissive included, also with
 * high bits set in the 64-bit register (the kernel truncates cmd). */
START_TEST(test_terminal_injection_everywhere)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  struct compiled c;
  compile(p, &c);
  const uint64_t cmds[] = { TIOCSTI, TIOCLINUX };
  for (size_t k = 0; k < 2; k++) {
    ck_assert_msg(is_errno(call(&c, "ioctl", 0, cmds[k], 0)), "%s", p->name);
    ck_assert_msg(is_errno(call(&c, "ioctl", 0, cmds[k] | (1ull << 32), 0)), "%s: high bits",
                  p->name);
    ck_assert_msg(is_errno(call(&c, "ioctl", 0, cmds[k] | 0xffffffff00000000ull, 0)), "%s",
                  p->name);
  }
  ck_assert_uint_eq(call(&c, "ioctl", 1, TCGETS, 0), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(call(&c, "ioctl", 1, TIOCGWINSZ, 0), SECCOMP_RET_ALLOW);
  release(&c);
}
END_TEST

START_TEST(test_network_by_profile)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  struct compiled c;
  compile(p, &c);
  bool net = p->allow_network;
  ck_assert_int_eq(call(&c, "socket", AF_INET, SOCK_STREAM, 0) == SECCOMP_RET_ALLOW, net);
  ck_assert_int_eq(call(&c, "socket", AF_INET6, SOCK_DGRAM, 0) == SECCOMP_RET_ALLOW, net);
  /* A high word must not turn AF_INET into something the filter allows. */
  ck_assert_int_eq(call(&c, "socket", AF_INET | (1ull << 40), SOCK_STREAM, 0) == SECCOMP_RET_ALLOW,
                   net);
  if (strcmp(p->name, "permissive") != 0) {
    ck_assert(is_errno(call(&c, "socket", AF_PACKET, SOCK_RAW, 0)));
    ck_assert(is_errno(call(&c, "socket", AF_NETLINK, SOCK_RAW, 9 /* NETLINK_AUDIT */)));
  }
  if (strcmp(p->name, "hardened") != 0)
    ck_assert_uint_eq(call(&c, "socket", AF_UNIX, SOCK_STREAM, 0), SECCOMP_RET_ALLOW);
  release(&c);
}
END_TEST

/* hardened's W^X (issue 12): no mapping both writable and executable, no
 * anonymous executable mapping, no mprotect/pkey_mprotect to executable,
 * no SysV attach; file-backed read+execute mappings (the loader's) and
 * ordinary data mappings stay allowed. */
START_TEST(test_hardened_wx)
{
  const struct pol_profile *p = pol_profile_find(pol, "hardened");
  struct compiled c;
  ck_assert_ptr_nonnull(p);
  compile(p, &c);
  const uint64_t rx = PROT_READ | PROT_EXEC, rw = PROT_READ | PROT_WRITE;
  ck_assert(is_errno(call4(&c, "mmap", 0, 4096, rw | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS)));
  ck_assert(is_errno(call4(&c, "mmap", 0, 4096, rx, MAP_PRIVATE | MAP_ANONYMOUS)));
  ck_assert(is_errno(call4(&c, "mmap", 0, 4096, rx, MAP_SHARED | MAP_ANONYMOUS)));
  ck_assert(is_errno(call4(&c, "mmap", 0, 4096, rw | PROT_EXEC, MAP_PRIVATE)));
  ck_assert_uint_eq(call4(&c, "mmap", 0, 4096, rx, MAP_PRIVATE | MAP_DENYWRITE), SECCOMP_RET_ALLOW);
  ck_assert_uint_eq(call4(&c, "mmap", 0, 4096, rw, MAP_PRIVATE | MAP_ANONYMOUS), SECCOMP_RET_ALLOW);
  ck_assert(is_errno(call(&c, "mprotect", 0, 4096, rx)));
  ck_assert_uint_eq(call(&c, "mprotect", 0, 4096, PROT_READ), SECCOMP_RET_ALLOW);
  ck_assert(is_errno(call(&c, "pkey_mprotect", 0, 4096, rx)));
  ck_assert(is_errno(call(&c, "shmat", 0, 0, 0100000 /* SHM_EXEC */)));
  release(&c);
}
END_TEST

/* No set-id file and no device node in any profile (issue 12, part 3):
 * a set-uid or set-gid bit in the mode of every call that takes one is
 * refused (also with high bits set: umode_t is the low 16 bits), plain
 * modes are not (where the profile allows the call at all: strict and
 * hardened refuse chmod outright); mknod makes FIFOs only; openat2 gets
 * ENOSYS (its mode is behind a pointer). */
START_TEST(test_no_setid_modes)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  static const struct {
    const char *name;
    unsigned mode_arg;
  } calls[] = { { "chmod", 1 },   { "fchmod", 1 }, { "fchmodat", 2 }, { "fchmodat2", 2 },
                { "open", 2 },    { "openat", 3 }, { "creat", 1 },    { "mkdir", 1 },
                { "mkdirat", 2 }, { "mknod", 1 },  { "mknodat", 2 } };
  static const uint64_t setid[] = { 04755, 02755,           06777,
                                    04000, 0100000 | 04755, (1ull << 32) | 02000 };
  struct compiled c;
  compile(p, &c);
  for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
    uint64_t args[6] = { 0 };
    for (size_t m = 0; m < sizeof setid / sizeof setid[0]; m++) {
      args[calls[k].mode_arg] = setid[m];
      ck_assert_msg(is_errno(decide(&c, nr_of(calls[k].name), args)), "%s: %s mode 0%llo", p->name,
                    calls[k].name, (unsigned long long)setid[m]);
    }
  }
  /* Device nodes and regular files through mknod; a FIFO stays possible. */
  ck_assert(is_errno(call(&c, "mknod", 0, 0020000 | 0666, 0x103)));
  ck_assert(is_errno(call(&c, "mknod", 0, 0060000 | 0600, 0x700)));
  ck_assert(is_errno(call(&c, "mknod", 0, 0100000 | 0644, 0)));
  ck_assert(is_errno(call4(&c, "mknodat", 0, 0, 0020000 | 0666, 0x103)));
  uint32_t oa2 = call(&c, "openat2", 0, 0, 0);
  ck_assert_msg(is_errno(oa2) && (oa2 & SECCOMP_RET_DATA) == ENOSYS, "%s: openat2 0x%08x", p->name,
                oa2);
  if (p->allow_file_write) {
    ck_assert_uint_eq(call(&c, "mknod", 0, 0010000 | 0644, 0), SECCOMP_RET_ALLOW);
    ck_assert_uint_eq(call(&c, "chmod", 0, 0755, 0), SECCOMP_RET_ALLOW);
    ck_assert_uint_eq(call(&c, "fchmod", 0, 01777, 0), SECCOMP_RET_ALLOW);
    ck_assert_uint_eq(call4(&c, "openat", 0, 0, 0101, 0644), SECCOMP_RET_ALLOW);
    ck_assert_uint_eq(call(&c, "mkdir", 0, 0755, 0), SECCOMP_RET_ALLOW);
  }
  release(&c);
}
END_TEST

/* The program and the rule set agree on every number in 0..600 and the
 * first x32 ones, and on arguments around every condition's value. */
START_TEST(test_bpf_agrees_with_rules)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  struct compiled c;
  compile(p, &c);
  const uint64_t zero[6] = { 0 };
  for (int nr = -1; nr < 600; nr++)
    decide(&c, nr, zero);
  for (int nr = 0x40000000; nr < 0x40000000 + 600; nr += 37)
    decide(&c, nr, zero);
  for (uint32_t r = 0; r < c.rs.nrules; r++) {
    const struct sc_rule *rule = &c.rs.rules[r];
    for (uint32_t k = 0; k < rule->nclauses; k++) {
      for (uint32_t j = 0; j < rule->clauses[k].nconds; j++) {
        const struct sc_cond *cd = &rule->clauses[k].conds[j];
        const uint64_t probes[] = {
          cd->value, cd->value - 1, cd->value + 1, cd->value | (1ull << 32), cd->mask, ~cd->value,
          0,         UINT64_MAX
        };
        for (size_t q = 0; q < sizeof probes / sizeof probes[0]; q++) {
          uint64_t args[6] = { 0 };
          args[cd->arg] = probes[q];
          decide(&c, rule->nr, args);
        }
      }
    }
  }
  release(&c);
}
END_TEST

/* The OCI export of each profile, read back the way runc + libseccomp
 * would apply it (dsl/oci/oci_import.h), decides like the profile on every
 * number and around every condition. */
START_TEST(test_oci_round_trip)
{
  const struct pol_profile *p = pol_profile_at(pol, (size_t)_i);
  struct sc_ruleset rs, back = { 0 };
  struct diag_source *src = NULL;
  struct oci_import_report rep = { 0 };
  char path[] = "/tmp/pol_oci_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(pol_lower(p, &rs), 0);
  ck_assert_msg(oci_export_ruleset(f, &rs) == 0, "%s: export refused", p->name);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_msg(oci_import_file(path, &src, &back, &rep) == 0, "%s: import failed", p->name);
  unlink(path);
  for (int nr = -1; nr < 600; nr++) {
    struct seccomp_data sd = { .nr = nr, .arch = AUDIT_ARCH_X86_64 };
    ck_assert_msg(sc_ruleset_eval(&rs, &sd) == sc_ruleset_eval(&back, &sd), "%s nr %d", p->name,
                  nr);
  }
  for (uint32_t r = 0; r < rs.nrules; r++) {
    for (uint32_t k = 0; k < rs.rules[r].nclauses; k++) {
      for (uint32_t j = 0; j < rs.rules[r].clauses[k].nconds; j++) {
        const struct sc_cond *cd = &rs.rules[r].clauses[k].conds[j];
        const uint64_t probes[] = { cd->value, cd->value + 1, cd->value | (1ull << 32), cd->mask,
                                    0,         UINT64_MAX };
        for (size_t q = 0; q < sizeof probes / sizeof probes[0]; q++) {
          struct seccomp_data sd = { .nr = rs.rules[r].nr, .arch = AUDIT_ARCH_X86_64 };
          sd.args[cd->arg] = probes[q];
          ck_assert_msg(sc_ruleset_eval(&rs, &sd) == sc_ruleset_eval(&back, &sd),
                        "%s %s arg%u=0x%llx", p->name, rs.rules[r].name, cd->arg,
                        (unsigned long long)probes[q]);
        }
      }
    }
  }
  sc_ruleset_free(&rs);
  sc_ruleset_free(&back);
  oci_import_report_free(&rep);
  diag_source_free(src);
}
END_TEST

/* Settings the seed description fixes. */
START_TEST(test_seed_settings)
{
  const struct pol_profile *s = pol_profile_find(pol, "WORKSPACE_WRITE");
  const struct pol_profile *r = pol_profile_find(pol, "READ_ONLY");
  const struct pol_profile *f = pol_profile_find(pol, "FULL_ACCESS");
  const struct pol_profile *h = pol_profile_find(pol, "HARDENED");
  ck_assert(s && r && f && h);
  ck_assert_str_eq(s->name, "standard");
  ck_assert_str_eq(r->name, "strict");
  ck_assert_str_eq(f->name, "permissive");
  ck_assert_str_eq(h->name, "hardened");
  ck_assert_int_eq(r->shell, CS_SHELL_NONE);
  ck_assert_int_eq(s->shell, CS_SHELL_SANDBOXED);
  ck_assert_int_eq(f->shell, CS_SHELL_FULL);
  ck_assert_int_eq(h->shell, CS_SHELL_NONE);
  ck_assert(!r->allow_network && s->allow_network && f->allow_network && !h->allow_network);
  ck_assert(!r->allow_file_write && s->allow_file_write && f->allow_file_write &&
            !h->allow_file_write);
  ck_assert_uint_le(s->limits.max_processes, 1024);
  ck_assert_uint_le(s->limits.max_memory_bytes, 4ull << 30);
  ck_assert_uint_lt(r->limits.max_memory_bytes, s->limits.max_memory_bytes);
  ck_assert_uint_lt(h->limits.max_memory_bytes, r->limits.max_memory_bytes);
  ck_assert_uint_lt(r->limits.max_processes, s->limits.max_processes);
  ck_assert_uint_lt(h->limits.max_processes, r->limits.max_processes);
  ck_assert_uint_lt(h->limits.max_execution_ms, r->limits.max_execution_ms);
  ck_assert_uint_eq(s->approval_ops, CS_APPROVE_FILE_DELETE | CS_APPROVE_EXTERNAL_NETWORK |
                                         CS_APPROVE_SUDO | CS_APPROVE_GIT_CONFIG);
  /* Credentials are unreadable everywhere but permissive. */
  const char *secret[] = { "~/.ssh", "~/.gnupg", "~/.aws", "/etc/shadow" };
  const struct pol_profile *guarded[] = { r, s, h };
  for (size_t g = 0; g < 3; g++) {
    for (size_t k = 0; k < 4; k++) {
      bool found = false;
      for (size_t d = 0; d < guarded[g]->n_denied; d++)
        found = found || (strcmp(guarded[g]->denied[d].path, secret[k]) == 0 &&
                          (guarded[g]->denied[d].access & CS_PATH_READ));
      ck_assert_msg(found, "%s does not deny reading %s", guarded[g]->name, secret[k]);
    }
  }
  /* Hardened has the tightest system-call set: everything it allows,
   * strict allows too. */
  struct compiled hc, rc;
  compile(h, &hc);
  compile(r, &rc);
  const uint64_t zero[6] = { 0 };
  for (int nr = 0; nr < 600; nr++)
    if (decide(&hc, nr, zero) == SECCOMP_RET_ALLOW)
      ck_assert_msg(decide(&rc, nr, zero) == SECCOMP_RET_ALLOW, "nr %d", nr);
  release(&hc);
  release(&rc);
}
END_TEST

static void setup(void)
{
  ck_assert_int_eq(pol_load(policy_path, &pol), 0);
  ck_assert_uint_eq(pol_profile_count(pol), 4);
}

static void teardown(void)
{
  pol_policy_free(pol);
  pol = NULL;
}

int main(int argc, char **argv)
{
  if (argc != 2) {
    fprintf(stderr, "usage: %s models/profiles.pol\n", argv[0]);
    return 2;
  }
  policy_path = argv[1];
  Suite *s = suite_create("profiles");
  TCase *tc = tcase_create("seed");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_required_denials, 0, 4);
  tcase_add_loop_test(tc, test_terminal_injection_everywhere, 0, 4);
  tcase_add_loop_test(tc, test_network_by_profile, 0, 4);
  tcase_add_loop_test(tc, test_bpf_agrees_with_rules, 0, 4);
  tcase_add_loop_test(tc, test_oci_round_trip, 0, 4);
  tcase_add_test(tc, test_seed_settings);
  tcase_add_test(tc, test_hardened_wx);
  tcase_add_loop_test(tc, test_no_setid_modes, 0, 4);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
