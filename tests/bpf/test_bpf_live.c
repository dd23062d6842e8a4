/* test_bpf_live: generated filters loaded into the real kernel (in forked
 * children: prctl(PR_SET_NO_NEW_PRIVS) + seccomp(SECCOMP_SET_MODE_FILTER)).
 * Allowed calls must run; denied ones must get exactly the declared action:
 * the errno value, or SIGSYS for kill/trap seen through waitpid. Includes
 * TIOCSTI with high bits set, an x32 call (nr | 0x40000000) and an i386
 * call through int 0x80. Exit 77 (skipped) when seccomp is unavailable. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpf_gen.h"
#include "bpf_interp.h"
#include "bpf_testlib.h"
#include "oci_import.h"

#define C32(a, o, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = (o), .value = (v), .is32 = true                                              \
  }
#define C64(a, o, v)                                                                               \
  {                                                                                                \
    .arg = (a), .op = (o), .value = (v)                                                            \
  }

static int install(const struct bpf_program_out *p)
{
  struct sock_fprog prog = { .len = (unsigned short)p->len, .filter = p->insns };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -errno;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
    return -errno;
  return 0;
}

/* Waits up to 10 s; a child stuck because its filter denies exit is
 * killed (the parent is not filtered). */
static int wait_child(pid_t pid)
{
  int status = 0;
  for (int i = 0; i < 1000; i++) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      return status;
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return status;
}

typedef int (*child_fn)(void);

/* Runs fn in a child under the filter; returns the wait status. A child
 * that could not install the filter exits 99. */
static int run_filtered(const struct bpf_program_out *p, child_fn fn)
{
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (install(p) != 0)
      _exit(99);
    _exit(fn());
  }
  return wait_child(pid);
}

/* The live rule set: default allow, and one rule per action. */
static void rs_live(struct sc_ruleset *rs)
{
  tl_init(rs, A_ALLOW);
  rs->name = "live";
  struct sc_cond tiocsti = C32(1, SC_CMP_EQ, TIOCSTI);
  tl_clause(rs, tl_rule(rs, "ioctl", A_ERRNO(EACCES)), &tiocsti, 1);
  struct sc_cond far = C64(1, SC_CMP_GE, 0x100000000ull);
  tl_clause(rs, tl_rule(rs, "lseek", A_ERRNO(EFBIG)), &far, 1);
  tl_rule(rs, "uname", A_ERRNO(ENOENT));
  tl_rule(rs, "getppid", A_KILLP);
  tl_rule(rs, "getpgrp", A_KILLT);
  tl_rule(rs, "gettid", A_TRAP);
  tl_rule(rs, "getuid", A_LOG);
  /* Without a tracer or a notification listener the kernel fails these
   * with ENOSYS and does not run the call. */
  tl_rule(rs, "getgid", A_NOTIFY);
  tl_rule(rs, "getegid", A_TRACE(7));
}

static struct bpf_program_out live_prog;
static struct sc_ruleset live_rs;

static void setup_live(void)
{
  rs_live(&live_rs);
  ck_assert_int_eq(bpf_compile(&live_rs, &live_prog), 0);
}

static void teardown_live(void)
{
  bpf_program_out_free(&live_prog);
  sc_ruleset_free(&live_rs);
}

static int child_allowed_and_errno(void)
{
  int fd = open("/dev/null", O_RDWR);
  if (fd < 0)
    return 1;
  /* TIOCSTI, plain and with high bits the kernel would drop. */
  char c = 'x';
  errno = 0;
  if (syscall(SYS_ioctl, fd, (unsigned long)TIOCSTI, &c) != -1 || errno != EACCES)
    return 2;
  errno = 0;
  if (syscall(SYS_ioctl, fd, (unsigned long)TIOCSTI | (1ul << 32), &c) != -1 || errno != EACCES)
    return 3;
  errno = 0;
  if (syscall(SYS_ioctl, fd, (unsigned long)TIOCSTI | 0xffffffff00000000ul, &c) != -1 ||
      errno != EACCES)
    return 4;
  /* Another ioctl reaches the kernel: /dev/null is no tty. */
  errno = 0;
  if (syscall(SYS_ioctl, fd, (unsigned long)TCGETS, &c) != -1 || errno != ENOTTY)
    return 5;
  /* 64-bit argument: the high word decides. */
  if (syscall(SYS_lseek, fd, 5l, SEEK_SET) != 0 && errno == EFBIG)
    return 6;
  errno = 0;
  if (syscall(SYS_lseek, fd, (long)(1ull << 32), SEEK_SET) != -1 || errno != EFBIG)
    return 7;
  errno = 0;
  if (syscall(SYS_uname, NULL) != -1 || errno != ENOENT)
    return 8;
  if (syscall(SYS_getuid) != (long)getuid())
    return 9; /* log: allowed */
  if (syscall(SYS_getpid) <= 0)
    return 10;
  errno = 0;
  if (syscall(SYS_getgid) != -1 || errno != ENOSYS)
    return 11; /* notify, no listener */
  errno = 0;
  if (syscall(SYS_getegid) != -1 || errno != ENOSYS)
    return 12; /* trace, no tracer */
  close(fd);
  return 0;
}

