/* cs_cmdrule: command-level approval rules and the names of the
 * operations they guard (cs_cmdrule.h, docs/approvals.md "Command
 * rules"). The rules see the command line sbx was asked to run, looking through wrappers (env, nice, timeout, sudo,
 * ...); what a shell or a program does later is the system-call layer's
 * job (sbx_unotify.c). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "cs_cmdrule.h"

/* grep tag: CS_APPROVAL_OPERATION (cs_approval_ops.h) */
static const char *const cs_approval_op_names[] = {
  [CS_APPROVAL_OP_DELETE] = "delete", [CS_APPROVAL_OP_NETWORK] = "network",
  [CS_APPROVAL_OP_SUDO] = "sudo",     [CS_APPROVAL_OP_GIT_CONFIG] = "git-config",
  [CS_APPROVAL_OP_EXEC] = "exec",
};
_Static_assert(sizeof cs_approval_op_names / sizeof cs_approval_op_names[0] ==
                   CS_APPROVAL_OP_COUNT_,
               "one name per enum cs_approval_operation (grep CS_APPROVAL_OPERATION)");

const char *cs_approval_op_name(enum cs_approval_operation op)
{
  if ((unsigned)op >= CS_APPROVAL_OP_COUNT_)
    return "?";
  return cs_approval_op_names[op];
}

int cs_approval_op_parse(const char *name, enum cs_approval_operation *op)
{
  for (unsigned i = 0; name && i < CS_APPROVAL_OP_COUNT_; i++)
    if (strcmp(name, cs_approval_op_names[i]) == 0) {
      *op = (enum cs_approval_operation)i;
      return 0;
    }
  return -EINVAL;
}

#define EX(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* grep tag: CS_CMDRULES_BUILTIN. Each rule carries examples that must and
 * must not match; the unit test (approvals_units) checks all of them. */
const struct cs_cmdrule cs_cmdrules_builtin[] = {
  { "rm", "rm", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin",
    EX("rm a.txt", "rm -rf build", "/bin/rm -f x"), EX("rmdir x", "echo rm") },
  { "rmdir", "rmdir", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin", EX("rmdir d"),
    EX("mkdir d") },
  { "unlink", "unlink", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin", EX("unlink f"),
    EX("link a b") },
  { "shred", "shred", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin", EX("shred -u f"),
    NULL },
  { "find -delete", "find", "-delete", CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin",
    EX("find . -name *.o -delete"), EX("find . -name *.o", "find . -name -deleted") },
  { "find -exec rm", "find", "-exec rm", CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin",
    EX("find . -exec rm {} ;"), EX("find . -exec ls {} ;") },
  { "git clean", "git", "clean", CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin",
    EX("git clean -fdx", "git -C repo clean -f"), EX("git status", "git commit -m clean") },
  { "git rm", "git", "rm", CS_CMDRULE_ASK, CS_APPROVAL_OP_DELETE, "builtin", EX("git rm a.c"),
    EX("git add rm") },
  { "sudo", "sudo", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_SUDO, "builtin",
    EX("sudo make install", "/usr/bin/sudo -u root id"), EX("sudoedit-like-not") },
  { "su", "su", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_SUDO, "builtin", EX("su -", "su root"),
    EX("sum f") },
  { "doas", "doas", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_SUDO, "builtin", EX("doas id"), NULL },
  { "pkexec", "pkexec", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_SUDO, "builtin", EX("pkexec id"),
    NULL },
  { "run0", "run0", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_SUDO, "builtin", EX("run0 id"), NULL },
  { "git config", "git", "config", CS_CMDRULE_ASK, CS_APPROVAL_OP_GIT_CONFIG, "builtin",
    EX("git config user.name x", "git config --global core.editor vi"),
    EX("git status", "git log") },
  { "git remote add", "git", "remote add", CS_CMDRULE_ASK, CS_APPROVAL_OP_GIT_CONFIG, "builtin",
    EX("git remote add origin https://example.org/r.git"), EX("git remote -v") },
  { "git remote set-url", "git", "remote set-url", CS_CMDRULE_ASK, CS_APPROVAL_OP_GIT_CONFIG,
    "builtin", EX("git remote set-url origin x"), EX("git remote show origin") },
  { "curl", "curl", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("curl https://example.org"), NULL },
  { "wget", "wget", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("wget -q https://example.org/f"), NULL },
  { "ssh", "ssh", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("ssh host ls"),
    EX("ssh-keygen -t ed25519") },
  { "scp", "scp", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("scp a host:b"),
    NULL },
  { "sftp", "sftp", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("sftp host"),
    NULL },
  { "rsync", "rsync", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("rsync -a src host:dst"), NULL },
  { "nc", "nc", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("nc host 80"), NULL },
  { "ncat", "ncat", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("ncat host 80"),
    NULL },
  { "telnet", "telnet", NULL, CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin", EX("telnet host"),
    NULL },
  { "git clone", "git", "clone", CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("git clone https://example.org/r.git"), EX("git status") },
  { "git fetch", "git", "fetch", CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("git fetch origin"), NULL },
  { "git pull", "git", "pull", CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("git pull --rebase"), NULL },
  { "git push", "git", "push", CS_CMDRULE_ASK, CS_APPROVAL_OP_NETWORK, "builtin",
    EX("git push origin main"), EX("git stash push") },
};
const size_t cs_cmdrules_builtin_count = sizeof cs_cmdrules_builtin / sizeof cs_cmdrules_builtin[0];

