/* sbx_explain: the plain-words view of a profile (see sbx_explain.h). */
#include "sbx_explain.h"

#include <inttypes.h>

#include "sbx_plan.h"

const char *sbx_explain_bytes(char *buf, size_t size, uint64_t bytes)
{
  static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
  unsigned u = 0;
  uint64_t v = bytes;

  /* Only exact multiples are shortened: an auditor must read the real
   * number, not a rounded one. */
  while (v >= 1024 && v % 1024 == 0 && u + 1 < sizeof(units) / sizeof(units[0])) {
    v /= 1024;
    u++;
  }
  snprintf(buf, size, "%" PRIu64 " %s", v, units[u]);
  return buf;
}

static const char *sbx_explain_shell(enum cs_shell_policy s)
{
  switch (s) {
  case CS_SHELL_NONE:
    return "no shell may be executed, not even inside the sandbox";
  case CS_SHELL_SANDBOXED:
    return "a shell may run, confined like everything else";
  case CS_SHELL_FULL:
    return "a shell may run with the profile's full rights";
  }
  /* An unknown value is a table from a newer generator: say so rather
   * than guess what it allows. */
  return "UNKNOWN shell policy value (table newer than this sbx?)";
}

static void sbx_explain_access(FILE *out, uint32_t access)
{
  const char *sep = "";

  if (access & CS_PATH_READ) {
    fprintf(out, "%sread", sep);
    sep = "+";
  }
  if (access & CS_PATH_WRITE) {
    fprintf(out, "%swrite", sep);
    sep = "+";
  }
  if (access & CS_PATH_EXEC) {
    fprintf(out, "%sexecute", sep);
    sep = "+";
  }
  if (!*sep)
    fprintf(out, "no access");
}

static void sbx_explain_paths(FILE *out, const char *title, const struct cs_path_rule *r,
                              uint32_t n)
{
  fprintf(out, "%s:\n", title);
  if (n == 0)
    fprintf(out, "  (none)\n");
  for (uint32_t i = 0; i < n; i++) {
    fprintf(out, "  %-40s ", r[i].path);
    sbx_explain_access(out, r[i].access);
    if (r[i].origin)
      fprintf(out, "   [%s]", r[i].origin);
    fprintf(out, "\n");
  }
}

static void sbx_explain_limit(FILE *out, const char *what, uint64_t v, const char *unit)
{
  char buf[64];

  if (v == 0)
    fprintf(out, "  %-24s no limit\n", what);
  else if (unit)
    fprintf(out, "  %-24s %" PRIu64 "%s%s\n", what, v, *unit ? " " : "", unit);
  else
    fprintf(out, "  %-24s %s\n", what, sbx_explain_bytes(buf, sizeof(buf), v));
}

static void sbx_explain_approvals(FILE *out, uint32_t ops)
{
  static const struct {
    uint32_t bit;
    const char *words;
  } names[] = {
    { CS_APPROVE_FILE_DELETE, "deleting files" },
    { CS_APPROVE_EXTERNAL_NETWORK, "reaching an external network" },
    { CS_APPROVE_SUDO, "running sudo" },
    { CS_APPROVE_GIT_CONFIG, "changing git configuration" },
  };
  uint32_t known = 0;

  fprintf(out, "Approvals (a person must approve before):\n");
  if (ops == 0)
    fprintf(out, "  (none)\n");
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    known |= names[i].bit;
    if (ops & names[i].bit)
      fprintf(out, "  %s\n", names[i].words);
  }
  if (ops & ~known)
    fprintf(out, "  UNKNOWN approval bits 0x%" PRIx32 " (table newer than this sbx?)\n",
            ops & ~known);
}

static void sbx_explain_net_rules(FILE *out, const char *kind, const struct cs_net_rule *r,
                                  uint32_t n)
{
  for (uint32_t i = 0; i < n; i++)
    fprintf(out, "  %-6s %-40s %s\n", kind, r[i].pattern ? r[i].pattern : "?",
            r[i].origin ? r[i].origin : "");
}

/* A proxied profile's destinations (docs/network-proxy.md "Matching"), in
 * the order the proxy decides: deny rules first (deny wins), then allow
 * rules, then the rest; the local ranges it may dial. */
static void sbx_explain_network(FILE *out, const struct cs_profile *p)
{
  if (!p->allow_network || p->net_mode != CS_NET_PROXY)
    return;
  fprintf(out,
          "Network policy (by host name and port; names case-insensitive, no trailing dot):\n");
  if (p->n_net_deny + p->n_net_allow)
    fprintf(out, "  %-6s %-40s %s\n", "rule", "pattern", "written at");
  sbx_explain_net_rules(out, "deny", p->net_deny, p->n_net_deny);
  sbx_explain_net_rules(out, "allow", p->net_allow, p->n_net_allow);
  fprintf(out, "  %-6s %s\n", "rest",
          p->net_rest == CS_NET_REST_ASK
              ? "ask: an approval request (operation network) names the host and port"
              : "deny");
  if (p->n_net_local)
    fprintf(out, "  Local ranges the proxy may dial (it refuses loopback, private, link-local\n"
                 "  and the other special ranges otherwise):\n");
  sbx_explain_net_rules(out, "local", p->net_local, p->n_net_local);
  fprintf(out, "\n");
}

