/* sbx_denial: from a Landlock audit record to the rule of the profile
 * behind the refusal (sbx_denial.h). The record says what the kernel
 * refused ("blockers", the object); which statement of the profile made
 * that so is derived here from the profile's table, the same rules
 * the plan (runtime/confine/sbx_plan.c) turned into the Landlock ruleset. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_denial.h"
#include "sbx_landlock.h"
#include "sbx_plan.h"

/* grep tag: SBX_NAMING */
static const char *const sbx_naming_texts[] = {
    [SBX_NAMING_OK] = "named from the kernel's audit records",
    [SBX_NAMING_NOT_ASKED] = "not asked for (SBX_RUN_NO_KMSG)",
    [SBX_NAMING_NO_LOG] = "kernel audit records not readable (root only)",
    [SBX_NAMING_AUDIT_DISABLED] = "kernel audit disabled (auditctl -e 1, or boot with audit=1)",
    [SBX_NAMING_OLD_ABI] = "Landlock ABI < 7 logs no refusals",
    [SBX_NAMING_UNCHECKED] = "not checked (the command exited 0)",
};
_Static_assert(sizeof sbx_naming_texts / sizeof *sbx_naming_texts == SBX_NAMING_COUNT_,
               "sbx_naming_texts must follow enum sbx_naming");

const char *sbx_naming_text(enum sbx_naming n)
{
  return (unsigned)n < SBX_NAMING_COUNT_ ? sbx_naming_texts[n] : "?";
}

enum sbx_naming sbx_naming_probe(char *source, size_t source_len)
{
  int fd = sbx_kmsg_open(), type = 0, on = -1;
  socklen_t sl = sizeof type;
  if (fd < 0) {
    snprintf(source, source_len, "none");
    return SBX_NAMING_NO_LOG;
  }
  snprintf(source, source_len, "%s",
           getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) == 0
               ? "the audit netlink group"
               : "/dev/kmsg (printk, rate limited)");
  close(fd);
  if (sbx_ll_abi() < 7)
    return SBX_NAMING_OLD_ABI;
  /* Not allowed to ask (outside the initial pid namespace): the records
   * will tell; only a known "off" is reported as such. */
  if (sbx_kaudit_get(&on) == 0 && on == 0)
    return SBX_NAMING_AUDIT_DISABLED;
  return SBX_NAMING_OK;
}

enum sbx_dclass {
  SBX_D_READ,
  SBX_D_WRITE,
  SBX_D_DELETE,
  SBX_D_EXEC,
  SBX_D_DEVICE,
  SBX_D_NET,
  SBX_D_SIGNAL,
  SBX_D_UNIX,
  SBX_D_PTRACE,
  SBX_D_OTHER,
};

/* The kernel's blocker names (security/landlock/audit.c) by class. */
static const struct {
  const char *name;
  enum sbx_dclass cls;
} sbx_blockers[] = {
    {"fs.execute", SBX_D_EXEC},      {"fs.write_file", SBX_D_WRITE},
    {"fs.read_file", SBX_D_READ},    {"fs.read_dir", SBX_D_READ},
    {"fs.remove_dir", SBX_D_DELETE}, {"fs.remove_file", SBX_D_DELETE},
    {"fs.make_char", SBX_D_DEVICE},  {"fs.make_dir", SBX_D_WRITE},
    {"fs.make_reg", SBX_D_WRITE},    {"fs.make_sock", SBX_D_WRITE},
    {"fs.make_fifo", SBX_D_WRITE},   {"fs.make_block", SBX_D_DEVICE},
    {"fs.make_sym", SBX_D_WRITE},    {"fs.refer", SBX_D_WRITE},
    {"fs.truncate", SBX_D_WRITE},    {"fs.ioctl_dev", SBX_D_DEVICE},
    {"net.bind_tcp", SBX_D_NET},     {"net.connect_tcp", SBX_D_NET},
    {"scope.signal", SBX_D_SIGNAL},  {"scope.abstract_unix_socket", SBX_D_UNIX},
    {"ptrace", SBX_D_PTRACE},
};

static enum sbx_dclass sbx_classify(const char *blockers)
{
  size_t n = strcspn(blockers, ",");
  for (size_t i = 0; i < sizeof sbx_blockers / sizeof *sbx_blockers; i++)
    if (strlen(sbx_blockers[i].name) == n && strncmp(blockers, sbx_blockers[i].name, n) == 0)
      return sbx_blockers[i].cls;
  return SBX_D_OTHER;
}

