/* The seed profiles on the real kernel: each profile's compiled filter is
 * loaded with seccomp(2) in a child process, which then either makes the
 * refused system calls itself and checks the errno the kernel returns, or
 * executes a real tool (cat, grep, git, python3, cc, make) that must still
 * work. Exit 77 (skip) only when seccomp filters cannot be loaded at all.
 *
 * argv[1]: models/profiles.pol. Not run under sanitizers: ASan's runtime
 * makes system calls the strict profiles refuse. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_gen.h"
#include "pol.h"

static int failures, skipped;
static char workdir[] = "/tmp/pol_kernel.XXXXXX";

static int load_filter(const struct bpf_program_out *p)
{
  struct sock_fprog fp = { .len = (unsigned short)p->len, .filter = p->insns };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return -errno;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0)
    return -errno;
  return 0;
}

static bool in_path(const char *tool)
{
  if (strchr(tool, '/'))
    return true; /* built by an earlier step */
  const char *path = getenv("PATH");
  char buf[4096];
  for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, tool);
    if (access(buf, X_OK) == 0)
      return true;
    if (!end)
      break;
    p = end + 1;
  }
  return false;
}

/* Runs argv under the filter in workdir; 0 when it exits 0. */
static void run_tool(const char *profile, const struct bpf_program_out *prog,
                     const char *const argv[])
{
  if (!in_path(argv[0])) {
    printf("SKIP %s: %s not installed\n", profile, argv[0]);
    skipped++;
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    if (chdir(workdir) != 0 || load_filter(prog) != 0)
      _exit(120);
    execvp(argv[0], (char *const *)argv);
    _exit(121);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  printf("%s %s: %s", ok ? "ok  " : "FAIL", profile, argv[0]);
  for (int i = 1; argv[i]; i++)
    printf(" %s", argv[i]);
  if (WIFSIGNALED(st))
    printf("  (killed by signal %d)", WTERMSIG(st));
  else if (!ok)
    printf("  (exit %d)", WEXITSTATUS(st));
  printf("\n");
  failures += !ok;
}

/* A refused call: the expected errno, as the kernel returns it. */
#define EXPECT_ERRNO(expr, e)                                                                      \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long r_ = (long)(expr);                                                                        \
    if (r_ != -1 || errno != (e)) {                                                                \
      dprintf(2, "  %s: got %ld errno %d (%s), want errno %d\n", #expr, r_, errno,                 \
              strerror(errno), (e));                                                               \
      bad++;                                                                                       \
    }                                                                                              \
  } while (0)

#define EXPECT_OK(expr)                                                                            \
  do {                                                                                             \
    errno = 0;                                                                                     \
    long r_ = (long)(expr);                                                                        \
    if (r_ < 0) {                                                                                  \
      dprintf(2, "  %s: failed with errno %d (%s)\n", #expr, errno, strerror(errno));              \
      bad++;                                                                                       \
    }                                                                                              \
  } while (0)

/* The probes each profile must answer; runs in the filtered child. */
static int probe(const char *profile)
{
  int bad = 0;
  char c = 'x';
  bool permissive = strcmp(profile, "permissive") == 0;
  bool network = strcmp(profile, "standard") == 0 || permissive;

  EXPECT_ERRNO(ioctl(0, TIOCSTI, &c), EPERM);
  EXPECT_ERRNO(syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | (1ul << 32), &c), EPERM);
  EXPECT_ERRNO(ioctl(0, TIOCLINUX, &c), EPERM);
  if (!permissive) {
    EXPECT_ERRNO(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
    EXPECT_ERRNO(unshare(CLONE_NEWUSER), EPERM);
    EXPECT_ERRNO(syscall(SYS_setns, 0, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_io_uring_setup, 1, NULL), ENOSYS);
    EXPECT_ERRNO(syscall(SYS_clone3, NULL, 0), ENOSYS);
    EXPECT_ERRNO(syscall(SYS_bpf, 0, NULL, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_userfaultfd, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_fsopen, "tmpfs", 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, NULL), EPERM);
    EXPECT_ERRNO(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0), EPERM);
  }
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (network)
    EXPECT_OK(s);
  else if (s >= 0 || errno != EPERM) {
    dprintf(2, "  socket(AF_INET) = %d errno %d, want EPERM\n", s, errno);
    bad++;
  }
  if (s >= 0)
    close(s);
  /* fork still works (glibc uses clone without namespace flags). */
  pid_t pid = fork();
  if (pid == 0)
    _exit(7);
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 7) {
    dprintf(2, "  fork failed: %s\n", strerror(errno));
    bad++;
  }
  bool no_shell = strcmp(profile, "strict") == 0 || strcmp(profile, "hardened") == 0;
  if (no_shell) {
    /* Landlock does not stop a memfd from being executed: no memfd. */
    EXPECT_ERRNO(memfd_create("x", 0), EPERM);
    EXPECT_ERRNO(syscall(SYS_execveat, -1, "", NULL, NULL, 0x1000 /* AT_EMPTY_PATH */), EPERM);
  } else {
    int fd = memfd_create("x", 0);
    EXPECT_OK(fd);
    if (fd >= 0)
      close(fd);
  }
  if (strcmp(profile, "hardened") == 0) {
    EXPECT_ERRNO(socket(AF_UNIX, SOCK_STREAM, 0), EPERM);
    void *m =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED || errno != EPERM) {
      dprintf(2, "  W|X mmap was not refused\n");
      bad++;
    }
    /* W^X (issue 12): no anonymous executable memory, no other way to
     * turn written memory executable. */
    m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED || errno != EPERM) {
      dprintf(2, "  anonymous PROT_EXEC mmap was not refused\n");
      bad++;
    }
    m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_OK(m == MAP_FAILED ? -1 : 0);
    if (m != MAP_FAILED) {
      EXPECT_ERRNO(mprotect(m, 4096, PROT_READ | PROT_EXEC), EPERM);
      EXPECT_ERRNO(syscall(SYS_pkey_mprotect, m, 4096, PROT_READ | PROT_EXEC, -1), EPERM);
      munmap(m, 4096);
    }
    EXPECT_ERRNO(syscall(SYS_shmat, 0, NULL, 0100000 /* SHM_EXEC */), EPERM);
  }
  return bad;
}

