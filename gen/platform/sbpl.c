/* sbpl: a profile as a Seatbelt profile for macOS sandbox-exec
 * (docs/platforms.md, "Seatbelt").
 *
 * Shape of the output: (version 1), (deny default), the few things every
 * macOS command needs to start (the dynamic loader's files, sysctls, mach
 * services, the terminal), then the profile's own path rules, home entries
 * and network. Every allow that grants a path carries the profile's denied
 * paths as a (require-not ...) inside it, so a denied path lies outside
 * every allowed subtree whatever order Seatbelt weighs rules in; explicit
 * denies at the end say it a second time. The workspace and the home are
 * parameters (sandbox-exec -D), never paths of the machine pnetc ran on. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "platform_emit.h"
#include "platform_policy.h"
#include "c_text.h"

/* A string literal; Seatbelt reads profiles with a Scheme reader, where
 * only the quote and the backslash need escaping. */
static void sbpl_string(FILE *out, const char *prefix, const char *s)
{
  fputc('"', out);
  for (const char *parts[2] = { prefix, s }, **p = parts; p < parts + 2; p++)
    for (const char *c = *p; c && *c; c++) {
      if (*c == '"' || *c == '\\')
        fputc('\\', out);
      fputc(*c, out);
    }
  fputc('"', out);
}

/* Comment text: one line (controls become '_'). */
static void sbpl_comment(FILE *out, const char *s)
{
  (void)text_c_comment(out, s);
}

/* macOS keeps /etc, /tmp and /var under /private behind symbolic links,
 * and Seatbelt matches the resolved path: a rule for "/etc" alone would
 * match nothing there. */
static bool sbpl_has_private_alias(const char *path)
{
  return platform_path_within(path, "/etc") || platform_path_within(path, "/tmp") ||
         platform_path_within(path, "/var");
}

/* (subpath EXPR) for a policy path: ${WORKSPACE} and ~ become the
 * parameters WORKSPACE and HOME; an absolute path under /etc, /tmp or
 * /var also gets its /private spelling. */
static void sbpl_subpath(FILE *out, const char *path)
{
  const char *param = NULL, *rest = path;
  if (strncmp(path, "${WORKSPACE}", 12) == 0) {
    param = "WORKSPACE";
    rest = path + 12;
  } else if (path[0] == '~') {
    param = "HOME";
    rest = path + 1;
  }
  fputs("(subpath ", out);
  if (param && *rest) {
    fprintf(out, "(string-append (param \"%s\") ", param);
    sbpl_string(out, NULL, rest);
    fputc(')', out);
  } else if (param) {
    fprintf(out, "(param \"%s\")", param);
  } else {
    sbpl_string(out, NULL, path);
  }
  fputc(')', out);
  if (!param && sbpl_has_private_alias(path)) {
    fputs(" (subpath ", out);
    sbpl_string(out, "/private", path);
    fputc(')', out);
  }
}

/* The shells a shell-less profile withholds, matched by the last path
 * component wherever the file lies (a copy in the workspace included). */
static void sbpl_shell_regex(FILE *out)
{
  fputs("(regex #\"/(", out);
  for (size_t i = 0; platform_shell_names[i]; i++)
    fprintf(out, "%s%s", i ? "|" : "", platform_shell_names[i]);
  fputs(")$\")", out);
}

/* Whether a denied rule takes away any of `access` somewhere inside (or
 * above) `path`: only those need naming in the allow for path. */
static bool sbpl_denied_touches(const struct pol_path_rule *d, const char *path, uint32_t access)
{
  if (!(d->access & access))
    return false;
  if (path[0] == '/' && d->path[0] == '/')
    return platform_path_within(d->path, path) || platform_path_within(path, d->path);
  /* Parameters are distinct roots unless spelled alike: a denied "~/x"
   * cannot be proved outside "${WORKSPACE}" (the workspace may be the
   * home), so it is named; naming too many only costs a filter. */
  return true;
}

/* The paths of one access group: the profile's rules with that access
 * bit, and the home entries that get it. */
struct sbpl_group {
  const struct pol_path_rule **rules; /* room for every path rule of the profile */
  size_t n;
};

