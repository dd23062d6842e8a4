/* sbx_plan_env: the sandbox's environment (sbx_plan_environment): an
 * allowlist of the caller's variables, the names the caller passes on
 * and the ones it sets (--pass-env, --env; never a name sbx_env_rules.c
 * refuses), and sbx's own PATH, HOME, PWD and SBX_PROFILE, and for a
 * proxied profile the variables that point clients at the proxy. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_plan.h"
#include "sbx_plan_parts.h"

extern char **environ;

const char *const sbx_env_allowlist[] = { "PATH",    "HOME", "LANG",        "LANGUAGE",
                                          "LC_*",    "TERM", "TZ",          "USER",
                                          "LOGNAME", "PWD",  "SBX_PROFILE", NULL };

/* A proxied run's proxy settings (docs/network-proxy.md, "What the
 * command sees"), in every spelling the common clients read: curl, wget,
 * git and python read the lower-case forms (curl ignores an upper-case
 * HTTP_PROXY, a CGI-era safeguard), Go and others the upper-case ones;
 * npm, yarn and pip have their own. ALL_PROXY is SOCKS5 with the name
 * resolved by the proxy (socks5h), as the sandbox has no resolver. They
 * only point the way: the namespace has no other, so a request that sets
 * them elsewhere (--env) reaches nothing. */
#define SBX_PROXY_HTTP_URL "http://127.0.0.1:3128"
#define SBX_PROXY_SOCKS_URL "socks5h://127.0.0.1:1080"
_Static_assert(SBX_PROXY_HTTP_PORT == 3128 && SBX_PROXY_SOCKS_PORT == 1080,
               "the proxy URLs below must name the listeners' ports");
static const char *const sbx_proxy_env[][2] = {
  { "HTTP_PROXY", SBX_PROXY_HTTP_URL },
  { "HTTPS_PROXY", SBX_PROXY_HTTP_URL },
  { "http_proxy", SBX_PROXY_HTTP_URL },
  { "https_proxy", SBX_PROXY_HTTP_URL },
  { "ALL_PROXY", SBX_PROXY_SOCKS_URL },
  { "all_proxy", SBX_PROXY_SOCKS_URL },
  /* The run's own loopback (a server the command starts itself). */
  { "NO_PROXY", "localhost,127.0.0.1,::1" },
  { "no_proxy", "localhost,127.0.0.1,::1" },
  { "npm_config_proxy", SBX_PROXY_HTTP_URL },
  { "npm_config_https_proxy", SBX_PROXY_HTTP_URL },
  { "YARN_HTTP_PROXY", SBX_PROXY_HTTP_URL },
  { "YARN_HTTPS_PROXY", SBX_PROXY_HTTP_URL },
  { "PIP_PROXY", SBX_PROXY_HTTP_URL },
  /* Node's own fetch reads the variables above only when told to (Node
   * 22.21 / 24 and later; older versions ignore this and get no
   * network, never a direct one). */
  { "NODE_USE_ENV_PROXY", "1" },
};

static bool sbx_is_proxy_env(const char *name, size_t len)
{
  for (size_t i = 0; i < sizeof sbx_proxy_env / sizeof sbx_proxy_env[0]; i++)
    if (strlen(sbx_proxy_env[i][0]) == len && strncmp(name, sbx_proxy_env[i][0], len) == 0)
      return true;
  return false;
}

/* Appends an owned "NAME=value" string (freed here on failure). */
static int sbx_plan_env_take(struct sbx_plan *p, char *s)
{
  if (!s)
    return -ENOMEM;
  if (p->n_env + 1 >= p->cap_env) {
    size_t cap = p->cap_env ? p->cap_env * 2 : 16;
    void *m = realloc(p->envp, cap * sizeof *p->envp);
    if (!m) {
      free(s);
      return -ENOMEM;
    }
    p->envp = m;
    p->cap_env = cap;
  }
  p->envp[p->n_env++] = s;
  p->envp[p->n_env] = NULL;
  return 0;
}

static int sbx_plan_env(struct sbx_plan *p, const char *name, const char *value)
{
  char *s;
  if (asprintf(&s, "%s=%s", name, value) < 0)
    return -ENOMEM;
  return sbx_plan_env_take(p, s);
}

