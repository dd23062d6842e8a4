/* Running code that is not a program the profile lets the command execute
 * (issue 12): a file it may read but not execute, run through the ELF
 * loader or mapped PROT_EXEC; a copy in an anonymous file; memory the
 * command wrote and then executes.
 *
 *   esc_exec loader FILE...   every way to run FILE as a program without
 *                             an execve of FILE itself, and to map it as
 *                             code (execve, ld.so FILE, fexecve, mmap and
 *                             mprotect with PROT_EXEC)
 *   esc_exec place SRC DIR... copies SRC into each DIR, then `loader` on the
 *                             copy (a DIR that takes no file holds)
 *   esc_exec runs FILE        positive control: exit 0 when FILE ran both
 *                             by execve and through the loader, 1 if not
 *   esc_exec dlopen LIB...    dlopen each shared object
 *   esc_exec loads LIB...     positive control: exit 0 when every LIB loads
 *   esc_exec memfd SRC        SRC copied into a memfd, then executed from it
 *                             and mapped PROT_EXEC
 *   esc_exec memfd_exec SRC   the same, executed only (not mapped)
 *   esc_exec tmpfile SRC DIR... the same with an O_TMPFILE in each DIR
 *   esc_exec wx WHAT...       code written at run time, then called:
 *                             mmap_wx mmap_anon_x mprotect_x pkey_mprotect_x
 *                             shmat_exec proc_mem ptrace_poke personality
 * A FILE or SRC is run as `FILE -c 'exit 0'` (a copy of bash then exits 0,
 * any other program ignores the words); "ran" means exit status 0. */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "esc_common.h"

#define ESC_LOADER "/lib64/ld-linux-x86-64.so.2"
#define ESC_CODE_RAN 42

extern char **environ;

/* Runs `run(arg)` in a child; returns its exit status (128+N for signal
 * N), -1 when it could not be waited for. A child that was refused says
 * why on stderr (esc_fail_errno). */
