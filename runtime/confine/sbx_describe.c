/* sbx_describe: the plan of a run in words, for auditors (see
 * sbx_confine_describe in sbx_confine.h). It prints the very plan
 * sbx_confine_run replays, so what is read here is what is enforced. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbx_confine.h"
#include "sbx_fail.h"
#include "sbx_landlock.h"
#include "sbx_plan.h"
#include "sbx_sandbox.h"

static const struct {
  uint64_t bit;
  const char *name;
} sbx_ll_names[] = {
  /* grep tag: SBX_LL_FS bits, kernel order */
  { SBX_LL_FS_EXECUTE, "execute" },       { SBX_LL_FS_WRITE_FILE, "write_file" },
  { SBX_LL_FS_READ_FILE, "read_file" },   { SBX_LL_FS_READ_DIR, "read_dir" },
  { SBX_LL_FS_REMOVE_DIR, "remove_dir" }, { SBX_LL_FS_REMOVE_FILE, "remove_file" },
  { SBX_LL_FS_MAKE_CHAR, "make_char" },   { SBX_LL_FS_MAKE_DIR, "make_dir" },
  { SBX_LL_FS_MAKE_REG, "make_reg" },     { SBX_LL_FS_MAKE_SOCK, "make_sock" },
  { SBX_LL_FS_MAKE_FIFO, "make_fifo" },   { SBX_LL_FS_MAKE_BLOCK, "make_block" },
  { SBX_LL_FS_MAKE_SYM, "make_sym" },     { SBX_LL_FS_REFER, "refer" },
  { SBX_LL_FS_TRUNCATE, "truncate" },     { SBX_LL_FS_IOCTL_DEV, "ioctl_dev" },
};
_Static_assert(sizeof sbx_ll_names / sizeof sbx_ll_names[0] == 16,
               "one name per Landlock filesystem right up to ABI 5");

static const char *const sbx_kind_names[] = { [SBX_MNT_BIND_RO] = "bind ro",
                                              [SBX_MNT_BIND_RW] = "bind rw",
                                              [SBX_MNT_SYMLINK] = "symlink",
                                              [SBX_MNT_MASK] = "mask" };

static void sbx_print_rights(uint64_t rights, FILE *out)
{
  const char *sep = "";
  for (size_t i = 0; i < sizeof sbx_ll_names / sizeof sbx_ll_names[0]; i++)
    if (rights & sbx_ll_names[i].bit) {
      fprintf(out, "%s%s", sep, sbx_ll_names[i].name);
      sep = ",";
    }
  if (!*sep)
    fputs("(none)", out);
}