static void run_probe(const char *profile, const struct bpf_program_out *prog)
{
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    if (load_filter(prog) != 0)
      _exit(120);
    _exit(probe(profile) ? 1 : 0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  printf("%s %s: refused system calls answer as the profile says\n", ok ? "ok  " : "FAIL", profile);
  if (WIFSIGNALED(st))
    printf("     killed by signal %d\n", WTERMSIG(st));
  failures += !ok;
}

static int write_file(const char *name, const char *text)
{
  char path[256];
  snprintf(path, sizeof path, "%s/%s", workdir, name);
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fputs(text, f);
  return fclose(f);
}

int main(int argc, char **argv)
{
  if (argc != 2)
    return 2;
  struct pol_policy *pol = NULL;
  if (pol_load(argv[1], &pol) != 0)
    return 1;
  if (!mkdtemp(workdir))
    return 1;
  if (write_file("hello.c", "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n") ||
      write_file("Makefile", "all: hello\nhello: hello.c\n\tcc -O1 -o hello hello.c\n") ||
      write_file("data.txt", "alpha\nbeta\n"))
    return 1;

  /* Can this kernel load a filter at all? */
  pid_t pid = fork();
  if (pid == 0) {
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct bpf_program_out p = { .insns = &allow, .len = 1 };
    _exit(load_filter(&p) == 0 ? 0 : 77);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    printf("SKIP: seccomp filters cannot be loaded here\n");
    pol_policy_free(pol);
    return 77;
  }

  for (size_t i = 0; i < pol_profile_count(pol); i++) {
    const struct pol_profile *p = pol_profile_at(pol, i);
    struct sc_ruleset rs;
    struct bpf_program_out prog = { 0 };
    if (pol_lower(p, &rs) != 0 || bpf_compile(&rs, &prog) != 0)
      return 1;
    run_probe(p->name, &prog);
    /* Read-only tools in every profile. */
    run_tool(p->name, &prog, (const char *const[]){ "cat", "data.txt", NULL });
    run_tool(p->name, &prog, (const char *const[]){ "grep", "-c", "beta", "data.txt", NULL });
    run_tool(p->name, &prog, (const char *const[]){ "ls", "-la", "/", NULL });
    run_tool(p->name, &prog, (const char *const[]){ "git", "--version", NULL });
    run_tool(p->name, &prog,
             (const char *const[]){ "python3", "-c",
                                    "import json, os, subprocess, threading;"
                                    "t = threading.Thread(target=print); t.start(); t.join();"
                                    "subprocess.run(['true'], check=True)",
                                    NULL });
    if (p->allow_file_write) {
      /* Development tools need to write: only where the profile allows it. */
      run_tool(p->name, &prog,
               (const char *const[]){ "cc", "-O1", "-o", "hello2", "hello.c", NULL });
      run_tool(p->name, &prog, (const char *const[]){ "make", "-s", NULL });
      run_tool(p->name, &prog, (const char *const[]){ "./hello", NULL });
      run_tool(p->name, &prog, (const char *const[]){ "git", "init", "-q", "repo", NULL });
      run_tool(p->name, &prog,
               (const char *const[]){ "sh", "-c",
                                      "cd repo && echo x > f && git add f && "
                                      "git -c user.name=t -c user.email=t@t commit -qm m && rm f",
                                      NULL });
      run_tool(p->name, &prog,
               (const char *const[]){ "rm", "-rf", "repo", "hello", "hello2", NULL });
    }
    sc_ruleset_free(&rs);
    bpf_program_out_free(&prog);
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", workdir);
  pol_policy_free(pol);
  printf("%d failures, %d skipped\n", failures, skipped);
  return failures ? 1 : 0;
}