static void sbpl_group_add(struct sbpl_group *g, const struct pol_path_rule *r)
{
  g->rules[g->n++] = r;
}

/* Whether denied rule d must be named in the allow for group g (NULL:
 * the whole file system). */
static bool sbpl_group_excludes(const struct pol_path_rule *d, const struct sbpl_group *g,
                                uint32_t access)
{
  bool touches = !g;
  for (size_t k = 0; g && k < g->n && !touches; k++)
    touches = sbpl_denied_touches(d, g->rules[k]->path, access);
  return touches && (d->access & access);
}

/* (allow OPS FILTER) with the denied paths (and, for execution in a
 * shell-less profile, the shells) excluded from FILTER; FILTER is the
 * group's paths, or the whole file system when g is NULL. */
static void sbpl_allow_group(FILE *out, const struct pol_profile *p, const char *ops,
                             const struct sbpl_group *g, uint32_t access)
{
  size_t n = 0;
  for (size_t i = 0; i < p->n_denied; i++)
    n += sbpl_group_excludes(&p->denied[i], g, access);
  bool no_shells = (access & CS_PATH_EXEC) && p->shell == CS_SHELL_NONE;
  bool exclude = n || no_shells;
  /* Each path line ends in a comment naming its rule, so every closing
   * parenthesis goes on a line of its own. */
  fprintf(out, "(allow %s", ops);
  if (exclude)
    fputs("\n  (require-all", out);
  if (g) {
    fputs(exclude ? "\n   (require-any" : "", out);
    for (size_t k = 0; k < g->n; k++) {
      fputs(exclude ? "\n    " : "\n  ", out);
      sbpl_subpath(out, g->rules[k]->path);
      fputs(" ; ", out);
      text_c_comment(out, g->rules[k]->origin);
    }
    fputs(exclude ? "\n   )" : "", out);
  }
  if (exclude) {
    fputs("\n   (require-not (require-any", out);
    for (size_t i = 0; i < p->n_denied; i++)
      if (sbpl_group_excludes(&p->denied[i], g, access)) {
        fputs("\n    ", out);
        sbpl_subpath(out, p->denied[i].path);
        fputs(" ; denied, ", out);
        text_c_comment(out, p->denied[i].origin);
      }
    if (no_shells) {
      fputs("\n    ", out);
      sbpl_shell_regex(out);
      fputs(" ; allowShell = none", out);
    }
    fputs("\n   ))\n  )", out);
  }
  fputs("\n)\n", out);
}

/* Write operations: all of them, or, when the profile refuses deletion,
 * every one but unlink (Seatbelt's file-write-unlink covers unlink,
 * rmdir and the source of a rename). */
static const char *sbpl_write_ops(const struct pol_profile *p)
{
  return p->allow_file_delete ? "file-write*"
                              : "file-write-create file-write-data file-write-flags "
                                "file-write-mode file-write-times file-write-xattr";
}

static void sbpl_banner(FILE *out, const struct platform_input *in)
{
  const struct pol_profile *p = in->profile;
  platform_banner(out, in, "Seatbelt profile for macOS sandbox-exec", "sbpl", ";; ", sbpl_comment);
  fputs(";;\n;; Run (WORKSPACE and HOME must be real paths: Seatbelt matches after\n"
        ";; resolving symbolic links, so a path through a link matches nothing):\n;;\n",
        out);
  bool proxied = p->allow_network && p->net_mode == CS_NET_PROXY;
  if (proxied)
    fputs(";;   HTTPS_PROXY=http://localhost:PORT HTTP_PROXY=http://localhost:PORT \\\n", out);
  fputs(";;   sandbox-exec -D WORKSPACE=\"$(pwd -P)\" -D HOME=\"$(cd ~ && pwd -P)\" \\\n;;     ",
        out);
  if (proxied)
    fputs("-D PROXY_PORT=PORT ", out);
  fputs("-f ", out);
  sbpl_comment(out, p->name);
  fputs(".sb COMMAND [ARG...]\n", out);
  if (proxied)
    fputs(";;\n;; PORT is a local proxy that enforces the profile's network rules by\n"
          ";; name (the rules are listed below); Seatbelt lets the command reach\n"
          ";; that port on localhost and nothing else.\n",
          out);
  fprintf(out,
          ";;\n;; Not expressed by Seatbelt (docs/platforms.md): the system-call filter\n"
          ";; (%zu rules, default ",
          p->nrules);
  text_c_comment(out, p->default_text);
  fputs("), the limits, the approvals and command rules,\n"
        ";; the private home (the real home's listed entries are granted instead).\n",
        out);
}

