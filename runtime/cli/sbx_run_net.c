/* sbx_run_net: a proxied run's network in `sbx run` (see sbx_run_net.h). */
#include "sbx_run_net.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_diag.h"

/* On the proxy's thread, once per connection at its close. The main
 * thread reads what is kept only after the proxy's threads are joined. */
static void sbx_run_net_record(void *ctx, const struct sbx_proxy_conn *c)
{
  struct sbx_run_net *n = ctx;
  char dest[272];

  n->audit.total++;
  if (c->allowed)
    n->audit.allowed++;
  else
    n->audit.refused++;
  n->audit.bytes_up += c->bytes_up;
  n->audit.bytes_down += c->bytes_down;
  if (n->n_conns < SBX_AUDIT_CONNS_MAX)
    n->conns[n->n_conns++] = *c;
  if (c->allowed)
    return;
  /* A refusal is said where the caller reads sbx, once per destination:
   * a client retrying in a loop does not flood the terminal. */
  if (!c->host[0])
    snprintf(dest, sizeof dest, "a request naming no destination");
  else
    snprintf(dest, sizeof dest, strchr(c->host, ':') ? "[%s]:%u" : "%s:%u", c->host,
             (unsigned)c->port);
  for (size_t i = 0; i < n->n_said; i++)
    if (strcmp(n->said[i], dest) == 0)
      return;
  if (n->n_said < SBX_RUN_NET_SAID_MAX)
    snprintf(n->said[n->n_said++], sizeof n->said[0], "%s", dest);
  else if (n->n_said == SBX_RUN_NET_SAID_MAX) {
    n->n_said++;
    fprintf(sbx_diag(), "sbx: proxy: further refusals are in the audit record only\n");
    return;
  } else
    return;
  {
    char host[1100], why[700];
    cs_approval_escape(dest, host, sizeof host);
    cs_approval_escape(c->refusal[0] ? c->refusal : c->basis, why, sizeof why);
    fprintf(sbx_diag(), "sbx: proxy: refused %s (%s): %s\n", host, c->protocol, why);
  }
}

int sbx_run_net_begin(struct sbx_run_net *n, struct sbx_approve *appr, const char *workspace,
                      const char *cwd, const char *run_id, unsigned ask_timeout_ms)
{
  memset(n, 0, sizeof *n);
  n->conns = calloc(SBX_AUDIT_CONNS_MAX, sizeof *n->conns);
  n->audit_conns = calloc(SBX_AUDIT_CONNS_MAX, sizeof *n->audit_conns);
  if (!n->conns || !n->audit_conns) {
    sbx_run_net_end(n);
    return -ENOMEM;
  }
  n->cfg.mgr = appr->mgr;
  n->cfg.ask_timeout_ms = ask_timeout_ms ? ask_timeout_ms : CS_APPROVAL_DEFAULT_TIMEOUT_MS;
  n->cfg.profile = appr->profile->name;
  n->cfg.argv = appr->argv;
  n->cfg.workspace = workspace;
  n->cfg.cwd = cwd;
  n->cfg.run_id = run_id;
  n->cfg.record = sbx_run_net_record;
  n->cfg.record_ctx = n;
  return 0;
}

const struct sbx_audit_network *sbx_run_net_audit(struct sbx_run_net *n)
{
  for (size_t i = 0; i < n->n_conns; i++) {
    const struct sbx_proxy_conn *c = &n->conns[i];
    n->audit_conns[i] = (struct sbx_audit_conn){ .protocol = c->protocol,
                                                 .host = c->host,
                                                 .port = c->port,
                                                 .dialled = c->dialled,
                                                 .allowed = c->allowed,
                                                 .basis = c->basis,
                                                 .refusal = c->refusal,
                                                 .bytes_up = c->bytes_up,
                                                 .bytes_down = c->bytes_down,
                                                 .duration_ms = c->duration_ms };
  }
  n->audit.conns = n->audit_conns;
  n->audit.n = n->n_conns;
  return &n->audit;
}

void sbx_run_net_end(struct sbx_run_net *n)
{
  free(n->conns);
  free(n->audit_conns);
  n->conns = NULL;
  n->audit_conns = NULL;
}
