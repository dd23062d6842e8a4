/* sbx_env_rules: which environment variable names never enter a sandbox,
 * whoever asks (--pass-env, --env, req->pass_env, req->set_env), and why.
 *
 * Three classes, each closed as a class rather than by example:
 *   - loader and libc steering: LD_* and the variables glibc itself drops
 *     for set-uid programs because they make it load code or read files
 *     the caller names (GCONV_PATH, GLIBC_TUNABLES, ...);
 *   - sbx's own: PATH, HOME, PWD and SBX_PROFILE are set by sbx (PWD follows
 *     --cwd), so a request for them would be silently overridden;
 *   - secrets: any name with a word such as TOKEN, SECRET, PASSWORD, KEY,
 *     AUTH or CREDENTIAL, in any case (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
 *     SSH_AUTH_SOCK, npm_config__authToken), and the agents' and credential
 *     caches' locations. A harmless name that looks like one is refused
 *     too: a false refusal costs a renamed variable, a false pass a key.
 * The profile language has no environment rules of its own (yet): these
 * hold for every profile. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sbx_request.h"

/* glibc's list of variables unsafe for set-uid programs (elf/dl-support,
 * "unsecure envvars"), without TMPDIR and TZDIR, which name no code. */
static const char *const sbx_env_libc_names[] = {
  "GCONV_PATH",   "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES",      "LOCALDOMAIN", "LOCPATH",
  "MALLOC_TRACE", "NIS_PATH",    "NLSPATH",        "RESOLV_HOST_CONF", "RES_OPTIONS", NULL
};

static const char *const sbx_env_sbx_names[] = { "PATH", "HOME", "PWD", "SBX_PROFILE", NULL };

/* Words of a name (split at '_') that mark a secret. */
static const char *const sbx_env_secret_words[] = {
  "TOKEN", "TOKENS", "SECRET",  "SECRETS", "PASSWORD", "PASSWD",    "PASS",       "PASSPHRASE",
  "KEY",   "KEYS",   "APIKEY",  "PRIVKEY", "AUTH",     "AUTHTOKEN", "CREDENTIAL", "CREDENTIALS",
  "CREDS", "COOKIE", "COOKIES", "BEARER",  "JWT",      "OTP",       NULL
};

/* Parts that mark a secret wherever they stand, even inside a word
 * (PGPASSWORD, GHTOKEN, npm's _authToken). */
static const char *const sbx_env_secret_parts[] = { "TOKEN",      "SECRET",      "PASSW", "APIKEY",
                                                    "PRIVATEKEY", "PRIVATE_KEY", NULL };

/* Where agents and credential caches are found. */
static const char *const sbx_env_secret_names[] = { "GPG_AGENT_INFO", "KRB5CCNAME", "KRB5_KTNAME",
                                                    NULL };

static bool sbx_env_is(const char *name, size_t len, const char *const *list, const char **hit)
{
  for (; *list; list++)
    if (strlen(*list) == len && strncmp(name, *list, len) == 0) {
      *hit = *list;
      return true;
    }
  return false;
}

/* Case-insensitive substring of the first len bytes of name. */
static bool sbx_env_contains(const char *name, size_t len, const char *part)
{
  size_t pl = strlen(part);
  for (size_t i = 0; i + pl <= len; i++)
    if (strncasecmp(name + i, part, pl) == 0)
      return true;
  return false;
}

int sbx_env_refusal(const char *name, size_t len, char *why, size_t why_size)
{
  const char *hit = NULL;

  if (len >= 3 && strncmp(name, "LD_", 3) == 0) {
    snprintf(why, why_size, "env rule 'loader': LD_* steers the dynamic loader");
    return -EPERM;
  }
  if (sbx_env_is(name, len, sbx_env_libc_names, &hit)) {
    snprintf(why, why_size, "env rule 'loader': %s makes libc load or read what it names", hit);
    return -EPERM;
  }
  if (sbx_env_is(name, len, sbx_env_sbx_names, &hit)) {
    snprintf(why, why_size, "env rule 'sbx': %s is set by sbx%s", hit,
             strcmp(hit, "PWD") == 0 ? " (use --cwd)" : "");
    return -EPERM;
  }
  if (sbx_env_is(name, len, sbx_env_secret_names, &hit)) {
    snprintf(why, why_size, "env rule 'secret': %s locates credentials", hit);
    return -EPERM;
  }
  for (const char *const *p = sbx_env_secret_parts; *p; p++)
    if (sbx_env_contains(name, len, *p)) {
      snprintf(why, why_size,
               "env rule 'secret': the name contains %s (tokens, keys and "
               "passwords never enter the sandbox)",
               *p);
      return -EPERM;
    }
  for (size_t start = 0; start < len;) {
    size_t end = start;
    while (end < len && name[end] != '_')
      end++;
    for (const char *const *w = sbx_env_secret_words; *w; w++)
      if (strlen(*w) == end - start && strncasecmp(name + start, *w, end - start) == 0) {
        snprintf(why, why_size,
                 "env rule 'secret': the name has the word %s (tokens, keys "
                 "and passwords never enter the sandbox)",
                 *w);
        return -EPERM;
      }
    start = end + 1;
  }
  return 0;
}
