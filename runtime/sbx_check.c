/* sbx_check: `sbx check` and `sbx explain` (see sbx_run.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_gen.h"
#include "sbx_admit.h"
#include "sbx_confine.h"
#include "sbx_explain.h"
#include "sbx_profile.h"
#include "sbx_run.h"

int sbx_check(const struct sbx_tables *t)
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
  printf("Kernel features:\n");
  sbx_features_describe(&f, stdout);
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

  if (sbx_profile_select(t->profiles, t->n_profiles, o->profile, getenv(SBX_PROFILE_ENV), &p,
                         &src, stderr) != 0)
    return SBX_EXIT_FAILURE;
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