static int child_getppid(void)
{
  syscall(SYS_getppid);
  return 50;
}
static int child_getpgrp(void)
{
  syscall(SYS_getpgrp);
  return 51;
}
static int child_gettid(void)
{
  syscall(SYS_gettid);
  return 52;
}
static int child_x32(void)
{
  syscall(SYS_getpid | 0x40000000);
  return 53;
}

static long int80_getpid(void)
{
  long ret;
  /* i386 getpid is 20; int 0x80 enters the compat (AUDIT_ARCH_I386) path. */
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "cc", "r8", "r9", "r10", "r11");
  return ret;
}

static int child_int80(void)
{
  return int80_getpid() == getpid() ? 54 : 55;
}

START_TEST(test_live_allowed_and_errno)
{
  int st = run_filtered(&live_prog, child_allowed_and_errno);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x (exit %d)", st,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}
END_TEST

static void expect_sigsys(child_fn fn, const char *what)
{
  int st = run_filtered(&live_prog, fn);
  ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "%s: status %#x, expected SIGSYS", what,
                st);
}

START_TEST(test_live_kill_process)
{
  expect_sigsys(child_getppid, "kill-process");
}
END_TEST
START_TEST(test_live_kill_thread)
{
  expect_sigsys(child_getpgrp, "kill-thread");
}
END_TEST
START_TEST(test_live_trap)
{
  expect_sigsys(child_gettid, "trap");
}
END_TEST
START_TEST(test_live_x32)
{
  expect_sigsys(child_x32, "x32 call");
}
END_TEST

START_TEST(test_live_int80)
{
  /* Without the filter int 0x80 must work, or the kernel lacks the i386
   * ABI and the subcase says so. */
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(child_int80());
  int st = wait_child(pid);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 54) {
    fprintf(stderr, "note: int 0x80 unavailable here (status %#x): i386 subcase not run\n", st);
    return;
  }
  expect_sigsys(child_int80, "i386 int 0x80");
}
END_TEST

/* Docker's default profile under the real kernel. */
static int child_moby(void)
{
  if (syscall(SYS_getpid) <= 0)
    return 1;
  errno = 0;
  if (syscall(SYS_syslog, 3, NULL, 0) != -1 || errno != EPERM)
    return 2;
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0)
    return 3;
  close(s);
  errno = 0;
  if (socket(40 /* AF_VSOCK */, SOCK_STREAM, 0) != -1 || errno != EPERM)
    return 4;
  if (personality(0xffffffff) == -1)
    return 5;
  errno = 0;
  if (syscall(SYS_personality, 0x0400000ul) != -1 || errno != EPERM)
    return 6;
  errno = 0;
  if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
    return 7;
  errno = 0;
  if (syscall(SYS_unshare, 0) != -1 || errno != EPERM)
    return 8;
  /* Numbers the tree tells apart by their low bits (docs/bpf-layout.md,
   * "Bit tests"): perf_event_open 298, setns 308 and kcmp 312 refused,
   * recvmmsg 299 and getcpu 309 reach the kernel (EBADF, 0). */
  errno = 0;
  if (syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0) != -1 || errno != EPERM)
    return 9;
  errno = 0;
  if (syscall(SYS_setns, -1, 0) != -1 || errno != EPERM)
    return 10;
  errno = 0;
  if (syscall(SYS_kcmp, 0, 0, 0, 0, 0) != -1 || errno != EPERM)
    return 11;
  errno = 0;
  if (syscall(SYS_recvmmsg, -1, NULL, 0, 0, NULL) != -1 || errno != EBADF)
    return 12;
  unsigned cpu;
  if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
    return 13;
  return 0;
}

START_TEST(test_live_moby)
{
  struct diag_source *src = NULL;
  struct sc_ruleset rs;
  struct oci_import_report rep;
  const char *path = CS_SHARED_DATA "/oci/moby-default.json";
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "note: %s absent: Docker profile subcase not run\n", path);
    return;
  }
  ck_assert_int_eq(oci_import_file(path, &src, &rs, &rep), 0);
  struct bpf_program_out p;
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  int st = run_filtered(&p, child_moby);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
  oci_import_report_free(&rep);
  diag_source_free(src);
}
END_TEST

/* The kernel accepts the large program with trampolines. */
static int child_exit(void)
{
  return 0;
}

