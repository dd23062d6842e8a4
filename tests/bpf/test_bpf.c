/* test_bpf: the generated seccomp filters decide exactly like the rules
 * (sc_ruleset_eval) and like libseccomp's filter for the same rules, on
 * every x86_64 number 0..470, x32 and out-of-range numbers, foreign
 * architectures and argument boundary values; they pass the kernel's
 * validation rules; every plain allow is cacheable by the kernel. */
#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bpf_disasm.h"
#include "bpf_gen.h"
#include "bpf_interp.h"
#include "bpf_testlib.h"
#include "emit_oci.h"
#include "oci_import.h"
#include "pol.h"

#define C32(a, o, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = (o), .value = (v), .is32 = true                                              \
  }
#define C64(a, o, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = (o), .value = (v)                                                            \
  }
#define M64(a, m, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = SC_CMP_MASKED_EQ, .mask = (m), .value = (v)                                  \
  }
#define M32(a, m, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = SC_CMP_MASKED_EQ, .mask = (m), .value = (v), .is32 = true                    \
  }

static void one(struct sc_ruleset *rs, uint32_t r, struct sc_cond c)
{
  tl_clause(rs, r, &c, 1);
}

/* Every action kind, each on its own call. */
static void rs_actions(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "actions";
  tl_rule(rs, "read", A_ALLOW);
  tl_rule(rs, "write", A_ALLOW);
  tl_rule(rs, "open", A_ERRNO(ENOENT));
  tl_rule(rs, "ptrace", A_KILLP);
  tl_rule(rs, "getppid", A_KILLT);
  tl_rule(rs, "gettid", A_TRAP);
  tl_rule(rs, "uname", A_LOG);
  tl_rule(rs, "getuid", A_NOTIFY);
  tl_rule(rs, "getgid", A_TRACE(7));
  tl_rule(rs, "exit_group", A_ALLOW);
}

/* Every comparison on 64-bit arguments, with values that straddle the
 * word boundary (0xffffffff, 1 << 32, high word only, both words). */
static void rs_ops64(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "ops64";
  one(rs, tl_rule(rs, "read", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_EQ, 0x100000005ull));
  one(rs, tl_rule(rs, "write", A_ALLOW), (struct sc_cond)C64(2, SC_CMP_NE, 0xffffffffull));
  one(rs, tl_rule(rs, "lseek", A_ALLOW), (struct sc_cond)C64(1, SC_CMP_LT, 0x100000000ull));
  one(rs, tl_rule(rs, "mmap", A_ALLOW), (struct sc_cond)C64(1, SC_CMP_LE, 0x2000000001ull));
  one(rs, tl_rule(rs, "mprotect", A_ALLOW), (struct sc_cond)C64(2, SC_CMP_GT, 0x7fffffffull));
  one(rs, tl_rule(rs, "munmap", A_ALLOW), (struct sc_cond)C64(1, SC_CMP_GE, 0x300000000ull));
  one(rs, tl_rule(rs, "brk", A_ALLOW),
      (struct sc_cond)M64(0, 0xff000000000000ffull, 0x1200000000000034ull));
  one(rs, tl_rule(rs, "pread64", A_ALLOW), (struct sc_cond)M64(3, 0xffull, 0x10ull));
  one(rs, tl_rule(rs, "pwrite64", A_ALLOW), (struct sc_cond)C64(3, SC_CMP_GE, 0));
  one(rs, tl_rule(rs, "readv", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_LT, 0));
  one(rs, tl_rule(rs, "writev", A_ALLOW), (struct sc_cond)C64(5, SC_CMP_EQ, UINT64_MAX));
  one(rs, tl_rule(rs, "access", A_ALLOW), (struct sc_cond)C64(4, SC_CMP_GT, 0xfffffffeffffffffull));
  tl_rule(rs, "exit_group", A_ALLOW);
}

/* The same on 32-bit arguments: a set high word must not change the
 * verdict (the kernel truncates the argument). */
static void rs_ops32(struct sc_ruleset *rs)
{
  tl_init(rs, A_ALLOW);
  rs->name = "ops32";
  /* ioctl(fd, TIOCSTI) is refused even as TIOCSTI | 1 << 32 (CVE-2019-10063). */
  one(rs, tl_rule(rs, "ioctl", A_ERRNO(EACCES)), (struct sc_cond)C32(1, SC_CMP_EQ, TIOCSTI));
  one(rs, tl_rule(rs, "fcntl", A_ERRNO(EINVAL)), (struct sc_cond)C32(1, SC_CMP_NE, 1));
  one(rs, tl_rule(rs, "kill", A_KILLP), (struct sc_cond)C32(1, SC_CMP_LT, 9));
  one(rs, tl_rule(rs, "tkill", A_ERRNO(EPERM)), (struct sc_cond)C32(1, SC_CMP_LE, 0xfffffffeu));
  one(rs, tl_rule(rs, "setuid", A_ERRNO(EPERM)), (struct sc_cond)C32(0, SC_CMP_GT, 999));
  one(rs, tl_rule(rs, "setgid", A_ERRNO(EPERM)), (struct sc_cond)C32(0, SC_CMP_GE, 0x80000000u));
  one(rs, tl_rule(rs, "socket", A_ERRNO(EAFNOSUPPORT)), (struct sc_cond)M32(1, 0xf, 0x3));
  one(rs, tl_rule(rs, "umask", A_ERRNO(EPERM)), (struct sc_cond)M32(0, 0xffffffffu, 0x12));
  tl_rule(rs, "reboot", A_KILLP);
}

