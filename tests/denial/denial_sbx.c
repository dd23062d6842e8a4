/* The sbx command line with the generated profiles plus one test profile,
 * "tcp-fixture": strict's paths and Landlock rules (network blocked) with a
 * seccomp filter that allows every call. No seccomp profile of the table
 * lets a blocked-network command create an AF_INET socket (seccomp refuses
 * it first), so only this profile lets the test reach Landlock's own TCP
 * refusal. sbx's modules take the tables as parameters (sbx_tables.h);
 * everything else is the real sbx. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>

#include "profiles.h"
#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_run.h"
#include "default.h"

static const struct sock_filter denial_allow_all[] = {
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

int main(int argc, char *argv[])
{
  static struct cs_profile table[CS_PROFILES_COUNT + 1];
  const struct cs_profile *strict = cs_profile_find("strict");
  struct sbx_opts o;
  struct sbx_tables t = {.profiles = table, .n_profiles = cs_profiles_count + 1,
                         .model = &cs_model_default};

  if (!strict || cs_profiles_count > CS_PROFILES_COUNT) {
    fprintf(stderr, "denial_sbx: the generated table has no strict profile\n");
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