/* Is `name` (of a "NAME=value" string, len bytes) on the allowlist or in the
 * caller's pass list? LD_* never is: the loader would obey it inside. */
static bool sbx_env_allowed(const char *name, size_t len, const char *const *pass)
{
  if (len >= 3 && strncmp(name, "LD_", 3) == 0)
    return false;
  for (const char *const *a = sbx_env_allowlist; *a; a++) {
    size_t al = strlen(*a);
    if ((*a)[al - 1] == '*' ? (len >= al - 1 && strncmp(name, *a, al - 1) == 0)
                            : (len == al && strncmp(name, *a, len) == 0))
      return true;
  }
  for (; pass && *pass; pass++)
    if (strlen(*pass) == len && strncmp(name, *pass, len) == 0)
      return true;
  return false;
}

/* Drops an earlier "NAME=..." of the plan (len bytes of name), so that a
 * set_env entry replaces what the allowlist or pass_env put there. */
static void sbx_plan_env_drop(struct sbx_plan *p, const char *name, size_t len)
{
  for (size_t i = 0; i < p->n_env; i++)
    if (strncmp(p->envp[i], name, len) == 0 && p->envp[i][len] == '=') {
      free(p->envp[i]);
      memmove(&p->envp[i], &p->envp[i + 1], (p->n_env - i) * sizeof *p->envp);
      p->n_env--;
      return;
    }
}

int sbx_plan_environment(struct sbx_plan *p, const struct sbx_run_request *req)
{
  char why[160];
  int rc;
  /* Every requested name is checked here too, whatever the caller checked:
   * a refused name fails the run (never dropped quietly). */
  for (const char *const *pe = req->pass_env; pe && *pe; pe++) {
    if ((*pe)[0] == '\0' || strchr(*pe, '='))
      return -EINVAL;
    if (sbx_env_refusal(*pe, strlen(*pe), why, sizeof why) != 0)
      return -EPERM;
  }
  for (const char *const *se = req->set_env; se && *se; se++) {
    const char *eq = strchr(*se, '=');
    if (!eq || eq == *se)
      return -EINVAL;
    if (sbx_env_refusal(*se, (size_t)(eq - *se), why, sizeof why) != 0)
      return -EPERM;
  }
  /* PATH, HOME and PWD are sbx's, whatever the caller had. */
  if ((rc = sbx_plan_env(p, "PATH", SBX_SANDBOX_PATH)) < 0 ||
      (rc = sbx_plan_env(p, "HOME", SBX_SANDBOX_HOME)) < 0 ||
      (rc = sbx_plan_env(p, "PWD", p->cwd ? p->cwd : p->workspace)) < 0 ||
      (rc = sbx_plan_env(p, "SBX_PROFILE", p->profile->name ? p->profile->name : "?")) < 0)
    return rc;
  if (sbx_net_proxied(p->profile))
    for (size_t i = 0; i < sizeof sbx_proxy_env / sizeof sbx_proxy_env[0]; i++)
      if ((rc = sbx_plan_env(p, sbx_proxy_env[i][0], sbx_proxy_env[i][1])) < 0)
        return rc;
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    size_t len;
    if (!eq)
      continue;
    len = (size_t)(eq - *e);
    if ((len == 4 && (strncmp(*e, "PATH", 4) == 0 || strncmp(*e, "HOME", 4) == 0)) ||
        (len == 3 && strncmp(*e, "PWD", 3) == 0) ||
        (len == 11 && strncmp(*e, "SBX_PROFILE", 11) == 0) ||
        (sbx_net_proxied(p->profile) && sbx_is_proxy_env(*e, len)))
      continue;
    if (!sbx_env_allowed(*e, len, req->pass_env))
      continue;
    if ((rc = sbx_plan_env_take(p, strdup(*e))) < 0)
      return rc;
  }
  for (const char *const *se = req->set_env; se && *se; se++) {
    sbx_plan_env_drop(p, *se, (size_t)(strchr(*se, '=') - *se));
    if ((rc = sbx_plan_env_take(p, strdup(*se))) < 0)
      return rc;
  }
  return 0;
}
