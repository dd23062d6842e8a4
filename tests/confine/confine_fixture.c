/* See confine_fixture.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine_fixture.h"

#ifdef CONFINE_HAVE_PROFILES
extern const struct cs_profile cs_profiles[];
extern const uint32_t cs_profiles_count;
#endif

#define CFX_MAX 8

struct cfx_entry {
  struct cs_profile p;
  struct cs_path_rule *allowed, *denied;
  struct cs_syscall_note *notes;
  struct sock_filter *filter;
};

static struct cfx_entry cfx_made[CFX_MAX];
static int cfx_n;

/* CONFINE_PROFILES=fixture forces the fixture even when the generated
 * profiles are linked, so the mechanism is tested apart from the policy. */
static bool cfx_use_generated(void)
{
#ifdef CONFINE_HAVE_PROFILES
  const char *v = getenv("CONFINE_PROFILES");
  return !v || strcmp(v, "fixture") != 0;
#else
  return false;
#endif
}

const char *cfx_source(void)
{
  return cfx_use_generated() ? "generated" : "fixture";
}

/* Compiles the fixture's filter: default allow (a denylist is enough for a
 * fixture: the escape tests name exactly what they try), other ABIs killed,
 * the calls the escape battery uses refused the way the seed profiles do. */
/* Written out in full: libseccomp's SCMP_A* macros leave datum_b implicit,
 * which clang's -Wmissing-field-initializers rejects. */
static struct scmp_arg_cmp cfx_cmp(unsigned arg, enum scmp_compare op, uint64_t a, uint64_t b)
{
  struct scmp_arg_cmp c = { .arg = arg, .op = op, .datum_a = a, .datum_b = b };
  return c;
}

/* EPERM for call nr when its second argument (a 32-bit cmd, as ioctl's
 * and fcntl's: compared on the low word) is a or b. */
static int cfx_refuse_cmds(scmp_filter_ctx ctx, int nr, uint64_t a, uint64_t b)
{
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                       cfx_cmp(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, a)) < 0)
    return -1;
  return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                          cfx_cmp(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, b)) < 0
             ? -1
             : 0;
}

/* As models/profiles.pol: no set-uid or set-gid mode bit in any call
 * that takes a mode (the argument's index per call), mknod of FIFOs only,
 * openat2 (its mode is behind a pointer) ENOSYS. */
static int cfx_refuse_setid(scmp_filter_ctx ctx)
{
  /* By name: the headers may predate fchmodat2 (Linux 6.6). */
  static const struct {
    const char *name;
    unsigned arg;
  } mode_arg[] = { { "chmod", 1 },   { "fchmod", 1 }, { "fchmodat", 2 }, { "fchmodat2", 2 },
                   { "open", 2 },    { "openat", 3 }, { "creat", 1 },    { "mkdir", 1 },
                   { "mkdirat", 2 }, { "mknod", 1 },  { "mknodat", 2 } };
  static const uint64_t not_fifo[] = { S_IFREG, 0, S_IFCHR, S_IFBLK, S_IFDIR, S_IFLNK, S_IFSOCK };
  for (size_t i = 0; i < sizeof mode_arg / sizeof mode_arg[0]; i++) {
    int nr = seccomp_syscall_resolve_name(mode_arg[i].name);
    bool mknod = strncmp(mode_arg[i].name, "mknod", 5) == 0;
    unsigned a = mode_arg[i].arg;
    if (nr == __NR_SCMP_ERROR ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                         cfx_cmp(a, SCMP_CMP_MASKED_EQ, S_ISUID, S_ISUID)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                         cfx_cmp(a, SCMP_CMP_MASKED_EQ, S_ISGID, S_ISGID)) < 0)
      return -1;
    for (size_t t = 0; mknod && t < sizeof not_fifo / sizeof not_fifo[0]; t++)
      if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                           cfx_cmp(a, SCMP_CMP_MASKED_EQ, S_IFMT, not_fifo[t])) < 0)
        return -1;
  }
  return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0) < 0 ? -1 : 0;
}

/* weak: without the refusals of routing headers, IP options, leases,
 * dnotify and set-id modes ("standard-weak", the negative control of the tests that check
 * them: the same runs must escape there). */