START_TEST(test_live_far_accepted)
{
  struct sc_ruleset rs;
  tl_init(&rs, A_ALLOW);
  rs.name = "far";
  for (int nr = 0; nr < 160; nr++) {
    if (nr == 60)
      continue; /* exit */
    struct sc_cond c = C64(nr % 6, SC_CMP_EQ, 0x100000000ull * (uint64_t)nr + 17u * (uint64_t)nr);
    tl_clause(&rs, tl_rule_nr(&rs, nr, nr % 3 ? A_ERRNO(EPERM) : A_ERRNO(EACCES)), &c, 1);
  }
  struct bpf_program_out p;
  ck_assert_int_eq(bpf_compile(&rs, &p), 0);
  bool tramp = false;
  for (uint32_t i = 0; i < p.len; i++)
    tramp = tramp || p.insns[i].code == (BPF_JMP | BPF_JA);
  ck_assert(tramp);
  int st = run_filtered(&p, child_exit);
  ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x (99: kernel refused the filter)",
                st);
  bpf_program_out_free(&p);
  sc_ruleset_free(&rs);
}
END_TEST

/* The interpreter against the kernel: random classic-BPF programs using
 * every seccomp opcode (loads, scratch memory, ALU with K and X, jumps)
 * compute a value the kernel hands back as the errno of getppid; the
 * interpreter must compute the same value and accept the same programs. */
#define RP_BODY 40

static uint32_t rp_state;
static uint32_t rp_next(void)
{
  rp_state = rp_state * 1103515245u + 12345u;
  return rp_state >> 8;
}

static uint32_t random_program(struct sock_filter *f)
{
  static const uint32_t offs[] = { 0, 4, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60 };
  static const uint16_t alu_k[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_AND,
                                    BPF_OR,  BPF_XOR, BPF_LSH, BPF_RSH };
  static const uint16_t alu_x[] = { BPF_ADD, BPF_SUB, BPF_MUL, BPF_AND,
                                    BPF_OR,  BPF_XOR, BPF_LSH, BPF_RSH };
  static const uint16_t jmp[] = { BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET };
  uint32_t n = 0;
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
  uint32_t body = 3 + 17, epilogue = body + RP_BODY, allow = epilogue + 3;
  f[n++] =
      (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, (uint8_t)(allow - 2));
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, rp_next());
  for (uint32_t m = 0; m < 16; m++)
    f[n++] = (struct sock_filter)BPF_STMT(BPF_ST, m);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_IMM, rp_next());
  while (n < epilogue) {
    uint32_t r = rp_next() % 12, k = rp_next();
    switch (r) {
    case 0:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offs[k % 14]);
      break;
    case 1:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, k);
      break;
    case 2:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_IMM, k % 40);
      break;
    case 3:
      f[n++] = (struct sock_filter)BPF_STMT((k & 1 ? BPF_LD : BPF_LDX) | BPF_MEM, k % 16);
      break;
    case 4:
      f[n++] = (struct sock_filter)BPF_STMT(k & 1 ? BPF_ST : BPF_STX, k % 16);
      break;
    case 5:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | (k & 1 ? BPF_TAX : BPF_TXA), 0);
      break;
    case 6:
    case 7: {
      uint16_t op = alu_k[k % 9];
      uint32_t kk = rp_next();
      if (op == BPF_DIV && kk == 0)
        kk = 3;
      if (op == BPF_LSH || op == BPF_RSH)
        kk %= 32;
      f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | op | BPF_K, kk);
      break;
    }
    case 8:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | alu_x[k % 8] | BPF_X, 0);
      break;
    case 9:
      f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_NEG, 0);
      break;
    default: {
      /* A forward jump that stays inside the body (or lands on its end). */
      uint32_t room = epilogue - n - 1;
      uint8_t jt = (uint8_t)(rp_next() % (room + 1)), jf = (uint8_t)(rp_next() % (room + 1));
      uint16_t src = (k & 1) ? BPF_X : BPF_K;
      uint32_t kk = (k & 2) ? rp_next() % 64 : rp_next();
      f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | jmp[(k >> 2) % 4] | src, kk, jt, jf);
      break;
    }
    }
  }
  f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xfff);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_A, 0);
  f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  return n;
}