/* Disjunctions of conjunctions, several rules per call with the same
 * action, conditions on several arguments. */
static void rs_dnf(struct sc_ruleset *rs)
{
  tl_init(rs, A_KILLP);
  rs->name = "dnf";
  uint32_t r = tl_rule(rs, "openat", A_ALLOW);
  struct sc_cond a[] = { C32(0, SC_CMP_EQ, (uint32_t)-100 /* AT_FDCWD */), M64(2, 3, 0) };
  tl_clause(rs, r, a, 2);
  /* (libseccomp refuses one rule naming an argument twice, so the oracle
   * tables do not.) */
  struct sc_cond b[] = { C32(0, SC_CMP_LT, 1024), M64(2, 0x40, 0x40) };
  tl_clause(rs, r, b, 2);
  struct sc_cond c[] = { C64(3, SC_CMP_EQ, 7), C64(4, SC_CMP_NE, 8), C64(5, SC_CMP_GT, 9) };
  uint32_t r2 = tl_rule(rs, "openat", A_ALLOW);
  tl_clause(rs, r2, c, 3);
  uint32_t w = tl_rule(rs, "write", A_ALLOW);
  one(rs, w, (struct sc_cond)C64(0, SC_CMP_EQ, 1));
  one(rs, w, (struct sc_cond)C64(0, SC_CMP_EQ, 2));
  one(rs, tl_rule(rs, "write", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_EQ, 5));
  /* Same conditions under another number share one argument block. */
  one(rs, tl_rule(rs, "pwrite64", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_EQ, 1));
  one(rs, tl_rule(rs, "pwrite64", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_EQ, 2));
  one(rs, tl_rule(rs, "pwrite64", A_ALLOW), (struct sc_cond)C64(0, SC_CMP_EQ, 5));
  /* Different actions on disjoint conditions. */
  one(rs, tl_rule(rs, "prctl", A_ERRNO(EINVAL)), (struct sc_cond)C32(0, SC_CMP_EQ, 22));
  one(rs, tl_rule(rs, "prctl", A_ALLOW), (struct sc_cond)C32(0, SC_CMP_NE, 22));
  tl_rule(rs, "exit_group", A_ALLOW);
}

/* Runs of adjacent numbers, holes, both ends of the table, and the largest
 * native numbers. */
static void rs_ranges(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(ENOSYS));
  rs->name = "ranges";
  for (int nr = 0; nr <= 60; nr++)
    if (nr != 17 && nr != 33 && nr != 34)
      tl_rule_nr(rs, nr, A_ALLOW);
  for (int nr = 200; nr < 230; nr += 2)
    tl_rule_nr(rs, nr, A_ERRNO(EPERM));
  for (int nr = 300; nr <= 334; nr++)
    tl_rule_nr(rs, nr, nr % 7 ? A_ALLOW : A_LOG);
  tl_rule_nr(rs, 435, A_ALLOW);
  tl_rule_nr(rs, 456, A_ALLOW); /* the last call libseccomp 2.5.4 names */
}

/* Allowed numbers whose pattern is in their low bits (every number of
 * [200, 263] but the multiples of 4): the tree tests bits (JSET) instead of
 * peeling 16 holes one by one, and stays cacheable. */
static void rs_bits(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "bits";
  for (int nr = 0; nr <= 40; nr++)
    tl_rule_nr(rs, nr, A_ALLOW);
  for (int nr = 200; nr <= 263; nr++)
    if (nr % 4)
      tl_rule_nr(rs, nr, A_ALLOW);
}

/* A call newer than libseccomp's table (mseal, 462): compiled by number,
 * but not exportable, since runc would skip the unknown name and, with a
 * default allow, silently drop the deny. */
static void rs_unnamed(struct sc_ruleset *rs)
{
  tl_init(rs, A_ALLOW);
  rs->name = "unnamed";
  tl_rule_nr(rs, 462, A_ERRNO(EPERM));
  tl_rule(rs, "ptrace", A_ERRNO(EPERM));
}

/* A default-allow deny list. */
static void rs_denylist(struct sc_ruleset *rs)
{
  tl_init(rs, A_ALLOW);
  rs->name = "denylist";
  tl_rule(rs, "kexec_load", A_KILLP);
  tl_rule(rs, "init_module", A_ERRNO(EPERM));
  tl_rule(rs, "finit_module", A_ERRNO(EPERM));
  tl_rule(rs, "ptrace", A_ERRNO(EPERM));
  one(rs, tl_rule(rs, "personality", A_ERRNO(EPERM)), (struct sc_cond)C32(0, SC_CMP_NE, 0));
}

/* x32 accepted: x32 numbers reach the tree and have their own rules. */
static void rs_x32(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "x32";
  rs->allow_x32 = true;
  tl_rule(rs, "read", A_ALLOW);
  tl_rule_nr(rs, 0x40000000, A_ALLOW);
  tl_rule_nr(rs, 0x40000001, A_ERRNO(EACCES));
}

/* Long argument blocks so the tree's jumps to the shared returns exceed
 * 255 instructions: trampolines. */
static void rs_far(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "far";
  for (int nr = 0; nr < 160; nr++) {
    uint32_t r = tl_rule_nr(rs, nr, nr % 3 ? A_ALLOW : A_ERRNO(EACCES));
    one(rs, r,
        (struct sc_cond)C64(nr % 6, SC_CMP_EQ, 0x100000000ull * (uint64_t)nr + 17u * (uint64_t)nr));
  }
  tl_rule(rs, "exit_group", A_ALLOW);
}