static int cfx_filter(bool net, bool weak, struct cfx_entry *e)
{
  static const int eperm[] = { SCMP_SYS(process_vm_readv),
                               SCMP_SYS(process_vm_writev),
                               SCMP_SYS(unshare),
                               SCMP_SYS(setns),
                               SCMP_SYS(mount),
                               SCMP_SYS(umount2),
                               SCMP_SYS(pivot_root),
                               SCMP_SYS(chroot),
                               SCMP_SYS(bpf),
                               SCMP_SYS(perf_event_open),
                               SCMP_SYS(keyctl),
                               SCMP_SYS(add_key),
                               SCMP_SYS(request_key),
                               SCMP_SYS(kexec_load),
                               SCMP_SYS(init_module),
                               SCMP_SYS(finit_module),
                               SCMP_SYS(delete_module),
                               SCMP_SYS(userfaultfd),
                               SCMP_SYS(open_by_handle_at),
                               SCMP_SYS(reboot),
                               SCMP_SYS(swapon),
                               SCMP_SYS(iopl),
                               SCMP_SYS(ioperm) };
  static const int enosys[] = { SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
                                SCMP_SYS(io_uring_register), SCMP_SYS(clone3) };
  static const uint64_t nsflags[] = { CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,   CLONE_NEWNET,
                                      CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP };
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  size_t n_notes = 0, cap = 64;
  int fd = -1, rc = -1;
  off_t len;
  if (!ctx)
    return -1;
  e->notes = calloc(cap, sizeof *e->notes);
  if (!e->notes)
    goto out;
#define CFX_NOTE(nr_, action_)                                                                     \
  do {                                                                                             \
    if (n_notes < cap)                                                                             \
      e->notes[n_notes++] =                                                                        \
          (struct cs_syscall_note){ (nr_), NULL, (action_), "confine_fixture.c", 0 };              \
  } while (0)
  if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(ptrace), 0) < 0)
    goto out;
  CFX_NOTE(SCMP_SYS(ptrace), "kill-process");
  for (size_t i = 0; i < sizeof eperm / sizeof eperm[0]; i++) {
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), eperm[i], 0) < 0)
      goto out;
    CFX_NOTE(eperm[i], "errno(EPERM)");
  }
  for (size_t i = 0; i < sizeof enosys / sizeof enosys[0]; i++) {
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), enosys[i], 0) < 0)
      goto out;
    CFX_NOTE(enosys[i], "errno(ENOSYS)");
  }
  for (size_t i = 0; i < sizeof nsflags / sizeof nsflags[0]; i++)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         cfx_cmp(0, SCMP_CMP_MASKED_EQ, nsflags[i], nsflags[i])) < 0)
      goto out;
  if (cfx_refuse_cmds(ctx, SCMP_SYS(ioctl), TIOCSTI, TIOCLINUX) < 0)
    goto out;
  if (!net && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                               cfx_cmp(0, SCMP_CMP_NE, AF_UNIX, 0)) < 0)
    goto out;
  /* As models/profiles.pol: setsockopt IPPROTO_IPV6 3..6 and 54..59,
   * IPPROTO_IP 4..7; fcntl F_SETLEASE and F_NOTIFY (32-bit arguments). */
  if (!weak) {
    static const struct {
      int level, lo, hi;
    } route[] = { { IPPROTO_IPV6, 3, 6 }, { IPPROTO_IPV6, 54, 59 }, { IPPROTO_IP, 4, 7 } };
    for (size_t i = 0; i < sizeof route / sizeof route[0]; i++)
      for (int opt = route[i].lo; opt <= route[i].hi; opt++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setsockopt), 2,
                             cfx_cmp(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint64_t)route[i].level),
                             cfx_cmp(2, SCMP_CMP_MASKED_EQ, 0xffffffffu, (uint64_t)opt)) < 0)
          goto out;
    if (cfx_refuse_cmds(ctx, SCMP_SYS(fcntl), F_SETLEASE, F_NOTIFY) < 0)
      goto out;
    CFX_NOTE(SCMP_SYS(setsockopt), "errno(EPERM)");
    CFX_NOTE(SCMP_SYS(fcntl), "errno(EPERM)");
    if (cfx_refuse_setid(ctx) < 0)
      goto out;
  }
  fd = memfd_create("cfx-bpf", MFD_CLOEXEC);
  if (fd < 0 || seccomp_export_bpf(ctx, fd) < 0 || (len = lseek(fd, 0, SEEK_END)) <= 0 ||
      lseek(fd, 0, SEEK_SET) < 0)
    goto out;
  e->filter = malloc((size_t)len);
  if (!e->filter || read(fd, e->filter, (size_t)len) != len)
    goto out;
  e->p.filter = e->filter;
  e->p.filter_len = (uint32_t)((size_t)len / sizeof *e->filter);
  e->p.syscall_notes = e->notes;
  e->p.n_syscall_notes = (uint32_t)n_notes;
  e->p.default_action = "allow";
  rc = 0;
out:
  if (fd >= 0)
    close(fd);
  seccomp_release(ctx);
  return rc;
}