static bool sbx_under(const char *path, const char *dir)
{
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/')
    return path[0] == '/';
  return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

void sbx_msg_append(char *msg, size_t len, const char *fmt, ...)
{
  size_t used = strnlen(msg, len);
  va_list ap;
  if (used + 1 >= len)
    return;
  va_start(ap, fmt);
  vsnprintf(msg + used, len - used, fmt, ap);
  va_end(ap);
}

/* Does a rule of `rules` (expanded) cover `path`? Returns the most specific. */
static const struct cs_path_rule *sbx_covering(const struct cs_path_rule *rules, uint32_t n,
                                               uint32_t access, const char *ws, const char *home,
                                               const char *path)
{
  const struct cs_path_rule *best = NULL;
  size_t best_len = 0;
  char exp[4096];
  for (uint32_t i = 0; i < n; i++) {
    if (access && !(rules[i].access & access))
      continue;
    if (!ws && strncmp(rules[i].path, "${WORKSPACE}", 12) == 0)
      continue; /* the workspace could not be resolved */
    if (sbx_expand_path(rules[i].path, ws, home, exp, sizeof exp) < 0)
      continue;
    if (sbx_under(path, exp) && (!best || strlen(exp) > best_len)) {
      best = &rules[i];
      best_len = strlen(exp);
    }
  }
  return best;
}

/* "execute: /usr (profiles.pol:37:29), /lib (...)" for every allowed rule
 * with `access`; "nowhere" when there is none. */
static void sbx_list_grants(char *buf, size_t len, const struct cs_profile *p, uint32_t access,
                            const char *word)
{
  unsigned shown = 0, more = 0;
  sbx_msg_append(buf, len, "%s is granted ", word);
  for (uint32_t i = 0; i < p->n_allowed_paths; i++) {
    if (!(p->allowed_paths[i].access & access))
      continue;
    if (shown == 6) {
      more++;
      continue;
    }
    sbx_msg_append(buf, len, "%s%s (%s)", shown ? ", " : "only under ", p->allowed_paths[i].path,
                   p->allowed_paths[i].origin ? p->allowed_paths[i].origin : "?");
    shown++;
  }
  if (!shown)
    sbx_msg_append(buf, len, "nowhere");
  if (more)
    sbx_msg_append(buf, len, " and %u more", more);
}

/* "WHY; WORD is granted only under ..." */
static void sbx_no_rule(char *buf, size_t len, const struct cs_profile *p, const char *why,
                        uint32_t access, const char *word)
{
  snprintf(buf, len, "%s; ", why);
  sbx_list_grants(buf, len, p, access, word);
}

static void sbx_profile_tag(char *buf, size_t len, const struct cs_profile *p)
{
  sbx_msg_append(buf, len, " (profile %s%s%s)", p->name ? p->name : "?", p->origin ? ", " : "",
                 p->origin ? p->origin : "");
}

/* What was refused, in words: the blockers and the object. */
static void sbx_what(const struct sbx_ll_record *r, enum sbx_dclass cls, char *path,
                     size_t path_len, char *out, size_t len)
{
  char a[256], b[64];
  snprintf(out, len, "%s", r->blockers);
  path[0] = '\0';
  if (sbx_audit_value(r->object, "path", path, path_len)) {
    /* An abstract unix socket's name starts with NUL (shown as '?' by
     * the decoder): the usual notation is '@'. */
    if (cls == SBX_D_UNIX && path[0] == '?')
      path[0] = '@';
    /* Creating, removing and renaming are checked on the directory, and
     * the record names the directory. */
    sbx_msg_append(out, len, "%s%s",
                   strncmp(r->blockers, "fs.make_", 8) == 0 ||
                           strncmp(r->blockers, "fs.remove_", 10) == 0 ||
                           strncmp(r->blockers, "fs.refer", 8) == 0
                       ? " in "
                       : " ",
                   path);
  } else if (cls == SBX_D_NET && sbx_audit_value(r->object, "dest", b, sizeof b)) {
    sbx_msg_append(out, len, " to %s port %s",
                   sbx_audit_value(r->object, "daddr", a, sizeof a) ? a : "?", b);
  } else if (cls == SBX_D_NET && sbx_audit_value(r->object, "src", b, sizeof b)) {
    sbx_msg_append(out, len, " on %s port %s",
                   sbx_audit_value(r->object, "saddr", a, sizeof a) ? a : "?", b);
  } else if (sbx_audit_value(r->object, "opid", b, sizeof b)) {
    sbx_msg_append(out, len, " to pid %s", b);
    if (sbx_audit_value(r->object, "ocomm", a, sizeof a))
      sbx_msg_append(out, len, " (%s)", a);
  } else if (r->object[0]) {
    sbx_msg_append(out, len, " %s", r->object);
  }
}

void sbx_denial_explain(const struct cs_profile *p, const char *workspace, const char *home,
                        const struct sbx_ll_record *r, struct sbx_denial *d)
{
  enum sbx_dclass cls = sbx_classify(r->blockers);
  char path[4096];
  const struct cs_path_rule *deny = NULL, *cover;
  char *rule = d->rule;
  size_t rl = sizeof d->rule;

  memset(d, 0, sizeof *d);
  sbx_what(r, cls, path, sizeof path, d->what, sizeof d->what);
  /* Files: EACCES (EXDEV for a refused rename across directories); the
   * scopes and the rest: EPERM, as the kernel returns them. */
  if (cls == SBX_D_SIGNAL || cls == SBX_D_UNIX || cls == SBX_D_PTRACE || cls == SBX_D_OTHER)
    d->action = "errno(EPERM)";
  else if (strstr(r->blockers, "fs.refer"))
    d->action = "errno(EXDEV)";
  else
    d->action = "errno(EACCES)";
  if (path[0] == '/')
    deny = sbx_covering(p->denied_paths, p->n_denied_paths, 0, workspace, home, path);
  if (deny && cls != SBX_D_UNIX) {
    snprintf(rule, rl, "denied path %s (%s)", deny->path, deny->origin ? deny->origin : "?");
    sbx_profile_tag(rule, rl, p);
    return;
  }
  switch (cls) {
  case SBX_D_EXEC:
    cover = path[0] == '/' ? sbx_covering(p->allowed_paths, p->n_allowed_paths, CS_PATH_EXEC,
                                          workspace, home, path)
                           : NULL;
    if (cover && p->shell == CS_SHELL_NONE)
      /* Under allowShell = none sbx grants EXECUTE file by file in the
       * bin directories and skips the shells (sbx_plan_shells). */
      snprintf(rule, rl,
               "allowShell = none: execute under %s (%s) is granted file by file, shells "
               "excluded, files present when the run started only",
               cover->path, cover->origin ? cover->origin : "?");
    else
      sbx_no_rule(rule, rl, p, "no execute rule covers the path", CS_PATH_EXEC, "execute");
    break;
  case SBX_D_WRITE:
    sbx_no_rule(rule, rl, p,
                p->allow_file_write ? "no write rule covers the path" : "allowFileWrite = false",
                CS_PATH_WRITE, "write");
    break;
  case SBX_D_DELETE:
    if (!p->allow_file_delete)
      snprintf(rule, rl, "allowFileDelete = false: nothing may be deleted or renamed away");
    else
      sbx_no_rule(rule, rl, p, "no write rule covers the path", CS_PATH_WRITE, "delete");
    break;
  case SBX_D_READ:
    sbx_no_rule(rule, rl, p, "no read rule covers the path", CS_PATH_READ, "read");
    break;
  case SBX_D_DEVICE:
    snprintf(rule, rl,
             "sbx grants no device creation and no device ioctl (IOCTL_DEV) in any "
             "profile");
    break;
  case SBX_D_NET:
    snprintf(rule, rl,
             p->allow_network ? "TCP port not granted by any rule"
                              : "allowNetwork = false: every TCP bind and connect "
                                "is refused");
    break;
  case SBX_D_SIGNAL:
    snprintf(rule, rl,
             "Landlock signal scoping (every profile): no signal to a process "
             "outside the sandbox");
    break;
  case SBX_D_UNIX:
    snprintf(rule, rl,
             "Landlock abstract unix socket scoping (every profile): no connection "
             "to a socket created outside the sandbox");
    break;
  case SBX_D_PTRACE:
    snprintf(rule, rl, "Landlock (every profile): no tracing of a process outside the sandbox");
    break;
  case SBX_D_OTHER:
    snprintf(rule, rl, "Landlock refused %s", r->blockers);
    break;
  }
  sbx_profile_tag(rule, rl, p);
}