/* What a command needs before it runs a line of its own: dyld and the
 * system libraries, a few sysctls libSystem reads at start, the logging
 * and notification services, time zone and locale data. Facts from
 * Apple's own profiles (/System/Library/Sandbox/Profiles) and from what
 * sandbox-exec users report a plain `ls` needs. */
static void sbpl_base(FILE *out, const struct pol_profile *p)
{
  fputs("\n;; ---- what every macOS process needs to start ----\n"
        "(allow process-fork)\n"
        "(allow signal (target same-sandbox))\n"
        "(allow process-info* (target same-sandbox))\n"
        "(allow sysctl-read\n"
        "  (sysctl-name-prefix \"hw.\")\n"
        "  (sysctl-name \"kern.argmax\") (sysctl-name \"kern.hostname\")\n"
        "  (sysctl-name \"kern.maxfilesperproc\") (sysctl-name \"kern.ngroups\")\n"
        "  (sysctl-name \"kern.osproductversion\") (sysctl-name \"kern.osrelease\")\n"
        "  (sysctl-name \"kern.ostype\") (sysctl-name \"kern.osversion\")\n"
        "  (sysctl-name \"kern.usrstack64\") (sysctl-name \"kern.version\")\n"
        "  (sysctl-name \"sysctl.proc_cputype\"))\n"
        "(allow mach-lookup\n"
        "  (global-name \"com.apple.system.logger\")\n"
        "  (global-name \"com.apple.system.notification_center\")\n"
        "  (global-name \"com.apple.system.opendirectoryd.libinfo\"))\n"
        "(allow ipc-posix-sem)\n"
        "(allow user-preference-read)\n",
        out);
  /* The loader maps libraries executable; these trees hold only the
   * system's own code and data, never a user's secrets. */
  fputs("(allow file-read* file-map-executable\n"
        "  (subpath \"/System/Library\") (subpath \"/System/Volumes/Preboot/Cryptexes\")\n"
        "  (subpath \"/usr/lib\") (subpath \"/private/var/db/dyld\"))\n"
        "(allow file-read*\n"
        "  (subpath \"/usr/share\") (subpath \"/private/var/db/timezone\")\n"
        "  (literal \"/private/etc/localtime\") (literal \"/dev/urandom\")\n"
        "  (literal \"/dev/random\") (literal \"/dev/null\") (literal \"/dev/zero\"))\n",
        out);
  /* Path lookups stat every component on the way (getcwd, realpath):
   * metadata, never contents, and still none of a denied path. */
  sbpl_allow_group(out, p, "file-read-metadata", NULL, CS_PATH_READ);
  /* The terminal only when the profile lets the command write to it. */
  if (platform_grants(p, "/dev/tty", CS_PATH_WRITE))
    fputs("(allow pseudo-tty)\n"
          "(allow file-read* file-write-data file-ioctl\n"
          "  (literal \"/dev/tty\") (literal \"/dev/ptmx\") (regex #\"^/dev/ttys[0-9]+$\"))\n",
          out);
}

