/* sbx_check: `sbx check` and `sbx explain` (see sbx_run.h). */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_disasm.h"
#include "sbx_admit.h"
#include "sbx_confine.h"
#include "sbx_plan.h"
#include "sbx_denial.h"
#include "sbx_explain.h"
#include "sbx_profile.h"
#include "sbx_route.h"
#include "sbx_run.h"

static const char *sbx_check_cgroup_name(enum sbx_cgroup_mode m)
{
  switch (m) {
  case SBX_CGROUP_NONE:
    return "none";
  case SBX_CGROUP_V2:
    return "v2";
  case SBX_CGROUP_V1:
    return "v1";
  }
  return "unknown";
}

/* `sbx check --json`: the same facts for programs (agent hosts deciding
 * which profile they can ask for). Keys are documented in docs/sbx.md. */
static int sbx_check_json(const struct sbx_tables *t, const struct sbx_features *f)
{
  json_t *o = NULL, *profiles = NULL, *adm = NULL;
  char why[512];
  char *text = NULL;
  int rc = SBX_EXIT_FAILURE;

  o = json_pack("{s:i, s:{s:b, s:{s:b, s:b, s:b, s:b, s:b, s:b, s:b}, s:b, "
                "s:{s:b, s:b, s:b, s:b, s:b, s:b}, s:i, s:b, s:b, s:b, s:i, s:{s:s, s:s}}}",
                "schema", 1, "kernel", "root", f->root, "namespaces", "user", f->ns_user, "mount",
                f->ns_mount, "pid", f->ns_pid, "ipc", f->ns_ipc, "uts", f->ns_uts, "net", f->ns_net,
                "cgroup", f->ns_cgroup, "userns_usable", f->userns_usable, "seccomp", "filter",
                f->seccomp_filter, "tsync", f->seccomp_tsync, "log", f->seccomp_log, "spec_allow",
                f->seccomp_spec_allow, "new_listener", f->seccomp_new_listener,
                "wait_killable_recv", f->seccomp_wait_killable_recv, "landlock_abi",
                f->landlock_abi, "close_range", f->close_range, "mount_setattr", f->mount_setattr,
                "kmsg_readable", f->kmsg_readable, "io_uring_disabled", f->io_uring_disabled,
                "cgroup", "mode", sbx_check_cgroup_name(f->cgroup), "detail", f->cgroup_detail);
  {
    /* Whether a refusal will be named with its rule (docs/confinement.md,
     * "Naming refusals"): seccomp needs a readable log, Landlock also the
     * kernel's audit switched on. */
    char src[64];
    enum sbx_naming nm = sbx_naming_probe(src, sizeof src);
    if (o && json_object_set_new(o, "naming",
                                 json_pack("{s:s, s:b, s:b, s:s?}", "source", src, "seccomp",
                                           nm != SBX_NAMING_NO_LOG, "landlock", nm == SBX_NAMING_OK,
                                           "landlock_reason",
                                           nm == SBX_NAMING_OK ? NULL : sbx_naming_text(nm))) != 0)
      goto cleanup;
  }
  profiles = json_array();
  adm = sbx_admit_describe_json(t->model);
  if (!o || !profiles || !adm)
    goto cleanup;
  for (size_t i = 0; i < t->n_profiles; i++) {
    const struct cs_profile *p = &t->profiles[i];
    int r;
    why[0] = '\0';
    r = sbx_profile_enforceable(p, f, why, sizeof(why));
    if (json_array_append_new(profiles,
                              json_pack("{s:s, s:s?, s:b, s:s?, s:s?}", "name", p->name, "alias",
                                        p->alias, "enforceable", r == 0, "reason",
                                        why[0] ? why : NULL, "default_tier", p->default_tier)) != 0)
      goto cleanup;
  }
  if (json_object_set(o, "profiles", profiles) != 0 || json_object_set(o, "admission", adm) != 0)
    goto cleanup;
  text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (!text)
    goto cleanup;
  printf("%s\n", text);
  rc = fflush(stdout) == 0 ? 0 : SBX_EXIT_FAILURE;
cleanup:
  if (rc != 0)
    fprintf(stderr, "sbx: error: check: cannot produce the JSON report\n");
  free(text);
  json_decref(o);
  json_decref(profiles);
  json_decref(adm);
  return rc;
}