static int esc_child(void (*run)(const void *), const void *arg)
{
  int st;
  pid_t p = fork();
  if (p == 0) {
    run(arg);
    _exit(127);
  }
  if (p < 0 || waitpid(p, &st, 0) != p)
    return -1;
  return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* ESC_ATTEMPT for a child: it escaped when its status is `ran`. */
static void esc_attempt_child(int status, int ran, const char *what)
{
  if (status == ran) {
    fprintf(stderr, "ESCAPED: %s\n", what);
    esc_escaped = 1;
  } else
    fprintf(stderr, "held: %s (status %d)\n", what, status);
}

static void esc_fail_errno(void)
{
  fprintf(stderr, "  refused: %s\n", strerror(errno));
  _exit(1);
}

static char *const *esc_argv(const char *file)
{
  static char *av[4];
  av[0] = (char *)file;
  av[1] = "-c";
  av[2] = "exit 0";
  av[3] = NULL;
  return av;
}

static void esc_execve(const void *file)
{
  execve(file, esc_argv(file), environ);
  esc_fail_errno();
}

static void esc_via_loader(const void *file)
{
  char *const av[] = { ESC_LOADER, (char *)file, "-c", "exit 0", NULL };
  execve(ESC_LOADER, av, environ);
  esc_fail_errno();
}

static void esc_fexecve(const void *file)
{
  int fd = open(file, O_RDONLY);
  if (fd < 0)
    esc_fail_errno();
  syscall(SYS_execveat, fd, "", esc_argv(file), environ, AT_EMPTY_PATH);
  esc_fail_errno();
}

static void esc_proc_fd_exec(const void *file)
{
  char path[64];
  int fd = open(file, O_RDONLY);
  if (fd < 0)
    esc_fail_errno();
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  execve(path, esc_argv(file), environ);
  esc_fail_errno();
}

/* Maps the first page of `file` as code: what the loader does. */
static bool esc_map_exec(const char *file, bool by_mprotect)
{
  void *m;
  bool ok;
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  m = mmap(NULL, 4096, by_mprotect ? PROT_READ : PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED)
    return false;
  ok = !by_mprotect || mprotect(m, 4096, PROT_READ | PROT_EXEC) == 0;
  munmap(m, 4096);
  return ok;
}

static void esc_loader(const char *file)
{
  char what[PATH_MAX + 64];
  snprintf(what, sizeof what, "execve %s", file);
  esc_attempt_child(esc_child(esc_execve, file), 0, what);
  snprintf(what, sizeof what, ESC_LOADER " %s", file);
  esc_attempt_child(esc_child(esc_via_loader, file), 0, what);
  snprintf(what, sizeof what, "execveat(AT_EMPTY_PATH) of %s", file);
  esc_attempt_child(esc_child(esc_fexecve, file), 0, what);
  snprintf(what, sizeof what, "execve /proc/self/fd of %s", file);
  esc_attempt_child(esc_child(esc_proc_fd_exec, file), 0, what);
  snprintf(what, sizeof what, "mmap(PROT_EXEC) of %s", file);
  errno = 0;
  ESC_ATTEMPT(esc_map_exec(file, false), what);
  snprintf(what, sizeof what, "mprotect(PROT_EXEC) of a mapping of %s", file);
  errno = 0;
  ESC_ATTEMPT(esc_map_exec(file, true), what);
}

/* Copies src to an open descriptor; false on any failure. */
static bool esc_copy_fd(const char *src, int out)
{
  char buf[65536];
  ssize_t n;
  int in = open(src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return false;
  while ((n = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)n) != n) {
      n = -1;
      break;
    }
  close(in);
  return n == 0;
}

static void esc_place(const char *src, const char *dir)
{
  char dst[PATH_MAX], what[PATH_MAX + 32];
  int fd;
  snprintf(dst, sizeof dst, "%s/.sbx-exec-copy", dir);
  unlink(dst);
  fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  if (fd < 0 || !esc_copy_fd(src, fd)) {
    snprintf(what, sizeof what, "place a program in %s", dir);
    if (fd >= 0)
      close(fd);
    fprintf(stderr, "held: %s (%s)\n", what, strerror(errno));
    return;
  }
  close(fd);
  esc_loader(dst);
  unlink(dst);
}

static int esc_runs(const char *file)
{
  int a = esc_child(esc_execve, file), b = esc_child(esc_via_loader, file);
  fprintf(stderr, "execve %s: %d, " ESC_LOADER " %s: %d\n", file, a, file, b);
  return a == 0 && b == 0 ? 0 : 1;
}

/* fexecve of an anonymous file holding a copy of src. */
struct esc_anon {
  int fd;
  const char *src;
};

static void esc_anon_exec(const void *arg)
{
  const struct esc_anon *a = arg;
  syscall(SYS_execveat, a->fd, "", esc_argv(a->src), environ, AT_EMPTY_PATH);
  esc_fail_errno();
}

static void esc_anon_try(int fd, const char *src, const char *what, bool map)
{
  struct esc_anon a = { fd, src };
  char w[PATH_MAX + 64];
  if (fd < 0) {
    fprintf(stderr, "held: %s (%s)\n", what, strerror(errno));
    return;
  }
  if (!esc_copy_fd(src, fd)) {
    fprintf(stderr, "held: %s: copy (%s)\n", what, strerror(errno));
    close(fd);
    return;
  }
  esc_attempt_child(esc_child(esc_anon_exec, &a), 0, what);
  snprintf(w, sizeof w, "%s, mapped PROT_EXEC", what);
  if (map) {
    void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    errno = m == MAP_FAILED ? errno : 0;
    ESC_ATTEMPT(m != MAP_FAILED, w);
  }
  close(fd);
}

#ifndef MFD_EXEC
#define MFD_EXEC 0x10u
#endif

static void esc_memfd(const char *src, bool map)
{
  esc_anon_try((int)syscall(SYS_memfd_create, "sbx-esc", 0u), src, "memfd_create + fexecve", map);
  esc_anon_try((int)syscall(SYS_memfd_create, "sbx-esc", MFD_EXEC), src,
               "memfd_create(MFD_EXEC) + fexecve", map);
}

static void esc_tmpfile(const char *src, char **dirs, int n_dirs)
{
  char what[PATH_MAX + 64];
  for (int i = 0; i < n_dirs; i++) {
    snprintf(what, sizeof what, "O_TMPFILE in %s + fexecve", dirs[i]);
    esc_anon_try(open(dirs[i], O_TMPFILE | O_RDWR, 0755), src, what, true);
  }
}

/* ---- code written at run time ---- */

/* mov eax, 42; ret */
static const unsigned char esc_code[] = { 0xb8, ESC_CODE_RAN, 0, 0, 0, 0xc3 };

static void esc_call(void *code)
{
  int (*fn)(void) = (int (*)(void))code;
  _exit(fn());
}

static void *esc_anon(int prot)
{
  void *m = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    esc_fail_errno();
  return m;
}

static void esc_wx_mmap(const void *arg)
{
  void *m = esc_anon(PROT_READ | PROT_WRITE | PROT_EXEC);
  (void)arg;
  memcpy(m, esc_code, sizeof esc_code);
  esc_call(m);
}

static void esc_wx_anon_x(const void *arg)
{
  (void)arg;
  esc_anon(PROT_READ | PROT_EXEC);
  _exit(ESC_CODE_RAN); /* executable memory not from a file */
}

static void esc_wx_mprotect(const void *arg)
{
  void *m = esc_anon(PROT_READ | PROT_WRITE);
  memcpy(m, esc_code, sizeof esc_code);
  if (arg ? syscall(SYS_pkey_mprotect, m, 4096, PROT_READ | PROT_EXEC, -1) != 0
          : mprotect(m, 4096, PROT_READ | PROT_EXEC) != 0)
    esc_fail_errno();
  esc_call(m);
}

static void esc_wx_shmat(const void *arg)
{
  /* Execute permission on the segment: SHM_EXEC asks for it. */
  int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0700);
  void *w, *x;
  (void)arg;
  if (id < 0)
    esc_fail_errno();
  w = shmat(id, NULL, 0);
  x = w == (void *)-1 ? w : shmat(id, NULL, SHM_EXEC | SHM_RDONLY);
  shmctl(id, IPC_RMID, NULL);
  if (x == (void *)-1)
    esc_fail_errno();
  memcpy(w, esc_code, sizeof esc_code);
  esc_call(x);
}

