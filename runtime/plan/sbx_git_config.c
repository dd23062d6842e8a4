/* sbx_git_config: git's configuration syntax, as far as sbx needs it
 * (sbx_plan_git.c reads include.path, includeIf.*.path, core.hooksPath and
 * core.worktree to know which other files and directories to protect).
 * Sections, subsections (ignored), keys, quoted values, escapes,
 * continuation lines and comments as git reads them; anything else is a
 * syntax error, which the caller refuses: git would refuse that file too. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_git_config.h"

/* A configuration file larger than this is refused rather than half read. */
#define SBX_GIT_CONFIG_MAX (1024 * 1024)

static char *sbx_git_read_file(const char *path, int *rc)
{
  FILE *fp = fopen(path, "re");
  char *buf = NULL;
  size_t n = 0;
  *rc = 0;
  if (!fp) {
    *rc = -errno;
    return NULL;
  }
  buf = malloc(SBX_GIT_CONFIG_MAX + 1);
  if (!buf) {
    *rc = -ENOMEM;
    goto done;
  }
  n = fread(buf, 1, SBX_GIT_CONFIG_MAX + 1, fp);
  if (ferror(fp) || n > SBX_GIT_CONFIG_MAX) {
    *rc = ferror(fp) ? -EIO : -EFBIG;
    free(buf);
    buf = NULL;
    goto done;
  }
  buf[n] = '\0';
  if (memchr(buf, '\0', n)) { /* git stops at a NUL too: refuse what it would not read */
    *rc = -EINVAL;
    free(buf);
    buf = NULL;
  }
done:
  fclose(fp);
  return buf;
}

static bool sbx_git_keychar(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

static char sbx_git_lower(char c)
{
  return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* A value up to its end of line: quotes, escapes and continuation lines as
 * git reads them; unquoted trailing blanks dropped. */
static int sbx_git_value(const char **sp, struct sbx_git_kv *kv)
{
  const char *s = *sp;
  size_t n = 0, keep = 0;
  bool quoted = false;
  while (*s == ' ' || *s == '\t')
    s++;
  for (;; s++) {
    char c = *s;
    if (c == '\0' || (c == '\n' && !quoted))
      break;
    if (c == '\n')
      return -EINVAL; /* a newline inside quotes: git refuses it */
    if (!quoted && (c == '#' || c == ';')) {
      s += strcspn(s, "\n");
      break;
    }
    if (c == '"') {
      quoted = !quoted;
      keep = n;
      continue;
    }
    if (c == '\\') {
      char e = *++s;
      if (e == '\n')
        continue; /* continuation line */
      if (e == '\r' && s[1] == '\n') {
        s++;
        continue;
      }
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e == '"' || e == '\\' ? e : 0;
      if (!c)
        return -EINVAL;
      if (n + 1 >= sizeof kv->value)
        return -ENAMETOOLONG;
      kv->value[n++] = c;
      keep = n;
      continue;
    }
    if (n + 1 >= sizeof kv->value)
      return -ENAMETOOLONG;
    kv->value[n++] = c;
    if (quoted || (c != ' ' && c != '\t' && c != '\r'))
      keep = n;
  }
  if (quoted)
    return -EINVAL;
  kv->value[keep] = '\0';
  kv->has_value = true;
  *sp = s;
  return 0;
}

int sbx_git_config_scan(const char *file, sbx_git_kv_fn fn, void *arg)
{
  int rc = 0;
  char *buf = sbx_git_read_file(file, &rc);
  const char *s;
  struct sbx_git_kv kv;
  memset(&kv, 0, sizeof kv);
  if (!buf)
    return rc;
  s = buf;
  if ((unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb && (unsigned char)s[2] == 0xbf)
    s += 3; /* a UTF-8 byte order mark, which git skips */
  while (*s && rc == 0) {
    size_t n = 0;
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
      s++;
      continue;
    }
    if (*s == '#' || *s == ';') {
      s += strcspn(s, "\n");
      continue;
    }
    if (*s == '[') {
      /* [section], [section "subsection"], [section.sub] (old form) */
      s++;
      while (sbx_git_keychar(*s) || *s == '.') {
        if (n + 1 >= sizeof kv.section)
          goto bad;
        kv.section[n++] = sbx_git_lower(*s++);
      }
      kv.section[n] = '\0';
      if (strchr(kv.section, '.'))
        kv.section[strcspn(kv.section, ".")] = '\0'; /* its subsection does not matter here */
      if (*s == ' ' || *s == '\t') {
        while (*s == ' ' || *s == '\t')
          s++;
        if (*s++ != '"')
          goto bad;
        for (; *s && *s != '"' && *s != '\n'; s++)
          if (*s == '\\' && s[1] && s[1] != '\n')
            s++;
        if (*s++ != '"')
          goto bad;
      }
      if (*s++ != ']' || n == 0)
        goto bad;
      continue;
    }
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')) || !kv.section[0])
      goto bad;
    while (sbx_git_keychar(*s)) {
      if (n + 1 >= sizeof kv.key)
        goto bad;
      kv.key[n++] = sbx_git_lower(*s++);
    }
    kv.key[n] = '\0';
    kv.has_value = false;
    kv.value[0] = '\0';
    while (*s == ' ' || *s == '\t')
      s++;
    if (*s == '=') {
      s++;
      if (sbx_git_value(&s, &kv) < 0)
        goto bad;
    } else if (*s == '#' || *s == ';')
      s += strcspn(s, "\n");
    else if (*s == '\r')
      s++;
    if (*s && *s != '\n' && *s != '\r')
      goto bad;
    rc = fn(arg, &kv);
  }
  free(buf);
  return rc;
bad:
  free(buf);
  return -EINVAL;
}