int sbx_check(const struct sbx_tables *t, const struct sbx_opts *o)
{
  struct sbx_features f;
  char why[512];
  size_t ok = 0;
  int r;

  memset(&f, 0, sizeof(f));
  r = sbx_probe_features(&f);
  if (r != 0) {
    fprintf(stderr, "sbx: error: check: probing the kernel failed: %s\n", strerror(-r));
    return SBX_EXIT_FAILURE;
  }
  if (o->json)
    return sbx_check_json(t, &f);
  printf("Kernel features:\n");
  sbx_features_describe(&f, stdout);
  {
    char src[64];
    enum sbx_naming nm = sbx_naming_probe(src, sizeof src);
    printf("refusals named with their rule: seccomp %s, landlock %s%s%s (records from %s)\n",
           nm == SBX_NAMING_NO_LOG ? "no" : "yes",
           nm == SBX_NAMING_OK ? "yes" : "no: ", nm == SBX_NAMING_OK ? "" : sbx_naming_text(nm),
           nm == SBX_NAMING_AUDIT_DISABLED ? "; sbx never switches it itself" : "", src);
  }
  printf("\nProfiles (from the table sbx is built with):\n");
  for (size_t i = 0; i < t->n_profiles; i++) {
    const struct cs_profile *p = &t->profiles[i];
    why[0] = '\0';
    r = sbx_profile_enforceable(p, &f, why, sizeof(why));
    /* Even an enforceable profile may come with a note (a layer done by a
     * weaker mechanism here); it is shown, in parentheses. */
    if (r == 0)
      printf("  %-16s %-16s enforceable%s%s%s\n", p->name, p->alias ? p->alias : "",
             why[0] ? " (" : "", why, why[0] ? ")" : "");
    else
      printf("  %-16s %-16s NOT enforceable: %s\n", p->name, p->alias ? p->alias : "",
             why[0] ? why : "(no reason given)");
    ok += r == 0;
  }
  printf("\n%zu of %zu profiles can be enforced on this kernel.\n", ok, t->n_profiles);
  printf("\n");
  sbx_admit_describe(stdout, t->model);
  return 0;
}

int sbx_explain_cmd(const struct sbx_tables *t, const struct sbx_opts *o)
{
  const struct cs_profile *p = NULL;
  enum sbx_profile_source src;

  if (o->routes) {
    /* The routes alone: they do not depend on a profile. */
    sbx_route_list(stdout, t->routes, t->n_routes);
    if (fflush(stdout) != 0) {
      fprintf(stderr, "sbx: error: explain: writing the output: %s\n", strerror(errno));
      return SBX_EXIT_FAILURE;
    }
    return 0;
  }
  if (sbx_profile_select(t->profiles, t->n_profiles, o->profile, getenv(SBX_PROFILE_ENV), &p, &src,
                         stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (t->policy_file)
    printf("From your policy file %s (not the linked profiles; checked, compiled and\n"
           "cross-checked by sbx as pnetc would).\n\n",
           t->policy_file);
  sbx_explain(stdout, p);
  printf("\nEnvironment passed into the sandbox (all else is removed):");
  for (size_t i = 0; sbx_env_allowlist[i]; i++)
    printf("%s %s", i ? "," : "", sbx_env_allowlist[i]);
  printf("\n");
  if (o->bpf) {
    /* The program exactly as the table holds it and sbx run loads it, so
     * an auditor reads what the kernel runs, not a re-compilation. */
    struct bpf_program_out prog = {
      .insns = (struct sock_filter *)p->filter,
      .len = p->filter_len,
      .comments = NULL,
    };
    printf("\nSeccomp filter of profile %s (x86_64):\n", p->name);
    if (p->filter && p->filter_len)
      bpf_write_disasm(stdout, &prog);
    else
      printf("(the table holds no filter for this profile)\n");
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "sbx: error: explain: writing the output: %s\n", strerror(errno));
    return SBX_EXIT_FAILURE;
  }
  return 0;
}