/* Our own code page, written through /proc/self/mem: the kernel writes
 * there with FOLL_FORCE, past the page's protection. */
static volatile int esc_zero;
__attribute__((noinline)) static int esc_victim(void)
{
  return esc_zero;
}

static void esc_wx_proc_mem(const void *arg)
{
  int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  (void)arg;
  if (fd < 0)
    esc_fail_errno();
  if (pwrite(fd, esc_code, sizeof esc_code, (off_t)(uintptr_t)esc_victim) !=
      (ssize_t)sizeof esc_code)
    esc_fail_errno();
  {
    /* Called through a volatile pointer: the compiler may not assume the
     * result it saw when compiling esc_victim. */
    int (*volatile fn)(void) = esc_victim;
    _exit(fn());
  }
}

/* A child's code page written with PTRACE_POKETEXT (FOLL_FORCE too),
 * then called by the child. */
static void esc_wx_ptrace(const void *arg)
{
  int st;
  long word;
  pid_t c = fork();
  (void)arg;
  if (c == 0) {
    int (*volatile fn)(void) = esc_victim;
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
      esc_fail_errno();
    raise(SIGSTOP);
    _exit(fn());
  }
  if (c < 0 || waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
    _exit(1); /* the child said why */
  errno = 0;
  word = ptrace(PTRACE_PEEKTEXT, c, (void *)(uintptr_t)esc_victim, NULL);
  if (errno == 0) {
    memcpy(&word, esc_code, sizeof esc_code);
    if (ptrace(PTRACE_POKETEXT, c, (void *)(uintptr_t)esc_victim, (void *)word) == 0 &&
        ptrace(PTRACE_CONT, c, NULL, NULL) == 0 && waitpid(c, &st, 0) == c && WIFEXITED(st))
      _exit(WEXITSTATUS(st));
  }
  kill(c, SIGKILL);
  esc_fail_errno();
}

static void esc_wx_personality(const void *arg)
{
  void *m;
  (void)arg;
  if (personality(PER_LINUX | READ_IMPLIES_EXEC) == -1 ||
      !(personality(0xffffffff) & READ_IMPLIES_EXEC))
    esc_fail_errno();
  /* Readable now implies executable, past a filter reading `prot`. */
  m = esc_anon(PROT_READ | PROT_WRITE);
  memcpy(m, esc_code, sizeof esc_code);
  esc_call(m);
}

static const struct {
  const char *name;
  void (*run)(const void *);
  const void *arg;
  const char *what;
} esc_wx[] = {
  { "mmap_wx", esc_wx_mmap, NULL, "mmap(PROT_WRITE|PROT_EXEC) anonymous, code called" },
  { "mmap_anon_x", esc_wx_anon_x, NULL, "mmap(PROT_EXEC) anonymous" },
  { "mprotect_x", esc_wx_mprotect, NULL, "written page mprotect(PROT_EXEC), code called" },
  { "pkey_mprotect_x", esc_wx_mprotect, "pkey", "written page pkey_mprotect(PROT_EXEC), called" },
  { "shmat_exec", esc_wx_shmat, NULL, "shm written, attached again SHM_EXEC, code called" },
  { "proc_mem", esc_wx_proc_mem, NULL, "own code page written through /proc/self/mem, called" },
  { "ptrace_poke", esc_wx_ptrace, NULL, "child's code page written by PTRACE_POKETEXT, called" },
  { "personality", esc_wx_personality, NULL, "READ_IMPLIES_EXEC, written page called" },
};

static int esc_wx_run(const char *name)
{
  for (size_t i = 0; i < sizeof esc_wx / sizeof esc_wx[0]; i++)
    if (strcmp(esc_wx[i].name, name) == 0) {
      esc_attempt_child(esc_child(esc_wx[i].run, esc_wx[i].arg), ESC_CODE_RAN, esc_wx[i].what);
      return 0;
    }
  return -1;
}

int main(int argc, char **argv)
{
  if (argc < 3)
    ESC_USAGE("esc_exec loader|place|runs|dlopen|loads|memfd|memfd_exec|tmpfile|wx ARG...");
  if (strcmp(argv[1], "loader") == 0) {
    for (int i = 2; i < argc; i++)
      esc_loader(argv[i]);
  } else if (strcmp(argv[1], "place") == 0) {
    if (argc < 4)
      ESC_USAGE("esc_exec place SRC DIR...");
    for (int i = 3; i < argc; i++)
      esc_place(argv[2], argv[i]);
  } else if (strcmp(argv[1], "runs") == 0) {
    return esc_runs(argv[2]);
  } else if (strcmp(argv[1], "dlopen") == 0) {
    for (int i = 2; i < argc; i++) {
      char what[PATH_MAX + 16];
      void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
      snprintf(what, sizeof what, "dlopen %s", argv[i]);
      if (!h)
        fprintf(stderr, "held: %s (%s)\n", what, dlerror());
      else
        ESC_ATTEMPT(1, what);
    }
  } else if (strcmp(argv[1], "loads") == 0) {
    for (int i = 2; i < argc; i++)
      if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL))
        return fprintf(stderr, "does not load: %s\n", dlerror()), 1;
    return 0;
  } else if (strcmp(argv[1], "memfd") == 0 || strcmp(argv[1], "memfd_exec") == 0) {
    esc_memfd(argv[2], strcmp(argv[1], "memfd") == 0);
  } else if (strcmp(argv[1], "tmpfile") == 0) {
    esc_tmpfile(argv[2], argv + 3, argc - 3);
  } else if (strcmp(argv[1], "wx") == 0) {
    for (int i = 2; i < argc; i++)
      if (esc_wx_run(argv[i]) < 0)
        ESC_USAGE("esc_exec wx mmap_wx|mmap_anon_x|mprotect_x|pkey_mprotect_x|shmat_exec|"
                  "proc_mem|ptrace_poke|personality...");
  } else
    ESC_USAGE("esc_exec loader|place|runs|dlopen|loads|memfd|memfd_exec|tmpfile|wx ARG...");
  ESC_DONE();
}