static const struct cs_profile *cfx_base(const char *name)
{
#ifdef CONFINE_HAVE_PROFILES
  if (!cfx_use_generated())
    return NULL;
  for (uint32_t i = 0; i < cs_profiles_count; i++)
    if (strcmp(cs_profiles[i].name, name) == 0)
      return &cs_profiles[i];
  return NULL;
#else
  (void)name;
  return NULL;
#endif
}

const struct cs_profile *cfx_profile(const char *name)
{
  struct cfx_entry *e;
  const struct cs_profile *base = cfx_base(name);
  bool weak = strcmp(name, "standard-weak") == 0;
  bool standard = weak || strcmp(name, "standard") == 0, hardened = strcmp(name, "hardened") == 0;
  uint32_t n;

  for (int i = 0; i < cfx_n; i++)
    if (strcmp(cfx_made[i].p.name, name) == 0)
      return &cfx_made[i].p;
  /* standard with its network through the proxy (net_mode proxy): no
   * seed profile has it until the .pol syntax lands, so the test makes
   * one; only the network contract differs from standard. */
  if (strcmp(name, "standard-proxied") == 0) {
    const struct cs_profile *s = cfx_profile("standard");
    if (!s || cfx_n == CFX_MAX)
      return NULL;
    e = &cfx_made[cfx_n];
    memset(e, 0, sizeof *e);
    e->p = *s;
    e->p.name = "standard-proxied";
    e->p.allow_network = true;
    e->p.net_mode = CS_NET_PROXY;
    cfx_n++;
    return &e->p;
  }
  if (cfx_n == CFX_MAX)
    return NULL;
  e = &cfx_made[cfx_n];
  memset(e, 0, sizeof *e);
  if (base)
    e->p = *base;
  else if (standard || hardened || strcmp(name, "strict") == 0) {
    e->p.name = weak ? "standard-weak" : standard ? "standard" : hardened ? "hardened" : "strict";
    e->p.shell = standard ? CS_SHELL_SANDBOXED : CS_SHELL_NONE;
    e->p.allow_network = standard;
    e->p.allow_file_write = standard;
    e->p.allow_file_delete = standard;
    e->p.limits = (struct cs_limits){ .max_execution_ms = 60000,
                                      .max_memory_bytes = (hardened ? 512ull : 2048ull) << 20,
                                      .max_cpu_seconds = 60,
                                      .max_processes = hardened ? 32 : 256,
                                      .max_open_files = 1024,
                                      .max_file_size = 64ull << 20 };
    if (cfx_filter(standard, weak, e) < 0)
      return NULL;
  } else
    return NULL;

  /* Allowed: the profile's own rules, plus (fixture) the workspace and
   * system rules, plus the escape programs' directory. */
  n = e->p.n_allowed_paths;
  e->allowed = calloc(n + 4, sizeof *e->allowed);
  if (!e->allowed)
    return NULL;
  if (n)
    memcpy(e->allowed, e->p.allowed_paths, n * sizeof *e->allowed);
  if (!base) {
    e->allowed[n++] = (struct cs_path_rule){
      "${WORKSPACE}", CS_PATH_READ | (standard ? CS_PATH_WRITE | CS_PATH_EXEC : 0), "fixture"
    };
    e->allowed[n++] = (struct cs_path_rule){ "/usr", CS_PATH_READ | CS_PATH_EXEC, "fixture" };
    e->allowed[n++] = (struct cs_path_rule){ "/etc", CS_PATH_READ, "fixture" };
  }
  e->allowed[n++] = (struct cs_path_rule){ CONFINE_ESCAPE_DIR, CS_PATH_READ | CS_PATH_EXEC,
                                           "test: escape programs" };
  e->p.allowed_paths = e->allowed;
  e->p.n_allowed_paths = n;

  n = e->p.n_denied_paths;
  e->denied = calloc(n + 3, sizeof *e->denied);
  if (!e->denied)
    return NULL;
  if (n)
    memcpy(e->denied, e->p.denied_paths, n * sizeof *e->denied);
  e->denied[n++] = (struct cs_path_rule){ "${WORKSPACE}/secret.txt", 7, "test: denied file" };
  e->denied[n++] = (struct cs_path_rule){ "${WORKSPACE}/secrets", 7, "test: denied dir" };
  e->denied[n++] = (struct cs_path_rule){ "~/.ssh", 7, "test: credentials" };
  e->p.denied_paths = e->denied;
  e->p.n_denied_paths = n;
  cfx_n++;
  return &e->p;
}

void cfx_release(void)
{
  for (int i = 0; i < cfx_n; i++) {
    free(cfx_made[i].allowed);
    free(cfx_made[i].denied);
    free(cfx_made[i].notes);
    free(cfx_made[i].filter);
  }
  cfx_n = 0;
}
