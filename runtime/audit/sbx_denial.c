/* sbx_denial: from a Landlock audit record to the rule of the profile
 * behind the refusal (sbx_denial.h). The record says what the kernel
 * refused ("blockers", the object); which statement of the profile made
 * that so is derived here from the profile's table, the same rules
 * the plan (runtime/plan/sbx_plan.c) turned into the Landlock ruleset. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sbx_denial.h"
#include "sbx_landlock_rights.h"
#include "sbx_plan.h"
#include "sbx_syscall_name.h"

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
  { "fs.execute", SBX_D_EXEC },      { "fs.write_file", SBX_D_WRITE },
  { "fs.read_file", SBX_D_READ },    { "fs.read_dir", SBX_D_READ },
  { "fs.remove_dir", SBX_D_DELETE }, { "fs.remove_file", SBX_D_DELETE },
  { "fs.make_char", SBX_D_DEVICE },  { "fs.make_dir", SBX_D_WRITE },
  { "fs.make_reg", SBX_D_WRITE },    { "fs.make_sock", SBX_D_WRITE },
  { "fs.make_fifo", SBX_D_WRITE },   { "fs.make_block", SBX_D_DEVICE },
  { "fs.make_sym", SBX_D_WRITE },    { "fs.refer", SBX_D_WRITE },
  { "fs.truncate", SBX_D_WRITE },    { "fs.ioctl_dev", SBX_D_DEVICE },
  { "net.bind_tcp", SBX_D_NET },     { "net.connect_tcp", SBX_D_NET },
  { "scope.signal", SBX_D_SIGNAL },  { "scope.abstract_unix_socket", SBX_D_UNIX },
  { "ptrace", SBX_D_PTRACE },
};

static enum sbx_dclass sbx_classify(const char *blockers)
{
  size_t n = strcspn(blockers, ",");
  for (size_t i = 0; i < sizeof sbx_blockers / sizeof *sbx_blockers; i++)
    if (strlen(sbx_blockers[i].name) == n && strncmp(blockers, sbx_blockers[i].name, n) == 0)
      return sbx_blockers[i].cls;
  return SBX_D_OTHER;
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
    if (sbx_path_under(path, exp) && (!best || strlen(exp) > best_len)) {
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

/* Landlock refuses every ioctl on a device the command opened (no
 * IOCTL_DEV right in any profile), and isatty() asks with TCGETS: on a
 * device that is no terminal the kernel would have said ENOTTY, isatty()
 * returns 0 either way, nothing changes for the command. Only those
 * devices: on a terminal (/dev/tty) the same refusal changes what the
 * command sees and is reported. */