void sbx_explain(FILE *out, const struct cs_profile *p)
{
  fprintf(out, "Profile %s", p->name);
  if (p->alias)
    fprintf(out, " (alias %s)", p->alias);
  fprintf(out, "\n");
  if (p->summary)
    fprintf(out, "  %s\n", p->summary);
  if (p->origin)
    fprintf(out, "  Defined at %s", p->origin);
  if (p->extends)
    fprintf(out, "%sextends profile %s", p->origin ? "; " : "  ", p->extends);
  if (p->origin || p->extends)
    fprintf(out, ".\n");
  fprintf(out, "\n");

  fprintf(out, "Shell:          %s.\n", sbx_explain_shell(p->shell));
  fprintf(out, "Network:        %s.\n",
          !p->allow_network ? "none: the command gets an empty network namespace"
          : p->net_mode == CS_NET_PROXY
              ? "through sbx's proxy only: a network namespace of the run's own with loopback, "
                "destinations decided by name (below)"
              : "allowed");
  fprintf(out, "File writes:    %s.\n",
          p->allow_file_write ? "allowed where a path rule grants write"
                              : "none: every file system is read-only to the command");
  fprintf(out, "File deletion:  %s.\n",
          p->allow_file_delete ? "allowed where writes are" : "denied");
  fprintf(out, "Default tier:   %s (admission, see sbx(1); --tier overrides).\n\n",
          p->default_tier ? p->default_tier : "(none)");

  sbx_explain_network(out, p);
  sbx_explain_paths(out, "Allowed paths (${WORKSPACE} is the --workspace directory)",
                    p->allowed_paths, p->n_allowed_paths);
  sbx_explain_paths(out, "Denied paths (win over allowed ones)", p->denied_paths,
                    p->n_denied_paths);
  fprintf(out, "\n");

  /* The sandbox's home (docs/confinement.md, "Home"). */
  fprintf(out, "Home: HOME=%s, new every run.\n", SBX_SANDBOX_HOME);
  sbx_explain_paths(out, "Shown read-only from your home (missing names are skipped)",
                    p->home_read_only, p->n_home_read_only);
  sbx_explain_paths(out,
                    "Kept between runs, in $XDG_STATE_HOME (else ~/.local/state)/"
                    "commander-sandbox/home/<profile>",
                    p->home_persistent, p->n_home_persistent);
  fprintf(out, "Extra path:     %s.\n\n",
          p->extra_path_access == 0 ? "none (sbx run --add-path is refused)"
          : p->extra_path_access == CS_PATH_READ
              ? "one per run, read-only (sbx run --add-path PATH)"
              : "one per run, read-only or writable (sbx run --add-path PATH[:ro|:rw])");

  fprintf(out, "Limits:\n");
  if (p->limits.max_execution_ms)
    fprintf(out, "  %-24s %" PRIu64 ".%03" PRIu64 " s (--timeout may only lower it)\n",
            "wall-clock time", p->limits.max_execution_ms / 1000,
            p->limits.max_execution_ms % 1000);
  else
    fprintf(out, "  %-24s no limit\n", "wall-clock time");
  sbx_explain_limit(out, "address space", p->limits.max_memory_bytes, NULL);
  sbx_explain_limit(out, "CPU time", p->limits.max_cpu_seconds, "s");
  sbx_explain_limit(out, "processes", p->limits.max_processes, "");
  sbx_explain_limit(out, "open files", p->limits.max_open_files, "");
  sbx_explain_limit(out, "file size", p->limits.max_file_size, NULL);
  fprintf(out, "\n");

  sbx_explain_approvals(out, p->approval_ops);
  /* The profile's own command rules (docs/approvals.md); sbx's built-in
   * ones (rm, git clean, sudo, curl, ...) apply too. */
  if (p->n_command_rules) {
    static const char *const actions[] = { "allow", "ask", "deny" };
    static const char *const ops[] = { "delete", "network", "sudo", "git-config", "exec" };
    fprintf(out, "  command rules of this profile (besides sbx's built-in ones):\n");
    for (uint32_t i = 0; i < p->n_command_rules; i++) {
      const struct cs_command_rule *r = &p->command_rules[i];
      fprintf(out, "    %s %s: %s%s%s (rule \"%s\", %s)\n",
              r->action < 3 ? actions[r->action] : "?", r->operation < 5 ? ops[r->operation] : "?",
              r->program, r->args && r->args[0] ? " " : "", r->args ? r->args : "", r->name,
              r->origin ? r->origin : "?");
    }
  }
  fprintf(out, "\n");

  fprintf(out, "System calls (x86_64 seccomp filter, %" PRIu32 " BPF instructions):\n",
          p->filter_len);
  fprintf(out, "  Any call not listed below: %s.\n",
          p->default_action ? p->default_action : "(default action not recorded)");
  if (p->n_syscall_notes)
    fprintf(out, "  %-5s %-24s %-20s %s\n", "nr", "call", "action", "rule");
  for (uint32_t i = 0; i < p->n_syscall_notes; i++) {
    const struct cs_syscall_note *s = &p->syscall_notes[i];
    fprintf(out, "  %-5d %-24s %-20s %s\n", s->nr, s->name ? s->name : "?",
            s->action ? s->action : "?", s->origin ? s->origin : "");
  }
}