/* More than BPF_MAXINSNS instructions: refused with -E2BIG. */
static void rs_too_big(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "too big";
  for (int nr = 0; nr < 400; nr++) {
    uint32_t r = tl_rule_nr(rs, nr, A_ALLOW);
    for (int k = 0; k < 4; k++)
      one(rs, r, (struct sc_cond)C64(k, SC_CMP_EQ, 0x100000000ull * (uint64_t)nr + (uint64_t)k));
  }
}

/* No rule at all: the decision does not even load the number. */
static void rs_empty(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "empty";
}

struct case_def {
  const char *name;
  void (*build)(struct sc_ruleset *);
  int want_rc;
  bool want_trampoline;
  bool exportable;    /* --emit oci can say it exactly */
  bool want_bit_test; /* the tree must contain a JSET on nr */
};

/* ops64 is not exportable: it compares with values >= 2^63, which OCI JSON
 * integers (signed in jansson, refused by runc when negative) cannot hold;
 * x32 cannot be exported (runc would apply the x86_64 rules to x32). */
static const struct case_def cases[] = {
  { "actions", rs_actions, 0, false, true, false },
  { "ops64", rs_ops64, 0, false, false, false },
  { "ops32", rs_ops32, 0, false, true, false },
  { "dnf", rs_dnf, 0, false, true, false },
  { "ranges", rs_ranges, 0, false, true, false },
  { "denylist", rs_denylist, 0, false, true, false },
  { "x32", rs_x32, 0, false, false, false },
  { "far", rs_far, 0, true, true, false },
  { "too_big", rs_too_big, -E2BIG, false, true, false },
  { "empty", rs_empty, 0, false, true, false },
  { "unnamed", rs_unnamed, 0, false, false, false },
  { "bits", rs_bits, 0, false, true, true },
};

static void check_program(const struct sc_ruleset *rs, const struct bpf_program_out *p)
{
  char err[256] = "";
  ck_assert_msg(bpf_validate(p->insns, p->len, err, sizeof err) == 0, "%s: kernel would refuse: %s",
                rs->name, err);
  ck_assert_uint_le(p->len, BPF_MAXINSNS);
  for (uint32_t i = 0; i < p->len; i++)
    ck_assert_ptr_nonnull(p->comments[i]);

  struct sock_filter *lsc = NULL;
  uint32_t lsc_len = 0;
  int lrc = tl_libseccomp_filter(rs, 0, &lsc, &lsc_len);
  ck_assert_msg(lrc == 0, "%s: libseccomp refused the rules (%d)", rs->name, lrc);
  ck_assert_int_eq(bpf_validate(lsc, lsc_len, err, sizeof err), 0);

  struct tl_inputs in;
  tl_make_inputs(rs, &in);
  size_t bad = tl_compare(rs, p->insns, p->len, lsc, lsc_len, &in, stderr);
  ck_assert_msg(bad == 0, "%s: %zu of %zu inputs disagree", rs->name, bad, in.n);

  /* Every plain allow is constant for the kernel's action cache; nothing
   * that looks at arguments or denies is. */
  for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++) {
    bool plain = tl_plain_allow(rs, nr);
    bool cached = bpf_nr_is_const_allow(p->insns, p->len, AUDIT_ARCH_X86_64, nr);
    ck_assert_msg(plain == cached, "%s: nr %u plain allow %d but cacheable %d", rs->name, nr, plain,
                  cached);
  }
  ck_assert(!bpf_nr_is_const_allow(p->insns, p->len, AUDIT_ARCH_I386, 0) ||
            rs->bad_arch_action.kind == SC_ACT_ALLOW);
  tl_inputs_free(&in);
  free(lsc);
}

/* --emit oci: the exported profile, loaded the runc way (tl_runc_filter:
 * libseccomp, no rule order), decides every input like the rule set under
 * first-match - 32-bit arguments with high bits included, since exported
 * 32-bit conditions are masked to the low word. Returns false (and prints
 * the reason) when the exporter refuses the rule set. */
static unsigned libseccomp_export_bugs; /* inputs libseccomp 2.5.4 got wrong */
static unsigned libseccomp_timeouts;    /* profiles it did not compile in 3 s */
static unsigned libseccomp_oracle_bugs; /* inputs its own filter got wrong */