static const char *cs_base(const char *p)
{
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* One pattern word against one argument (see struct cs_cmdrule). */
static bool cs_word_matches(const char *pat, size_t plen, const char *arg)
{
  char p[256];
  if (plen >= sizeof p)
    return false;
  memcpy(p, pat, plen);
  p[plen] = '\0';
  if (strcmp(p, arg) == 0)
    return true;
  /* "-r" also matches the bundle "-rf": rm -rf is rm -r -f. */
  if (plen == 2 && p[0] == '-' && p[1] != '-' && arg[0] == '-' && arg[1] && arg[1] != '-') {
    for (const char *c = arg + 1; *c; c++)
      if (*c == p[1])
        return true;
    return false;
  }
  /* "--opt" also matches "--opt=value". */
  if (plen > 2 && p[0] == '-' && p[1] == '-' && strncmp(arg, p, plen) == 0 && arg[plen] == '=')
    return true;
  return fnmatch(p, arg, 0) == 0;
}

/* Global options (before a sub-command) whose value is the next word. */
static const char *const cs_value_options[] = { "-C",           "-c",          "--git-dir",
                                                "--work-tree",  "--namespace", "--exec-path",
                                                "--config-env", NULL };

bool cs_cmdrule_matches(const struct cs_cmdrule *r, char *const *argv)
{
  const char *pat;
  size_t ai = 1;

  if (!r || !argv || !argv[0])
    return false;
  if (strcmp(r->program, "*") != 0 && fnmatch(r->program, cs_base(argv[0]), 0) != 0)
    return false;
  pat = r->args ? r->args : "";
  while (*pat == ' ')
    pat++;
  /* A leading word is a sub-command ("git clean"): it must be the first
   * operand, not any later argument ("git commit -m clean" is no clean).
   * Global options taking a separate value (git -C DIR, -c K=V) are
   * skipped with their value. */
  if (*pat && *pat != '-') {
    size_t len = strcspn(pat, " ");
    while (argv[ai] && argv[ai][0] == '-') {
      bool takes_value = false;
      for (size_t k = 0; cs_value_options[k]; k++)
        if (strcmp(argv[ai], cs_value_options[k]) == 0)
          takes_value = true;
      ai += takes_value && argv[ai + 1] ? 2 : 1;
    }
    if (!argv[ai] || !cs_word_matches(pat, len, argv[ai]))
      return false;
    ai++;
    pat += len;
  }
  for (;;) {
    size_t len;
    bool found = false;
    while (*pat == ' ')
      pat++;
    if (!*pat)
      return true;
    len = strcspn(pat, " ");
    /* In order: "remote add" needs add after remote. */
    for (; argv[ai]; ai++)
      if (cs_word_matches(pat, len, argv[ai])) {
        found = true;
        ai++;
        break;
      }
    if (!found)
      return false;
    pat += len;
  }
}

/* Programs that run another command given in their arguments. Their
 * options differ (nice -n N, timeout -s SIG DURATION, sudo -u USER, env
 * VAR=VALUE, xargs -I R): instead of parsing each, every later word is
 * tried as the start of the wrapped command, so `nice -n 5 rm x` is an
 * rm. This errs towards asking (`timeout 5 ls rm` asks about rm). */
static bool cs_is_wrapper(const char *prog)
{
  static const char *const w[] = { "env",     "nice",    "ionice",  "stdbuf",  "timeout", "xargs",
                                   "sudo",    "doas",    "nohup",   "command", "exec",    "time",
                                   "setsid",  "chroot",  "unshare", "flock",   "nsenter", "chrt",
                                   "taskset", "builtin", "run0",    "pkexec",  NULL };
  for (size_t i = 0; w[i]; i++)
    if (strcmp(prog, w[i]) == 0)
      return true;
  return false;
}

static void cs_cmdrule_eval(const struct cs_cmdrule *rules, size_t n, char *const *argv,
                            uint32_t approval_ops, int depth, struct cs_cmdrule_result *out)
{
  for (size_t i = 0; i < n; i++) {
    enum cs_cmdrule_action a;
    if (!cs_cmdrule_matches(&rules[i], argv))
      continue;
    a = rules[i].action;
    /* An ask for an operation the profile does not offer to approve is a
     * deny: the caller passes only the operations that need a human (a
     * profile that simply permits an operation gets no rule for it, see
     * sbx_approve.c). */
    if (a == CS_CMDRULE_ASK && rules[i].operation != CS_APPROVAL_OP_EXEC &&
        !(approval_ops & CS_APPROVAL_OP_BIT(rules[i].operation)))
      a = CS_CMDRULE_DENY;
    if (!out->rule || a > out->action) {
      out->action = a;
      out->rule = &rules[i];
    }
  }
  /* Nested wrappers (sudo env nice rm) are bounded by the depth. */
  if (depth < 8 && cs_is_wrapper(cs_base(argv[0])))
    for (size_t k = 1; argv[k]; k++)
      cs_cmdrule_eval(rules, n, argv + k, approval_ops, depth + 1, out);
}

int cs_cmdrule_match(const struct cs_cmdrule *rules, size_t n, char *const *argv,
                     uint32_t approval_ops, struct cs_cmdrule_result *out)
{
  if (!argv || !argv[0] || !out || (n && !rules))
    return -EINVAL;
  out->action = CS_CMDRULE_ALLOW;
  out->rule = NULL;
  cs_cmdrule_eval(rules, n, argv, approval_ops, 0, out);
  return 0;
}

int cs_cmdrule_split(const char *text, char *buf, size_t buf_len, char **argv, size_t max)
{
  size_t n = 0;
  char *p;

  if (!text || strlen(text) >= buf_len || max < 2)
    return -EINVAL;
  memcpy(buf, text, strlen(text) + 1);
  for (p = strtok(buf, " "); p && n + 1 < max; p = strtok(NULL, " "))
    argv[n++] = p;
  if (p)
    return -E2BIG;
  argv[n] = NULL;
  return n ? (int)n : -EINVAL;
}

int cs_cmdrule_check_examples(const struct cs_cmdrule *rules, size_t n, char *why, size_t why_len)
{
  char buf[512];
  char *argv[33];

  for (size_t i = 0; i < n; i++) {
    for (int want = 1; want >= 0; want--) {
      const char *const *ex = want ? rules[i].must_match : rules[i].must_not_match;
      for (size_t k = 0; ex && ex[k]; k++) {
        if (cs_cmdrule_split(ex[k], buf, sizeof buf, argv, 33) < 0 ||
            cs_cmdrule_matches(&rules[i], argv) != (bool)want) {
          snprintf(why, why_len, "rule '%s' (%s): example \"%s\" %s", rules[i].name,
                   rules[i].origin ? rules[i].origin : "?", ex[k],
                   want ? "must match but does not" : "must not match but does");
          return -EPROTO;
        }
      }
    }
  }
  return 0;
}
