/* The sbx command line with the generated profiles plus four test profiles:
 * - "tcp-fixture": strict's paths and Landlock rules (network blocked) with
 *   a seccomp filter that allows every call. No seccomp profile of the
 *   table lets a blocked-network command create an AF_INET socket (seccomp
 *   refuses it first), so only this profile reaches Landlock's own TCP
 *   refusal;
 * - "scope-fixture": standard without approvals, with a direct network
 *   (the seed's standard goes through the proxy). Under standard the
 *   approval workflow performs connect() for the command in a helper
 *   process with its own Landlock domain (sbx_unotify_sbx.c), whose
 *   refusals sbx does not attribute to the run (docs/confinement.md); here
 *   the command connects itself;
 * - "exec-fixture": strict's rules plus `execute "${WORKSPACE}/bin"`, with
 *   a (sandboxed) shell, since strict's no-shell rule refuses execute in
 *   the workspace. A place no execute rule covers is mounted noexec, and
 *   the mount refuses an execve there before Landlock is asked (no record
 *   to name); here the workspace mount stays executable for bin/, so an
 *   execve of another workspace file is refused by Landlock alone.
 * - "socket-fixture": a custom profile (standard's paths, no approvals)
 *   whose own filter below decides socket() by two rules of its own, an
 *   allow rule for AF_UNIX tried first and an unconditional errno(EPERM):
 *   a refused socket(AF_INET) must be named with the second, this
 *   profile's refusing rule, never the first (an allow rule) nor a rule of
 *   the profile it was copied from.
 * sbx's modules take the tables as parameters (sbx_tables.h); everything
 * else is the real sbx. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "profiles.h"
#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_run.h"
#include "default.h"

static const struct sock_filter denial_allow_all[] = {
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* socket-fixture's filter: another ABI is killed; socket(AF_UNIX) allowed,
 * any other socket() refused with EPERM; every other call allowed. */
static const struct sock_filter denial_socket_filter[] = {
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
  BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};
/* Its rules, in the order the filter tries them (cs_profile_table.h). */
static const struct cs_syscall_note denial_socket_notes[] = {
  { SYS_socket, "socket", "allow if arg0.lo32 == 0x1",
    "socket-fixture.pol:3:5 (profile socket-fixture)", SECCOMP_RET_ALLOW },
  { SYS_socket, "socket", "errno(EPERM)", "socket-fixture.pol:4:5 (profile socket-fixture)",
    SECCOMP_RET_ERRNO | EPERM },
};

int main(int argc, char *argv[])
{
  static struct cs_profile table[CS_PROFILES_COUNT + 4];
  static struct cs_path_rule exec_paths[32];
  const struct cs_profile *strict = cs_profile_find("strict");
  const struct cs_profile *standard = cs_profile_find("standard");
  struct sbx_opts o;
  struct sbx_tables t = { .profiles = table,
                          .n_profiles = cs_profiles_count + 4,
                          .model = &cs_model_default };

  if (!strict || !standard || cs_profiles_count > CS_PROFILES_COUNT ||
      strict->n_allowed_paths >= sizeof exec_paths / sizeof exec_paths[0]) {
    fprintf(stderr, "denial_sbx: the generated table lacks strict or standard\n");
    return SBX_EXIT_FAILURE;
  }
  memcpy(table, cs_profiles, cs_profiles_count * sizeof *table);
  table[cs_profiles_count] = *strict;
  table[cs_profiles_count].name = "tcp-fixture";
  table[cs_profiles_count].alias = NULL;
  table[cs_profiles_count].summary = "test: strict's paths, network blocked, seccomp allows all";
  table[cs_profiles_count].origin = "tests/denial/denial_sbx.c";
  table[cs_profiles_count].filter = denial_allow_all;
  table[cs_profiles_count].filter_len = 1;
  table[cs_profiles_count].syscall_notes = NULL;
  table[cs_profiles_count].n_syscall_notes = 0;
  table[cs_profiles_count].default_action = "allow";
  table[cs_profiles_count].default_ret = SECCOMP_RET_ALLOW;
  table[cs_profiles_count + 1] = *standard;
  table[cs_profiles_count + 1].name = "scope-fixture";
  table[cs_profiles_count + 1].alias = NULL;
  table[cs_profiles_count + 1].summary = "test: standard without approvals, direct network";
  table[cs_profiles_count + 1].origin = "tests/denial/denial_sbx.c";
  table[cs_profiles_count + 1].approval_ops = 0;
  /* A direct network: the host's abstract sockets are in its namespace,
   * so only Landlock's scoping keeps them out of reach. */
  table[cs_profiles_count + 1].net_mode = CS_NET_DIRECT;
  table[cs_profiles_count + 1].command_rules = NULL;
  table[cs_profiles_count + 1].n_command_rules = 0;
  memcpy(exec_paths, strict->allowed_paths, strict->n_allowed_paths * sizeof *exec_paths);
  exec_paths[strict->n_allowed_paths] =
      (struct cs_path_rule){ "${WORKSPACE}/bin", CS_PATH_READ | CS_PATH_EXEC,
                             "tests/denial/denial_sbx.c" };
  table[cs_profiles_count + 2] = *strict;
  table[cs_profiles_count + 2].name = "exec-fixture";
  table[cs_profiles_count + 2].alias = NULL;
  table[cs_profiles_count + 2].summary = "test: strict's rules, execute in ${WORKSPACE}/bin";
  table[cs_profiles_count + 2].origin = "tests/denial/denial_sbx.c";
  table[cs_profiles_count + 2].shell = CS_SHELL_SANDBOXED;
  table[cs_profiles_count + 2].allowed_paths = exec_paths;
  table[cs_profiles_count + 2].n_allowed_paths = strict->n_allowed_paths + 1;
  table[cs_profiles_count + 3] = table[cs_profiles_count + 1];
  table[cs_profiles_count + 3].name = "socket-fixture";
  table[cs_profiles_count + 3].summary =
      "test: a custom profile deciding socket() by its own rules";
  table[cs_profiles_count + 3].filter = denial_socket_filter;
  table[cs_profiles_count + 3].filter_len =
      sizeof denial_socket_filter / sizeof denial_socket_filter[0];
  table[cs_profiles_count + 3].syscall_notes = denial_socket_notes;
  table[cs_profiles_count + 3].n_syscall_notes =
      sizeof denial_socket_notes / sizeof denial_socket_notes[0];
  table[cs_profiles_count + 3].default_action = "allow";
  table[cs_profiles_count + 3].default_ret = SECCOMP_RET_ALLOW;
  table[cs_profiles_count + 3].rets_known = true;

  if (sbx_cli_parse(argc, argv, &o, stderr) != 0)
    return SBX_EXIT_FAILURE;
  switch (o.cmd) {
  case SBX_CMD_CHECK:
    return sbx_check(&t, &o);
  case SBX_CMD_RUN:
    return sbx_run(&t, &o);
  default:
    fprintf(stderr, "denial_sbx: only run and check\n");
    return SBX_EXIT_FAILURE;
  }
}