static bool check_export_mode(const struct sc_ruleset *rs, bool strict)
{
  char tmp[] = "/tmp/cs_oci_export_XXXXXX.json";
  int fd = mkstemps(tmp, 5);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  int rc = oci_export_ruleset(f, rs);
  ck_assert_int_eq(fclose(f), 0);
  if (rc) {
    unlink(tmp);
    return false;
  }
  struct tl_inputs in;
  tl_make_inputs(rs, &in);
  /* 1. The profile's OCI meaning, read from the JSON: exactly the rules. */
  size_t bad = 0;
  struct tl_oci *oci = tl_oci_load(tmp);
  ck_assert_ptr_nonnull(oci);
  for (size_t i = 0; i < in.n; i++) {
    uint32_t want = sc_ruleset_eval(rs, &in.v[i]), got = tl_oci_eval(oci, &in.v[i]);
    if (want != got && bad++ < 5)
      fprintf(
          stderr,
          "%s: export: nr %d args {%#llx,%#llx,%#llx,%#llx,%#llx,%#llx}: rules %#x, profile %#x\n",
          rs->name, in.v[i].nr, (unsigned long long)in.v[i].args[0],
          (unsigned long long)in.v[i].args[1], (unsigned long long)in.v[i].args[2],
          (unsigned long long)in.v[i].args[3], (unsigned long long)in.v[i].args[4],
          (unsigned long long)in.v[i].args[5], want, got);
  }
  tl_oci_free(oci);
  ck_assert_msg(bad == 0, "%s: the exported profile means something else for %zu inputs (%s)",
                rs->name, bad, tmp);
  /* 2. What runc's libseccomp builds from it. */
  struct sock_filter *runc = NULL;
  uint32_t runc_len = 0;
  rc = tl_runc_filter(tmp, &runc, &runc_len);
  if (!strict && rc == -ETIMEDOUT) { /* libseccomp gave no answer in time */
    libseccomp_timeouts++;
    unlink(tmp);
    tl_inputs_free(&in);
    return true;
  }
  ck_assert_msg(rc == 0, "%s: runc/libseccomp refuses the exported profile (%d), kept in %s",
                rs->name, rc, tmp);
  bad = tl_compare(rs, runc, runc_len, NULL, 0, &in, strict ? stderr : NULL);
  if (strict)
    ck_assert_msg(
        bad == 0,
        "%s: exported profile under libseccomp decides %zu of %zu inputs differently (%s)",
        rs->name, bad, in.n, tmp);
  libseccomp_export_bugs += (unsigned)bad;
  unlink(tmp);
  tl_inputs_free(&in);
  free(runc);
  return true;
}

static bool check_export(const struct sc_ruleset *rs)
{
  return check_export_mode(rs, true);
}

START_TEST(test_rule_sets)
{
  const struct case_def *c = &cases[_i];
  struct sc_ruleset rs;
  struct bpf_program_out p;
  char *msg = NULL;
  size_t msglen = 0;
  FILE *mem = open_memstream(&msg, &msglen);
  c->build(&rs);
  diag_set_stream(mem);
  int rc = bpf_compile(&rs, &p);
  diag_set_stream(stderr);
  fclose(mem);
  /* A policy too big for the kernel says so, naming the rule set and the
   * limit; a good one prints nothing. */
  if (rc == -E2BIG)
    ck_assert_msg(strstr(msg, c->name[0] == 't' ? "too big" : "") && strstr(msg, "BPF_MAXINSNS"),
                  "message: %s", msg);
  else
    ck_assert_msg(msglen == 0, "unexpected message: %s", msg);
  free(msg);
  ck_assert_msg(rc == c->want_rc, "%s: bpf_compile returned %d, want %d", c->name, rc, c->want_rc);
  if (rc == 0) {
    check_program(&rs, &p);
    bool tramp = false;
    for (uint32_t i = 0; i < p.len; i++)
      tramp = tramp || p.insns[i].code == (BPF_JMP | BPF_JA);
    ck_assert_msg(tramp == c->want_trampoline, "%s: trampolines %d, expected %d", c->name, tramp,
                  c->want_trampoline);
    /* A bit test of the number sits before the first argument load. */
    bool jset = false;
    for (uint32_t i = 0;
         i < p.len && !(p.insns[i].code == (BPF_LD | BPF_W | BPF_ABS) && p.insns[i].k >= 16); i++)
      jset = jset || p.insns[i].code == (BPF_JMP | BPF_JSET | BPF_K);
    if (c->want_bit_test)
      ck_assert_msg(jset, "%s: no bit test in the tree", c->name);
    FILE *quiet = fopen("/dev/null", "w");
    diag_set_stream(quiet);
    bool exported = check_export(&rs);
    diag_set_stream(stderr);
    fclose(quiet);
    ck_assert_msg(exported == c->exportable, "%s: export %s", c->name,
                  exported ? "worked" : "refused");
    /* Deterministic: a second run gives the same bytes and comments. */
    struct bpf_program_out q;
    ck_assert_int_eq(bpf_compile(&rs, &q), 0);
    ck_assert_uint_eq(p.len, q.len);
    ck_assert(memcmp(p.insns, q.insns, p.len * sizeof *p.insns) == 0);
    for (uint32_t i = 0; i < p.len; i++)
      ck_assert_str_eq(p.comments[i], q.comments[i]);
    bpf_program_out_free(&q);
  } else {
    ck_assert_ptr_null(p.insns);
  }
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
}
END_TEST

/* The 32-bit width rule in isolation: TIOCSTI with the high word set is
 * still TIOCSTI for the filter (libseccomp's 64-bit compare would let it
 * through; this is the CVE-2019-10063 pattern). */
START_TEST(test_tiocsti_high_bits)
{
  struct sc_ruleset rs;
  struct bpf_program_out p;
  rs_ops32(&rs);
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  struct seccomp_data sd = { .nr = 16 /* ioctl */, .arch = AUDIT_ARCH_X86_64 };
  struct bpf_run_result r;
  const uint64_t variants[] = { TIOCSTI, TIOCSTI | (1ull << 32), TIOCSTI | 0xffffffff00000000ull };
  for (size_t i = 0; i < 3; i++) {
    sd.args[1] = variants[i];
    ck_assert_int_eq(bpf_run(p.insns, p.len, &sd, &r), 0);
    ck_assert_uint_eq(r.ret, SECCOMP_RET_ERRNO | EACCES);
  }
  sd.args[1] = TIOCSTI + 1;
  ck_assert_int_eq(bpf_run(p.insns, p.len, &sd, &r), 0);
  ck_assert_uint_eq(r.ret, SECCOMP_RET_ALLOW);
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
}
END_TEST

static const char *moby_path(void)
{
  return CS_SHARED_DATA "/oci/moby-default.json";
}

