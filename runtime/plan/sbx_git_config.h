/* sbx_git_config: a reader of git's configuration files for the plan
 * (sbx_plan_git.c). Not a git configuration API: it hands every key with
 * its section and value to a callback and judges nothing. */
#ifndef CS_RUNTIME_SBX_GIT_CONFIG_H
#define CS_RUNTIME_SBX_GIT_CONFIG_H

#include <limits.h>
#include <stdbool.h>

struct sbx_git_kv {
  char section[64]; /* lower case; a subsection is dropped */
  char key[64];     /* lower case */
  char value[PATH_MAX];
  bool has_value; /* false: a key without "=" (git: boolean true) */
};

/* Called for each key in file order; a nonzero result stops the scan and
 * is returned. */
typedef int (*sbx_git_kv_fn)(void *arg, const struct sbx_git_kv *kv);

/* Scans `file`: 0, the callback's nonzero result, -EINVAL when the file is
 * not git configuration sbx can read (a syntax error, a NUL byte), -EFBIG
 * above 1 MiB, or a negative errno from reading it. */
int sbx_git_config_scan(const char *file, sbx_git_kv_fn fn, void *arg);

#endif