int sbx_confine_describe(const struct sbx_run_request *req, FILE *out)
{
  struct sbx_features f;
  struct sbx_plan plan;
  const struct cs_profile *p;
  char err[512];
  struct sbx_fail fail;
  uint64_t handled;
  size_t n_exec_files = 0;
  int rc;

  if (!req || !req->profile || !req->workspace)
    return -EINVAL;
  p = req->profile;
  sbx_probe_for_run(&f);
  if ((rc = sbx_profile_enforceable(p, &f, err, sizeof err)) < 0) {
    fprintf(out, "refused: %s\n", err);
    return rc;
  }
  if ((rc = sbx_plan_build(req, f.landlock_abi, &plan, &fail)) < 0) {
    sbx_fail_format(&fail, err, sizeof err);
    fprintf(out, "refused: %s\n", err);
    return rc;
  }
  handled = sbx_ll_fs_rights(f.landlock_abi);
  fprintf(out, "profile %s, workspace %s\n", p->name ? p->name : "?", plan.workspace);
  fprintf(out, "namespaces: %smount pid ipc uts cgroup%s\n", f.root ? "" : "user ",
          plan.net_blocked   ? " net (empty)"
          : plan.net_proxied ? " net (loopback only; the way out is the proxy)"
                             : " (host network)");
  fprintf(out, "mounts (in order; root %s):\n",
          plan.full_root ? "= the host root" : "= read-only tmpfs");
  for (size_t i = 0; i < plan.n_mounts; i++) {
    const struct sbx_mount_entry *e = &plan.mounts[i];
    fprintf(out, "  %-8s %s%s%s%s%s  [%s]%s\n", sbx_kind_names[e->kind], e->path,
            e->target ? " -> " : "", e->target ? e->target : "", e->source ? " from " : "",
            e->source ? e->source : "", e->why,
            e->noexec || e->kind == SBX_MNT_MASK ? " noexec" : "");
  }
  fprintf(out,
          "  tmpfs    /tmp (%s%s; HOME %s), /dev (noexec: null zero full random urandom; shm%s), "
          "/proc (new, noexec)\n",
          plan.tmp_writable ? "read-write" : "read-only", plan.tmp_noexec ? ", noexec" : "",
          SBX_SANDBOX_HOME, plan.shm_noexec ? " noexec" : "");
  /* The sandbox's home (sbx_plan_home.c): where its names came from,
   * where what persists is kept, what was skipped. */
  fprintf(out, "home: %s from %s; kept in %s%s%s\n", SBX_SANDBOX_HOME,
          plan.home_real ? plan.home_real : "(no real home)",
          plan.home_state ? plan.home_state : "(nothing kept)", plan.home_notes[0] ? "; " : "",
          plan.home_notes);
  if (plan.extra_path)
    fprintf(out, "extra path: %s (%s)\n", plan.extra_path,
            plan.extra_rw ? "read-write" : "read-only");
  if (plan.full_root && plan.root_noexec)
    fprintf(out, "  the host root is noexec\n");
  fprintf(out, "landlock (ABI %d; handled: ", f.landlock_abi);
  sbx_print_rights(handled, out);
  fprintf(out, ")\n");
  for (size_t i = 0; i < plan.n_rules; i++) {
    const struct sbx_ll_rule *r = &plan.rules[i];
    if (r->is_file) {
      n_exec_files++;
      continue;
    }
    fprintf(out, "  %-40s ", r->path);
    sbx_print_rights(r->access & handled, out);
    fputc('\n', out);
  }
  if (n_exec_files)
    fprintf(out, "  + execute,read_file on %zu files of the bin directories (no shells)\n",
            n_exec_files);
  fprintf(out, "  tcp: %s; scoped: %s\n",
          f.landlock_abi >= 4 && plan.net_blocked ? "bind and connect refused" : "not handled",
          f.landlock_abi >= 6 ? "abstract unix sockets, signals" : "none");
  fprintf(
      out,
      "limits: %llu ms wall, %llu s cpu, %llu bytes memory, %llu processes, %llu files, "
      "%llu bytes per file, no core\n",
      (unsigned long long)p->limits.max_execution_ms, (unsigned long long)p->limits.max_cpu_seconds,
      (unsigned long long)p->limits.max_memory_bytes, (unsigned long long)p->limits.max_processes,
      (unsigned long long)p->limits.max_open_files, (unsigned long long)p->limits.max_file_size);
  fprintf(out, "cgroup: %s\n", f.cgroup_detail);
  fprintf(out, "privileges: no_new_privs, every capability dropped, securebits locked\n");
  /* Who the command is (docs/confinement.md, "Identity"). */
  fprintf(out, "identity: uid %u gid %u, %s\n", (unsigned)plan.run_uid, (unsigned)plan.run_gid,
          !plan.run_as    ? "the caller's"
          : plan.idmap_ws ? "nobody (root owns the workspace: bound idmapped, its files root's)"
                          : "the workspace's owner, no supplementary groups");
  fprintf(out, "seccomp: %u instructions, loaded last\n", p->filter_len);
  fprintf(out, "environment:");
  for (size_t i = 0; i < plan.n_env; i++) {
    const char *eq = strchr(plan.envp[i], '=');
    fprintf(out, " %.*s", eq ? (int)(eq - plan.envp[i]) : (int)strlen(plan.envp[i]), plan.envp[i]);
  }
  fputc('\n', out);
  sbx_plan_free(&plan);
  return 0;
}