/* Docker's default profile, imported the way runc loads it, decides every
 * x86_64 call and argument case like the filter libseccomp builds. */
START_TEST(test_moby_default)
{
  struct diag_source *src = NULL;
  struct sc_ruleset rs;
  struct oci_import_report rep;
  ck_assert_int_eq(oci_import_file(moby_path(), &src, &rs, &rep), 0);
  ck_assert_uint_gt(rs.nrules, 250);
  ck_assert_uint_gt(rep.n_unknown, 0); /* names of other architectures */
  ck_assert_uint_gt(rep.skipped_caps, 0);
  struct bpf_program_out p;
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  check_program(&rs, &p);
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
  oci_import_report_free(&rep);
  diag_source_free(src);
}
END_TEST

/* The interpreter refuses what the kernel refuses. */
START_TEST(test_validator)
{
  char err[128];
  struct sock_filter back[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0),
                                BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert_int_eq(bpf_validate(back, 3, err, sizeof err), -EINVAL); /* jump past the end */
  struct sock_filter noret[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0) };
  ck_assert_int_eq(bpf_validate(noret, 1, err, sizeof err), -EINVAL);
  struct sock_filter badoff[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 64),
                                  BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert_int_eq(bpf_validate(badoff, 2, err, sizeof err), -EINVAL);
  struct sock_filter unal[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 2),
                                BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert_int_eq(bpf_validate(unal, 2, err, sizeof err), -EINVAL);
  struct sock_filter mem[] = { BPF_STMT(BPF_LD | BPF_MEM, 3), BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert_int_eq(bpf_validate(mem, 2, err, sizeof err), -EINVAL);
  struct sock_filter pkt[] = { BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
                               BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert_int_eq(bpf_validate(pkt, 2, err, sizeof err), -EINVAL);
  struct sock_filter ok[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0), BPF_STMT(BPF_ST, 1),
                              BPF_STMT(BPF_LD | BPF_MEM, 1), BPF_STMT(BPF_RET | BPF_A, 0) };
  ck_assert_int_eq(bpf_validate(ok, 4, err, sizeof err), 0);
  struct seccomp_data sd = { .nr = 42 };
  struct bpf_run_result r;
  ck_assert_int_eq(bpf_run(ok, 4, &sd, &r), 0);
  ck_assert_uint_eq(r.ret, 42);
  ck_assert_uint_eq(r.executed, 4);
  /* The cache checker gives up at an argument load, as the kernel does. */
  struct sock_filter args[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16),
                                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  ck_assert(!bpf_nr_is_const_allow(args, 2, AUDIT_ARCH_X86_64, 0));
  struct sock_filter cst[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                               BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 1),
                               BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1),
                               BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                               BPF_STMT(BPF_RET | BPF_K, 0) };
  ck_assert(bpf_nr_is_const_allow(cst, 5, AUDIT_ARCH_X86_64, 1));
  ck_assert(!bpf_nr_is_const_allow(cst, 5, AUDIT_ARCH_X86_64, 2));
}
END_TEST

/* An OCI profile imported by us decides every input like the filter runc
 * builds with libseccomp from the same JSON (tl_runc_filter, written
 * independently of the importer), and survives export + re-import. */
static void check_oci_profile(const char *path)
{
  struct diag_source *src = NULL, *src2 = NULL;
  struct sc_ruleset rs, rs2;
  struct oci_import_report rep, rep2;
  struct bpf_program_out p, p2;
  ck_assert_int_eq(oci_import_file(path, &src, &rs, &rep), 0);
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  check_program(&rs, &p);

  struct sock_filter *runc = NULL;
  uint32_t runc_len = 0;
  int rc = tl_runc_filter(path, &runc, &runc_len);
  ck_assert_msg(rc == 0, "%s: libseccomp refused the profile the runc way (%d)", path, rc);
  struct tl_inputs in;
  tl_make_inputs(&rs, &in);
  size_t bad = tl_compare(&rs, p.insns, p.len, runc, runc_len, &in, stderr);
  ck_assert_msg(bad == 0, "%s: %zu of %zu inputs decided unlike runc's filter", path, bad, in.n);

  /* Round trip through --emit oci. */
  char tmp[] = "/tmp/cs_oci_rt_XXXXXX.json";
  int fd = mkstemps(tmp, 5);
  ck_assert_int_ge(fd, 0);
  FILE *f = fdopen(fd, "w");
  ck_assert_int_eq(oci_export_ruleset(f, &rs), 0);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(oci_import_file(tmp, &src2, &rs2, &rep2), 0);
  ck_assert_int_eq(bpf_compile(&rs2, &p2), 0);
  bad = tl_compare(&rs, p2.insns, p2.len, NULL, 0, &in, stderr);
  ck_assert_msg(bad == 0, "%s: the exported profile decides %zu inputs differently", path, bad);
  unlink(tmp);

  tl_inputs_free(&in);
  free(runc);
  bpf_program_out_free(&p);
  bpf_program_out_free(&p2);
  sc_ruleset_free(&rs);
  sc_ruleset_free(&rs2);
  oci_import_report_free(&rep);
  oci_import_report_free(&rep2);
  diag_source_free(src);
  diag_source_free(src2);
}

