/* wsb: a profile as a Windows Sandbox configuration file (.wsb)
 * (docs/platforms.md, "Windows Sandbox").
 *
 * Windows Sandbox is a fresh, disposable Windows: the host's files reach
 * it only through mapped folders, each read-only or writable as a whole,
 * and its network is on or off. So the workspace is the one mapped folder
 * (read-only unless the profile writes it), the Linux system paths mean
 * nothing there (the sandbox has its own system), and networking is off
 * unless the profile reaches the network directly. Whatever the format
 * cannot say is a warning at the profile's line; where it cannot be made
 * at least as strict as the profile in what it does say (a mapped folder
 * has no holes and no write-without-delete), the profile is refused. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "platform_emit.h"
#include "platform_policy.h"
#include "c_text.h"

/* Where the workspace appears inside the sandbox: the desktop of the
 * sandbox's only account, so the user finds it. */
#define WSB_SANDBOX_WORKSPACE "C:\\Users\\WDAGUtilityAccount\\Desktop\\workspace"
/* Windows Sandbox raises a smaller MemoryInMB to what it needs to boot
 * (Microsoft's documentation of the .wsb format: "If the memory value
 * specified is insufficient to boot a sandbox, it will be automatically
 * increased to the required minimum amount"); 2048 is the figure its
 * documentation gives for that minimum. */
#define WSB_MIN_MEMORY_MB 2048u

/* XML character data: the five predefined entities; control bytes have no
 * XML spelling at all, so they become '_' (a path with one is refused
 * before this, a comment only loses it). */
static void wsb_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\'':
      fputs("&apos;", out);
      break;
    default:
      fputc((unsigned char)*s < 0x20 ? '_' : *s, out);
      break;
    }
  }
}

/* Comment text: "--" may not appear inside an XML comment. */
static void wsb_comment_text(FILE *out, const char *s)
{
  for (; *s; s++) {
    if (*s == '-' && s[1] == '-')
      fputs("- ", out);
    else
      fputc((unsigned char)*s < 0x20 ? '_' : *s, out);
  }
}

/* Warnings: everything the format has no word for. */
static void wsb_warnings(const struct pol_profile *p, bool ws_read)
{
  const char *n = p->name;
  if (!ws_read)
    diag_warning(&p->loc, "profile '%s': the workspace is not readable; it is not mapped", n);
  diag_warning(&p->loc,
               "profile '%s': Windows Sandbox has no system-call filter; the %zu system-call "
               "rules are not enforced",
               n, p->nrules);
  diag_warning(&p->loc,
               "profile '%s': paths outside the workspace are not mapped (the sandbox has its own "
               "system, and execution cannot be restricted by path)",
               n);
  if (p->shell == CS_SHELL_NONE)
    diag_warning(&p->loc,
                 "profile '%s': allowShell = none cannot be enforced; cmd.exe and PowerShell exist "
                 "in every Windows Sandbox",
                 n);
  if (p->n_home_ro || p->n_home_persist)
    diag_warning(&p->loc,
                 "profile '%s': the home entries are not mapped; the sandbox's home starts empty",
                 n);
  if (p->allow_network && p->net_mode == CS_NET_PROXY)
    diag_warning(p->net_mode_origin ? &p->net_mode_loc : &p->loc,
                 "profile '%s': Windows Sandbox cannot filter by name; networking is disabled, so "
                 "the %zu allowed destinations are unreachable",
                 n, p->n_net_allow);
  diag_warning(&p->loc,
               "profile '%s': only the memory limit is expressed (the whole sandbox's memory, at "
               "least %u MB); the time, CPU, process, open-file and file-size limits are not",
               n, WSB_MIN_MEMORY_MB);
  if (p->approval_ops || p->n_cmd_rules)
    diag_warning(&p->loc, "profile '%s': approvals and command rules are not expressed", n);
}

int emit_wsb(FILE *out, const struct platform_input *in)
{
  const struct pol_profile *p = in->profile;
  bool ws_read = platform_grants(p, "${WORKSPACE}", CS_PATH_READ);
  bool ws_write = platform_workspace_writable(p);
  int rc = platform_workspace_refusals(p, "Windows Sandbox", ".wsb", "mapped folder");
  if (rc)
    return rc;
  wsb_warnings(p, ws_read);
  /* Direct network only: a proxied profile's names cannot be enforced,
   * and no network is stricter than any list of names. */
  bool network = p->allow_network && p->net_mode == CS_NET_DIRECT;
  uint64_t mb = p->limits.max_memory_bytes / (1024u * 1024u);
  if (mb < WSB_MIN_MEMORY_MB)
    mb = WSB_MIN_MEMORY_MB;

  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!--\n", out);
  platform_banner(out, in, "Windows Sandbox configuration", "wsb", "  ", wsb_comment_text);
  fputs("\n  Before use, replace ${WORKSPACE} below with the workspace's absolute\n"
        "  Windows path (a .wsb file has no variables), e.g. in PowerShell:\n"
        "    (Get-Content P.wsb) -replace '\\$\\{WORKSPACE\\}', (Get-Location) |\n"
        "      Set-Content run.wsb; Start-Process run.wsb\n"
        "  What this file does not enforce of the profile: docs/platforms.md.\n-->\n",
        out);
  fputs("<Configuration>\n", out);
  fprintf(out, "  <Networking>%s</Networking>\n", network ? "Default" : "Disable");
  /* Everything that would carry data past the mapped folders is off. */
  fputs("  <VGpu>Disable</VGpu>\n"
        "  <AudioInput>Disable</AudioInput>\n"
        "  <VideoInput>Disable</VideoInput>\n"
        "  <PrinterRedirection>Disable</PrinterRedirection>\n"
        "  <ClipboardRedirection>Disable</ClipboardRedirection>\n"
        "  <ProtectedClient>Enable</ProtectedClient>\n",
        out);
  fprintf(out, "  <MemoryInMB>%llu</MemoryInMB>\n", (unsigned long long)mb);
  if (ws_read) {
    fputs("  <MappedFolders>\n    <MappedFolder>\n      <HostFolder>", out);
    wsb_text(out, "${WORKSPACE}");
    fputs("</HostFolder>\n      <SandboxFolder>", out);
    wsb_text(out, WSB_SANDBOX_WORKSPACE);
    fprintf(out,
            "</SandboxFolder>\n      <ReadOnly>%s</ReadOnly>\n    </MappedFolder>\n"
            "  </MappedFolders>\n",
            ws_write ? "false" : "true");
  }
  /* The logon command opens the workspace; the job's own command is the
   * user's to type (a .wsb file names no arguments). */
  fputs("  <LogonCommand>\n    <Command>", out);
  wsb_text(out, ws_read ? "explorer.exe " WSB_SANDBOX_WORKSPACE : "explorer.exe");
  fputs("</Command>\n  </LogonCommand>\n</Configuration>\n", out);
  return text_stream_status(out);
}