static bool sbx_isatty_probe(const struct sbx_ll_record *r, const char *path)
{
  static const char *const not_terminals[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                               "/dev/urandom" };
  char cmd[32];
  if (strcmp(r->blockers, "fs.ioctl_dev") != 0 ||
      !sbx_audit_value(r->object, "ioctlcmd", cmd, sizeof cmd) || strcmp(cmd, "0x5401") != 0)
    return false;
  for (size_t i = 0; i < sizeof not_terminals / sizeof *not_terminals; i++)
    if (strcmp(path, not_terminals[i]) == 0)
      return true;
  return false;
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
  d->expected = sbx_isatty_probe(r, path);
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

/* An action's text without its condition: "errno(EPERM)". */
static void sbx_action_word(const char *action, char *out, size_t len)
{
  const char *a = action ? action : "?";
  const char *cond = strstr(a, " if ");
  snprintf(out, len, "%.*s", cond ? (int)(cond - a) : (int)strlen(a), a);
}

static void sbx_note_action(const struct cs_syscall_note *n, char *out, size_t len)
{
  sbx_action_word(n->action, out, len);
}

static bool sbx_note_conditional(const struct cs_syscall_note *n)
{
  return n->action && strstr(n->action, " if ");
}

/* Without the filter's return values (a profile written by hand): an
 * action refuses unless it allows, logs or hands the call to the
 * supervisor. */
static bool sbx_text_refuses(const char *action)
{
  static const char *const not_refusals[] = { "allow", "log", "notify" };
  char a[48];
  sbx_action_word(action, a, sizeof a);
  for (size_t i = 0; i < sizeof not_refusals / sizeof *not_refusals; i++)
    if (strcmp(a, not_refusals[i]) == 0)
      return false;
  return true;
}

/* The record's code in the .pol spelling, for when no rule of the profile
 * returns it. */
static void sbx_code_text(uint32_t code, char *out, size_t len)
{
  unsigned data = code & SECCOMP_RET_DATA;
  switch (code & SECCOMP_RET_ACTION_FULL) {
  case SECCOMP_RET_KILL_PROCESS:
    snprintf(out, len, "kill-process");
    break;
  case SECCOMP_RET_KILL_THREAD:
    snprintf(out, len, "kill-thread");
    break;
  case SECCOMP_RET_TRAP:
    snprintf(out, len, data ? "trap(%u)" : "trap", data);
    break;
  /* Linux (6.18) logs the action without its data: "errno", not which. */
  case SECCOMP_RET_ERRNO:
    snprintf(out, len, data ? "errno(%u)" : "errno", data);
    break;
  case SECCOMP_RET_TRACE:
    snprintf(out, len, "trace(%u)", data);
    break;
  default:
    snprintf(out, len, "0x%08x", code);
    break;
  }
}

/* "profiles.pol:110:5 (profile strict)", and who ran it when another
 * profile's statement wrote the rule (inherited). */
static void sbx_origin_of(char *buf, size_t len, const struct cs_profile *p, const char *origin)
{
  char tag[96];
  snprintf(tag, sizeof tag, "(profile %s)", p->name ? p->name : "?");
  sbx_msg_append(buf, len, "%s", origin ? origin : "?");
  if (origin && p->name && !strstr(origin, tag))
    sbx_msg_append(buf, len, " inherited by profile %s", p->name);
}

/* Could a rule returning `ret` have made a record with `code`? The kernel
 * logs the action (code=0x50000 for any errno) and, on kernels that do,
 * its data: compared as far as the record tells. */
static bool sbx_ret_matches(uint32_t ret, uint32_t code)
{
  if (code & SECCOMP_RET_DATA)
    return ret == code;
  return (ret & SECCOMP_RET_ACTION_FULL) == (code & SECCOMP_RET_ACTION_FULL);
}

#define SBX_SC_CANDIDATES 8

void sbx_seccomp_explain(const struct cs_profile *p, const struct sbx_sc_record *r, bool first_rule,
                         struct sbx_sc_denial *d)
{
  const struct cs_syscall_note *cand[SBX_SC_CANDIDATES];
  const struct cs_syscall_note *first = NULL;
  size_t n = 0, more = 0;
  bool reach_default = true, by_default = false, all_enosys = true, foreign;
  const uint32_t enosys = SECCOMP_RET_ERRNO | ENOSYS;

  memset(d, 0, sizeof *d);
  d->nr = r->syscall;
  d->arch = r->arch;
  d->pid = r->pid;
  d->sig = r->sig;
  sbx_code_text(r->code, d->action, sizeof d->action);
  if (first_rule) {
    /* The naming before this fix, for the tests' negative control: the
     * x86_64 table whatever the ABI, the number's first note. */
    for (uint32_t i = 0; i < p->n_syscall_notes && !first; i++)
      if (p->syscall_notes[i].nr == r->syscall)
        first = &p->syscall_notes[i];
    d->arch = 0;
    sbx_syscall_name(r->syscall, d->name, sizeof d->name);
    snprintf(d->what, sizeof d->what, "%s (nr %d) in pid %ld", d->name, r->syscall, r->pid);
    d->note = first;
    if (first) {
      snprintf(d->rule, sizeof d->rule, "%s", first->origin ? first->origin : "?");
      sbx_note_action(first, d->action, sizeof d->action);
    } else {
      snprintf(d->rule, sizeof d->rule, "default action");
      snprintf(d->action, sizeof d->action, "%s", p->default_action ? p->default_action : "?");
    }
    return;
  }
  /* Another ABI's number (i386 through int 0x80, x32's numbers with
   * __X32_SYSCALL_BIT) is not a number of this filter's table: the filter
   * kills every such call before it looks at the rules
   * (docs/bpf-layout.md). A record of one that was not killed is another
   * filter's. */
  foreign = (r->arch && r->arch != AUDIT_ARCH_X86_64) ||
            (r->syscall != -1 && (uint32_t)r->syscall >= 0x40000000u);
  if (r->arch && r->arch != AUDIT_ARCH_X86_64) {
    snprintf(d->name, sizeof d->name, "call %d of arch=%x", r->syscall, (unsigned)r->arch);
    snprintf(d->what, sizeof d->what, "call %d of ABI arch=%x in pid %ld", r->syscall,
             (unsigned)r->arch, r->pid);
  } else if (foreign) {
    snprintf(d->name, sizeof d->name, "x32 call %d", r->syscall & ~0x40000000);
    snprintf(d->what, sizeof d->what, "%s in pid %ld", d->name, r->pid);
  }
  if (foreign) {
    if ((r->code & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_KILL_PROCESS)
      snprintf(d->rule, sizeof d->rule,
               "the ABI check: a call of any ABI but x86_64 is killed (every profile)");
    else
      snprintf(d->rule, sizeof d->rule,
               "no rule of the profile returns %s for another ABI's call: another seccomp "
               "filter (one the command loaded itself?) decided",
               d->action);
    sbx_profile_tag(d->rule, sizeof d->rule, p);
    return;
  }
  sbx_syscall_name(r->syscall, d->name, sizeof d->name);
  snprintf(d->what, sizeof d->what, "%s (nr %d) in pid %ld", d->name, r->syscall, r->pid);

  /* The call's rules in the order the filter tries them: its conditional
   * rules, then its unconditional one, which ends the search (nothing
   * after it, nor the default, can decide). Of those, the ones that
   * return what the kernel logged may have decided; the record has no
   * arguments to tell the conditions apart. */
  for (uint32_t i = 0; i < p->n_syscall_notes; i++) {
    const struct cs_syscall_note *note = &p->syscall_notes[i];
    bool same;
    if (note->nr != r->syscall)
      continue;
    same = p->rets_known ? sbx_ret_matches(note->ret, r->code) : sbx_text_refuses(note->action);
    if (same) {
      if (n < SBX_SC_CANDIDATES)
        cand[n++] = note;
      else
        more++;
      if (!p->rets_known || note->ret != enosys)
        all_enosys = false;
    }
    if (!sbx_note_conditional(note)) {
      reach_default = false;
      break;
    }
  }
  if (reach_default)
    by_default = p->rets_known ? sbx_ret_matches(p->default_ret, r->code)
                               : sbx_text_refuses(p->default_action);

  if (n == 1 && !by_default) {
    d->note = cand[0];
    sbx_origin_of(d->rule, sizeof d->rule, p, cand[0]->origin);
    if (p->rets_known)
      sbx_note_action(cand[0], d->action, sizeof d->action);
  } else if (n == 0 && by_default) {
    snprintf(d->rule, sizeof d->rule, "default action");
    sbx_profile_tag(d->rule, sizeof d->rule, p);
    if (p->default_action && p->rets_known)
      snprintf(d->action, sizeof d->action, "%s", p->default_action);
  } else if (n > 0) {
    /* Several rules return the same and the record cannot tell which
     * condition held: all of them, and never one that returns anything
     * else. */
    snprintf(d->rule, sizeof d->rule, "one of ");
    for (size_t i = 0; i < n; i++) {
      if (i)
        sbx_msg_append(d->rule, sizeof d->rule, ", ");
      sbx_origin_of(d->rule, sizeof d->rule, p, cand[i]->origin);
    }
    if (more)
      sbx_msg_append(d->rule, sizeof d->rule, " and %zu more", more);
    if (by_default)
      sbx_msg_append(d->rule, sizeof d->rule, " or the default action (profile %s)",
                     p->name ? p->name : "?");
    sbx_msg_append(d->rule, sizeof d->rule, " (the record does not carry the arguments)");
    /* Their action when they all have the same one. */
    if (p->rets_known && !by_default) {
      bool same_ret = true;
      for (size_t i = 1; i < n; i++)
        same_ret = same_ret && cand[i]->ret == cand[0]->ret;
      if (same_ret)
        sbx_note_action(cand[0], d->action, sizeof d->action);
    }
  } else {
    /* Nothing in the profile that ran returns this: a filter stacked on
     * sbx's decided (the command may load its own). Naming a rule of ours
     * here would be a guess. */
    snprintf(d->rule, sizeof d->rule,
             "no rule of the profile returns %s for this call: another seccomp filter "
             "(one the command loaded itself?) decided",
             d->action);
    sbx_profile_tag(d->rule, sizeof d->rule, p);
  }
  /* A documented fallback (errno(ENOSYS) rules: clone3, io_uring) is
   * expected, whichever of them decided; the default action never is. */
  d->expected = p->rets_known && n > 0 && !by_default && all_enosys && r->sig == 0;
}