START_TEST(test_oci_overlap)
{
  check_oci_profile(CS_BPF_TEST_DATA "/overlap.json");
  /* What the import reports. */
  struct diag_source *src = NULL;
  struct sc_ruleset rs;
  struct oci_import_report rep;
  ck_assert_int_eq(oci_import_file(CS_BPF_TEST_DATA "/overlap.json", &src, &rs, &rep), 0);
  ck_assert_uint_eq(rep.n_unknown, 2); /* no_such_call, _llseek */
  ck_assert_uint_eq(rep.skipped_caps, 1);
  ck_assert_uint_eq(rep.skipped_arch, 2);
  ck_assert_uint_eq(rep.skipped_kernel, 1);
  ck_assert_uint_eq(rep.skipped_default, 1);
  sc_ruleset_free(&rs);
  oci_import_report_free(&rep);
  diag_source_free(src);
}
END_TEST

START_TEST(test_moby_runc)
{
  check_oci_profile(moby_path());
}
END_TEST

/* Bad profiles: file:line:col: error: + the line + a caret, -EINVAL. */
static const struct {
  const char *file;
  const char *want;
} bad_profiles[] = {
  { "malformed.json", "malformed.json:4:24: error: malformed JSON" },
  { "bad_action.json", "bad_action.json:4:35: error: unknown seccomp action 'SCMP_ACT_MAYBE'" },
  { "conflict.json", "conflict.json:5:16: error: 'socket' has rules with different actions" },
};

START_TEST(test_oci_errors)
{
  char path[512], *buf = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/%s", CS_BPF_TEST_DATA, bad_profiles[_i].file);
  FILE *mem = open_memstream(&buf, &len);
  diag_set_stream(mem);
  struct diag_source *src = NULL;
  struct sc_ruleset rs;
  struct oci_import_report rep;
  int rc = oci_import_file(path, &src, &rs, &rep);
  diag_set_stream(stderr);
  fclose(mem);
  ck_assert_int_eq(rc, -EINVAL);
  ck_assert_msg(strstr(buf, bad_profiles[_i].want) != NULL, "got:\n%s\nwant: %s", buf,
                bad_profiles[_i].want);
  ck_assert_msg(strstr(buf, "^\n") != NULL, "no caret line in:\n%s", buf);
  ck_assert_uint_eq(rs.nrules, 0);
  free(buf);
  oci_import_report_free(&rep);
  diag_source_free(src);
}
END_TEST

/* Golden disassembly + pseudo-code of a small rule set. */
static void rs_golden(struct sc_ruleset *rs)
{
  tl_init(rs, A_ERRNO(EPERM));
  rs->name = "golden";
  tl_rule(rs, "read", A_ALLOW);
  tl_rule(rs, "write", A_ALLOW);
  tl_rule(rs, "close", A_ALLOW);
  tl_rule(rs, "exit_group", A_ALLOW);
  struct sc_cond t = C32(1, SC_CMP_EQ, TIOCSTI);
  tl_clause(rs, tl_rule(rs, "ioctl", A_ERRNO(EACCES)), &t, 1);
  tl_rule(rs, "ioctl", A_ALLOW);
  struct sc_cond l = C64(1, SC_CMP_LT, 0x100000000ull);
  tl_clause(rs, tl_rule(rs, "lseek", A_ALLOW), &l, 1);
  tl_rule(rs, "ptrace", A_KILLP);
}

/* The readable views, golden: a small rule set with argument blocks, and
 * the bit-test rule set (jset in the program, "if (nr & ...)" in the
 * pseudo-code). */
static const struct {
  const char *file;
  void (*build)(struct sc_ruleset *);
} goldens[] = { { "small.disasm", rs_golden }, { "bits.disasm", rs_bits } };

START_TEST(test_golden_disasm)
{
  struct sc_ruleset rs;
  struct bpf_program_out p;
  char *buf = NULL;
  size_t len = 0;
  char golden[512];
  snprintf(golden, sizeof golden, "%s/%s", CS_BPF_GOLDEN_DIR, goldens[_i].file);
  goldens[_i].build(&rs);
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  FILE *mem = open_memstream(&buf, &len);
  bpf_write_disasm(mem, &p);
  fputc('\n', mem);
  bpf_write_pseudocode(mem, &rs);
  fclose(mem);
  if (getenv("CS_UPDATE_GOLDEN")) {
    FILE *g = fopen(golden, "w");
    ck_assert_ptr_nonnull(g);
    fwrite(buf, 1, len, g);
    fclose(g);
  }
  FILE *g = fopen(golden, "r");
  ck_assert_msg(g != NULL, "missing %s (regenerate with CS_UPDATE_GOLDEN=1)", golden);
  char *want = calloc(1, len + 2);
  size_t got = fread(want, 1, len + 1, g);
  fclose(g);
  ck_assert_msg(got == len && memcmp(want, buf, len) == 0, "disassembly differs from %s:\n%s",
                golden, buf);
  free(want);
  free(buf);
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
}
END_TEST

/* The seed policy's profiles (models/profiles.pol): compiled filters decide
 * like the lowered rules; libseccomp's filter is compared too when the
 * rules can be written in its model. */