START_TEST(test_interp_vs_kernel)
{
  rp_state = 20261129u;
  for (int round = 0; round < 150; round++) {
    struct sock_filter f[128];
    uint32_t len = random_program(f);
    char err[128] = "";
    ck_assert_msg(bpf_validate(f, len, err, sizeof err) == 0, "round %d: validator refuses: %s",
                  round, err);
    struct seccomp_data sd = { .nr = SYS_getppid, .arch = AUDIT_ARCH_X86_64 };
    for (int a = 0; a < 6; a++)
      sd.args[a] = ((uint64_t)rp_next() << 32) | rp_next();
    struct bpf_run_result r;
    ck_assert_int_eq(bpf_run(f, len, &sd, &r), 0);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      struct sock_fprog prog = { .len = (unsigned short)len, .filter = f };
      close(fds[0]);
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(98);
      if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        _exit(99);
      errno = 0;
      long ret = syscall(SYS_getppid, sd.args[0], sd.args[1], sd.args[2], sd.args[3], sd.args[4],
                         sd.args[5]);
      int got = ret == -1 ? errno : 0;
      if (write(fds[1], &got, sizeof got) != sizeof got)
        _exit(97);
      _exit(0);
    }
    close(fds[1]);
    int got = -1;
    ssize_t rd = read(fds[0], &got, sizeof got);
    close(fds[0]);
    int st = wait_child(pid);
    ck_assert_msg(
        WIFEXITED(st) && WEXITSTATUS(st) == 0 && rd == sizeof got,
        "round %d: child status %#x (99: the kernel refused a program the validator accepts)",
        round, st);
    ck_assert_msg((uint32_t)got == (r.ret & 0xfff), "round %d: kernel errno %d, interpreter %u",
                  round, got, r.ret & 0xfff);
  }
}
END_TEST

/* The validator against the kernel: random programs with one instruction
 * damaged (an opcode seccomp forbids, a load outside seccomp_data or
 * unaligned, a jump past the end, a division by 0, a shift by 32 or more, a
 * scratch read before any write, no final ret) must be refused by both or
 * accepted by both. A child whose seccomp() fails exits 3; any other end
 * means the kernel took the filter. */
static void damage(struct sock_filter *f, uint32_t *len)
{
  static const uint16_t bad_codes[] = { BPF_LD | BPF_B | BPF_ABS,  BPF_LD | BPF_H | BPF_ABS,
                                        BPF_LD | BPF_W | BPF_IND,  BPF_LDX | BPF_B | BPF_MSH,
                                        BPF_ALU | BPF_MOD | BPF_K, BPF_ALU | BPF_MOD | BPF_X,
                                        BPF_JMP | 0x70 | BPF_K,    0xffff };
  uint32_t at = 3 + 17 + rp_next() % RP_BODY; /* inside the random body */
  switch (rp_next() % 8) {
  case 0:
    f[at] = (struct sock_filter)BPF_STMT(bad_codes[rp_next() % 8], rp_next() % 8);
    break;
  case 1:
    f[at] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (rp_next() % 2) ? 64 : 2);
    break;
  case 2:
    f[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 200, 0);
    break;
  case 3:
    f[at] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0);
    break;
  case 4:
    f[at] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 32 + rp_next() % 10);
    break;
  case 5:
    f[3] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 0);
    break; /* before the stores */
  case 6:
    (*len)--;
    f[*len - 1] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_IMM, 0);
    break;
  default:
    f[at] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4 * (rp_next() % 16));
    break; /* valid */
  }
}

START_TEST(test_validator_vs_kernel)
{
  rp_state = 4242u;
  unsigned refused = 0;
  for (int round = 0; round < 80; round++) {
    struct sock_filter f[128];
    uint32_t len = random_program(f);
    damage(f, &len);
    char err[128] = "";
    bool ours = bpf_validate(f, len, err, sizeof err) == 0;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      struct sock_fprog prog = { .len = (unsigned short)len, .filter = f };
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(98);
      if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        _exit(3);
      _exit(0);
    }
    int st = wait_child(pid);
    bool kernel = !(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    ck_assert_msg(ours == kernel, "round %d: validator %s (%s), kernel %s", round,
                  ours ? "accepts" : "refuses", err, kernel ? "accepts" : "refuses");
    refused += !ours;
  }
  ck_assert_uint_gt(refused, 40); /* the damage really is damage, mostly */
}
END_TEST

static bool seccomp_available(void)
{
  pid_t pid = fork();
  if (pid < 0)
    return false;
  if (pid == 0) {
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = { .len = 1, .filter = &allow };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
      _exit(1);
    _exit(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0 ? 0 : 1);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
  if (!seccomp_available()) {
    fprintf(stderr, "SKIP: seccomp filters cannot be loaded here\n");
    return 77;
  }
  Suite *s = suite_create("bpf_live");
  TCase *tc = tcase_create("live");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, setup_live, teardown_live);
  tcase_add_test(tc, test_live_allowed_and_errno);
  tcase_add_test(tc, test_live_kill_process);
  tcase_add_test(tc, test_live_kill_thread);
  tcase_add_test(tc, test_live_trap);
  tcase_add_test(tc, test_live_x32);
  tcase_add_test(tc, test_live_int80);
  tcase_add_test(tc, test_live_moby);
  tcase_add_test(tc, test_live_far_accepted);
  tcase_add_test(tc, test_interp_vs_kernel);
  tcase_add_test(tc, test_validator_vs_kernel);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