static int sbpl_paths(FILE *out, const struct pol_profile *p)
{
  size_t most = p->n_allowed + p->n_home_ro + p->n_home_persist;
  const struct pol_path_rule **room = calloc(3 * (most ? most : 1), sizeof *room);
  if (!room)
    return -ENOMEM;
  struct sbpl_group read = { room, 0 }, write = { room + most, 0 }, exec = { room + 2 * most, 0 };
  for (size_t i = 0; i < p->n_allowed; i++) {
    const struct pol_path_rule *r = &p->allowed[i];
    if (r->access & CS_PATH_READ)
      sbpl_group_add(&read, r);
    if (r->access & CS_PATH_WRITE)
      sbpl_group_add(&write, r);
    if (r->access & CS_PATH_EXEC)
      sbpl_group_add(&exec, r);
  }
  /* sbx shows these entries of the real home in a private one; here the
   * real entries are granted, and nothing else of the home. */
  for (size_t i = 0; i < p->n_home_ro; i++)
    sbpl_group_add(&read, &p->home_ro[i]);
  for (size_t i = 0; i < p->n_home_persist; i++) {
    sbpl_group_add(&read, &p->home_persist[i]);
    sbpl_group_add(&write, &p->home_persist[i]);
  }
  fputs("\n;; ---- the profile's paths (and the home entries it lists) ----\n", out);
  if (read.n)
    sbpl_allow_group(out, p, "file-read*", &read, CS_PATH_READ);
  if (write.n)
    sbpl_allow_group(out, p, sbpl_write_ops(p), &write, CS_PATH_WRITE);
  if (exec.n)
    sbpl_allow_group(out, p, "process-exec file-map-executable", &exec, CS_PATH_EXEC);
  free(room);
  return 0;
}

static void sbpl_net_list(FILE *out, const char *what, const struct pol_net_rule *r, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    fprintf(out, ";;   %s ", what);
    text_c_comment(out, r[i].pattern);
    fputs("  (", out);
    text_c_comment(out, r[i].origin);
    fputs(")\n", out);
  }
}

static void sbpl_network(FILE *out, const struct pol_profile *p)
{
  fputs("\n;; ---- network ----\n", out);
  if (!p->allow_network) {
    fputs(";; none: (deny default) refuses every network operation\n", out);
    return;
  }
  if (p->net_mode == CS_NET_PROXY) {
    /* Seatbelt filters by address and port, never by name: the names are
     * the proxy's job, and the command may reach nothing but the proxy. */
    fputs(";; through the local proxy only; the proxy must enforce, by name:\n", out);
    sbpl_net_list(out, "allow", p->net_allow, p->n_net_allow);
    sbpl_net_list(out, "deny ", p->net_deny, p->n_net_deny);
    sbpl_net_list(out, "local", p->net_local, p->n_net_local);
    fprintf(out, ";;   rest  %s\n", p->net_rest == CS_NET_REST_ASK ? "ask" : "deny");
    fputs("(allow network-outbound\n"
          "  (remote ip (string-append \"localhost:\" (param \"PROXY_PORT\"))))\n",
          out);
    return;
  }
  fputs(";; direct: the host's network, as the profile says\n"
        "(allow network-outbound network-inbound network-bind system-socket)\n"
        "(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n",
        out);
}

static void sbpl_denials(FILE *out, const struct pol_profile *p)
{
  if (!p->n_denied && p->shell != CS_SHELL_NONE)
    return;
  fputs("\n;; ---- refused whatever was allowed above ----\n", out);
  for (size_t i = 0; i < p->n_denied; i++) {
    const struct pol_path_rule *d = &p->denied[i];
    fputs("(deny", out);
    if (d->access & CS_PATH_READ)
      fputs(" file-read*", out);
    if (d->access & CS_PATH_WRITE)
      fputs(" file-write*", out);
    if (d->access & CS_PATH_EXEC)
      fputs(" process-exec", out);
    fputc(' ', out);
    sbpl_subpath(out, d->path);
    fputs(")\n", out);
  }
  if (p->shell == CS_SHELL_NONE) {
    fputs(";; no shell: the profile says allowShell = none\n(deny process-exec ", out);
    sbpl_shell_regex(out);
    fputs(")\n", out);
  }
}

int emit_sbpl(FILE *out, const struct platform_input *in)
{
  const struct pol_profile *p = in->profile;
  sbpl_banner(out, in);
  fputs("\n(version 1)\n(deny default)\n", out);
  sbpl_base(out, p);
  int rc = sbpl_paths(out, p);
  if (rc)
    return rc;
  sbpl_network(out, p);
  sbpl_denials(out, p);
  return text_stream_status(out);
}