START_TEST(test_pol_profiles)
{
  struct pol_policy *pol = NULL;
  ck_assert_int_eq(pol_load(CS_PROFILES_POL, &pol), 0);
  ck_assert_uint_gt(pol_profile_count(pol), 0);
  for (size_t k = 0; k < pol_profile_count(pol); k++) {
    const struct pol_profile *pp = pol_profile_at(pol, k);
    struct sc_ruleset rs;
    struct bpf_program_out p;
    ck_assert_int_eq(pol_lower(pp, &rs), 0);
    ck_assert_int_eq(bpf_compile(&rs, &p), 0);
    char err[256] = "";
    ck_assert_msg(bpf_validate(p.insns, p.len, err, sizeof err) == 0, "%s: %s", pp->name, err);
    struct sock_filter *lsc = NULL;
    uint32_t lsc_len = 0;
    int lrc = tl_libseccomp_filter(&rs, 0, &lsc, &lsc_len);
    ck_assert_msg(lrc == 0 || lrc == -ENOTSUP, "%s: libseccomp error %d", pp->name, lrc);
    struct tl_inputs in;
    tl_make_inputs(&rs, &in);
    size_t bad = tl_compare(&rs, p.insns, p.len, lrc ? NULL : lsc, lsc_len, &in, stderr);
    ck_assert_msg(bad == 0, "profile %s: %zu of %zu inputs disagree", pp->name, bad, in.n);
    for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++)
      ck_assert_msg(tl_plain_allow(&rs, nr) ==
                        bpf_nr_is_const_allow(p.insns, p.len, AUDIT_ARCH_X86_64, nr),
                    "profile %s: nr %u cacheability", pp->name, nr);
    ck_assert_msg(check_export(&rs), "profile %s: --emit oci refused it", pp->name);
    tl_inputs_free(&in);
    free(lsc);
    bpf_program_out_free(&p);
    sc_ruleset_free(&rs);
  }
  pol_policy_free(pol);
}
END_TEST

/* Random rule sets (deterministic seed): clustered numbers, every action,
 * every operator on both widths with values near word boundaries, DNF
 * with repeated arguments, unconditional rules in the middle. Each must
 * compile, validate, decide like the rules on all boundary inputs, keep
 * plain allows cacheable, agree with libseccomp where its model can say
 * it, and survive --emit oci where the exporter accepts it. */
static uint32_t rr_state;
static uint32_t rr(uint32_t n)
{
  rr_state = rr_state * 1664525u + 1013904223u;
  return (rr_state >> 8) % n;
}

static bool rr_small; /* only values below 2^63, which OCI JSON can carry */

static uint64_t rr_value(void)
{
  static const uint64_t pool[] = { 0,
                                   1,
                                   2,
                                   0x7f,
                                   0xff,
                                   0x5412,
                                   0x7fffffff,
                                   0x80000000u,
                                   0xfffffffeu,
                                   0xffffffffu,
                                   0x100000000ull,
                                   0x100000001ull,
                                   0x123456789ull,
                                   0x7ffffffffffffffeull,
                                   0xffffffff00000000ull };
  uint64_t v = pool[rr(rr_small ? 14 : 15)];
  return rr(4) == 0 ? v + rr(3) : v;
}

static struct sc_action rr_action(void)
{
  static const struct sc_action acts[] = { A_ALLOW, A_ERRNO(EPERM), A_ERRNO(EACCES), A_KILLP,
                                           A_KILLT, A_TRAP,         A_LOG,           A_TRACE(3) };
  return acts[rr(8)];
}

static void rs_random(struct sc_ruleset *rs, uint32_t seed)
{
  rr_state = seed;
  rr_small = seed % 2 == 0;
  tl_init(rs, rr(3) ? A_ERRNO(EPERM) : A_ALLOW);
  rs->name = "random";
  uint32_t nrules = 1 + rr(40);
  for (uint32_t i = 0; i < nrules; i++) {
    int nr = rr(3) ? (int)rr(20) : (int)rr(457); /* clusters: many rules share a call */
    uint32_t r = tl_rule_nr(rs, nr, rr_action());
    uint32_t nclauses = rr(4) == 0 ? 0 : 1 + rr(3);
    for (uint32_t c = 0; c < nclauses; c++) {
      struct sc_cond conds[4];
      uint32_t n = 1 + rr(3);
      for (uint32_t k = 0; k < n; k++) {
        uint8_t arg = (uint8_t)rr(6);
        /* An argument has one width (from the call's prototype). */
        conds[k] = (struct sc_cond){ .arg = arg,
                                     .op = (enum sc_cmp)rr(7),
                                     .value = rr_value(),
                                     .mask = rr(2) ? rr_value() : (1ull << rr(64)),
                                     .is32 = ((uint32_t)nr * 7u + arg) % 3 == 0 };
        if (conds[k].op == SC_CMP_MASKED_EQ && rr(2))
          conds[k].value &= conds[k].mask;
      }
      tl_clause(rs, r, conds, n);
    }
  }
}

START_TEST(test_random_rule_sets)
{
  unsigned oracle_runs = 0, exports = 0;
  for (uint32_t seed = 1; seed <= 100; seed++) {
    struct sc_ruleset rs;
    struct bpf_program_out p;
    rs_random(&rs, seed * 7919u);
    int rc = bpf_compile(&rs, &p);
    ck_assert_msg(rc == 0, "seed %u: bpf_compile %d", seed, rc);
    char err[256] = "";
    ck_assert_msg(bpf_validate(p.insns, p.len, err, sizeof err) == 0, "seed %u: %s", seed, err);
    struct sock_filter *lsc = NULL;
    uint32_t lsc_len = 0;
    int lrc = tl_libseccomp_filter(&rs, 0, &lsc, &lsc_len);
    oracle_runs += lrc == 0;
    struct tl_inputs in;
    tl_make_inputs(&rs, &in);
    size_t bad = tl_compare(&rs, p.insns, p.len, NULL, 0, &in, stderr);
    if (bad)
      bpf_write_pseudocode(stderr, &rs); /* the rules, for the record */
    ck_assert_msg(bad == 0, "seed %u: %zu of %zu inputs disagree", seed, bad, in.n);
    /* libseccomp 2.5.4 itself mis-merges some of these rule sets (see
     * docs/bpf-layout.md); its disagreements are counted, not trusted. */
    if (lrc == 0)
      libseccomp_oracle_bugs += tl_compare(&rs, lsc, lsc_len, NULL, 0, &in, NULL);
    for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++)
      ck_assert_msg(tl_plain_allow(&rs, nr) ==
                        bpf_nr_is_const_allow(p.insns, p.len, AUDIT_ARCH_X86_64, nr),
                    "seed %u: nr %u cacheability", seed, nr);
    FILE *quiet = fopen("/dev/null", "w");
    diag_set_stream(quiet);
    /* libseccomp 2.5.4 mis-merges some range rules on one argument; the
     * profile's meaning is checked exactly, libseccomp's reading counted. */
    exports += check_export_mode(&rs, false);
    diag_set_stream(stderr);
    fclose(quiet);
    tl_inputs_free(&in);
    free(lsc);
    bpf_program_out_free(&p);
    sc_ruleset_free(&rs);
  }
  /* The oracle and the exporter must not quietly give up on everything. */
  fprintf(
      stderr,
      "random rule sets: libseccomp oracle for %u of 100, export checked for %u; inputs libseccomp 2.5.4 "
      "decides against the exported profile's meaning: %u, against the rules: %u; libseccomp timeouts: "
      "%u\n",
      oracle_runs, exports, libseccomp_export_bugs, libseccomp_oracle_bugs, libseccomp_timeouts);
  ck_assert_uint_ge(oracle_runs, 8);
  ck_assert_uint_ge(exports, 8);
}
END_TEST

/* Damaged copies of Docker's profile (cut short, bytes flipped) are
 * refused with a diagnostic or imported and compiled: never a crash, a
 * leak (the sanitizer build checks) or a half-filled rule set. */
START_TEST(test_oci_damaged)
{
  FILE *f = fopen(moby_path(), "rb");
  ck_assert_ptr_nonnull(f);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  int ch;
  while ((ch = fgetc(f)) != EOF)
    fputc(ch, mem);
  fclose(f);
  fclose(mem);
  FILE *quiet = fopen("/dev/null", "w");
  diag_set_stream(quiet);
  uint32_t state = 99;
  unsigned refused = 0, accepted = 0;
  for (int round = 0; round < 80; round++) {
    char tmp[] = "/tmp/cs_oci_damaged_XXXXXX.json";
    int fd = mkstemps(tmp, 5);
    ck_assert_int_ge(fd, 0);
    FILE *out = fdopen(fd, "w");
    state = state * 1103515245u + 12345u;
    if (round < 40) {
      fwrite(text, 1, (len * (size_t)round) / 40, out); /* cut short */
    } else {
      size_t at = (state >> 8) % len;
      char saved = text[at];
      static const char junk[] = "{}[],:\"0-x\\\n";
      text[at] = junk[(state >> 4) % (sizeof junk - 1)];
      fwrite(text, 1, len, out);
      text[at] = saved;
    }
    fclose(out);
    struct diag_source *src = NULL;
    struct sc_ruleset rs;
    struct oci_import_report rep;
    int rc = oci_import_file(tmp, &src, &rs, &rep);
    ck_assert_msg(rc == 0 || rc == -EINVAL, "round %d: %d", round, rc);
    if (rc == 0) {
      struct bpf_program_out p;
      ck_assert_int_eq(bpf_compile(&rs, &p), 0);
      bpf_program_out_free(&p);
      accepted++;
    } else {
      ck_assert_uint_eq(rs.nrules, 0);
      refused++;
    }
    sc_ruleset_free(&rs);
    oci_import_report_free(&rep);
    diag_source_free(src);
    unlink(tmp);
  }
  diag_set_stream(stderr);
  fclose(quiet);
  free(text);
  ck_assert_uint_ge(refused, 40); /* every cut is refused */
  (void)accepted;
}
END_TEST

static Suite *suite(bool moby)
{
  Suite *s = suite_create("bpf");
  TCase *tc = tcase_create(moby ? "moby" : "core");
  tcase_set_timeout(tc, 300);
  if (moby) {
    tcase_add_test(tc, test_moby_default);
    tcase_add_test(tc, test_moby_runc);
    tcase_add_test(tc, test_oci_damaged);
  } else {
    tcase_add_test(tc, test_oci_overlap);
    tcase_add_loop_test(tc, test_oci_errors, 0, (int)(sizeof bad_profiles / sizeof *bad_profiles));
    tcase_add_loop_test(tc, test_golden_disasm, 0, (int)(sizeof goldens / sizeof goldens[0]));
    tcase_add_test(tc, test_random_rule_sets);
    tcase_add_test(tc, test_pol_profiles);
    tcase_add_loop_test(tc, test_rule_sets, 0, (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, test_tiocsti_high_bits);
    tcase_add_test(tc, test_validator);
  }
  suite_add_tcase(s, tc);
  return s;
}

/* test_bpf        the hand-built rule sets
 * test_bpf moby   Docker's default profile (exit 77 = skipped if absent) */
int main(int argc, char **argv)
{
  bool moby = argc > 1 && strcmp(argv[1], "moby") == 0;
  if (moby && access(moby_path(), R_OK) != 0) {
    fprintf(stderr, "SKIP: %s is absent (Docker's default seccomp profile, ../shared/data/oci)\n",
            moby_path());
    return 77;
  }
  SRunner *sr = srunner_create(suite(moby));
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
