/* pnetc_net: the back end for nets (.pnet and PNML): parse, analyse, emit.
 *
 * Order of work and why:
 *   1. parse (front end prints file:line:col diagnostics)     -> exit 2
 *   2. Promela needs no analysis (Spin explores the model itself)
 *   3. analyse                                                -> exit 3 on a limit
 *   4. every violated assertion is reported on stderr with its shortest
 *      firing sequence, whatever else was asked
 *   5. outputs are produced into temporary files and committed together;
 *      C tables are NOT written when an assertion fails: the runtime would
 *      otherwise link a scheduler for a model known to be wrong.
 * Output and depfile are committed as one group, so a build never sees a
 * depfile that promises outputs which were not written. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "c_text.h"
#include "emit_c_net.h"
#include "emit_report.h"
#include "out_file.h"
#include "pn_analysis.h"
#include "diag.h"
#include "pnet.h"
#include "pnetc_exit.h"
#include "pnetc_options.h"
#include "pnml.h"
#include "emit_promela.h"

#ifndef CS_VERSION
#define CS_VERSION "unknown"
#endif
#define PNETC_GENERATOR "pnetc " CS_VERSION

static void pnetc_net_trace(FILE *out, const struct pn_net *net, const uint32_t *trace, uint32_t n)
{
  if (n == 0) {
    fputs("(the initial marking)", out);
    return;
  }
  for (uint32_t i = 0; i < n; i++)
    fprintf(out, "%s%s", i ? ", " : "", net->transitions[trace[i]].name);
}

static void pnetc_net_marking(FILE *out, const struct pn_net *net, const int64_t *tokens)
{
  int first = 1;
  for (uint32_t i = 0; i < net->nplaces; i++) {
    if (net->places[i].role != PN_PLACE_TRACKED)
      continue;
    fprintf(out, "%s%s=%" PRId64, first ? "" : " ", net->places[i].name, tokens[i]);
    first = 0;
  }
  if (first)
    fputs("(no tracked place)", out);
}

/* For a capacity violation: which place holds more than it may, and by how much. */
static void pnetc_net_excess(FILE *out, const char *prefix, const struct pn_net *net,
                             const int64_t *tokens)
{
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    if (p->role == PN_PLACE_TRACKED && p->capacity != PN_UNBOUNDED && tokens[i] > p->capacity)
      fprintf(out, "%s%s holds %" PRId64 " tokens, capacity %" PRId64 "\n", prefix, p->name,
              tokens[i], p->capacity);
  }
}

static const char *pnetc_net_assert_kind(enum pn_assert_kind k)
{
  switch (k) {
  case PN_ASSERT_NO_DEADLOCK:
    return "no deadlock";
  case PN_ASSERT_CAPACITY:
    return "capacity";
  case PN_ASSERT_INVARIANT:
    return "invariant";
  case PN_ASSERT_REACHABLE:
    return "reachable";
  case PN_ASSERT_UNREACHABLE:
    return "unreachable";
  }
  return "assertion";
}

/* The human summary (stdout): what an engineer checks after a change. */
static void pnetc_net_summary(FILE *out, const struct pn_net *net, const struct pn_analysis *a,
                              int64_t *tokens)
{
  uint32_t ntracked = 0, nadmit = 0;
  for (uint32_t i = 0; i < net->nplaces; i++)
    ntracked += net->places[i].role == PN_PLACE_TRACKED;
  for (uint32_t i = 0; i < net->ntransitions; i++)
    nadmit += net->transitions[i].kind == PN_ADMISSION;
  fprintf(out, "model %s (%s)\n", net->name && net->name[0] ? net->name : "(unnamed)",
          net->source_path);
  fprintf(out, "  places       %" PRIu32 " (%" PRIu32 " tracked)\n", net->nplaces, ntracked);
  uint32_t nprogress = net->ntransitions - nadmit;
  fprintf(out,
          "  transitions  %" PRIu32 " (%" PRIu32 " admission%s, %" PRIu32 " progress step%s)\n",
          net->ntransitions, nadmit, nadmit == 1 ? "" : "s", nprogress, nprogress == 1 ? "" : "s");
  fprintf(out, "  states       %" PRIu64 " reachable markings\n", pn_analysis_states(a));
  fprintf(out, "  edges        %" PRIu64 "\n", pn_analysis_edges(a));
  fprintf(out,
          "  classes      %" PRIu64 " safe, %" PRIu64 " saturated, %" PRIu64 " unsafe, %" PRIu64
          " deadlock\n",
          pn_analysis_class_count(a, PN_CLASS_SAFE), pn_analysis_class_count(a, PN_CLASS_SATURATED),
          pn_analysis_class_count(a, PN_CLASS_UNSAFE), pn_analysis_class_count(a, PN_CLASS_DEAD));
  fprintf(out, "  safe set S   %" PRIu64 " states (rows of the generated tables)\n",
          pn_analysis_safe_set_size(a));
  fprintf(out, "  deadlocks    %" PRIu64 "\n", pn_analysis_class_count(a, PN_CLASS_DEAD));
  fputs("  bounds (largest reachable count / declared capacity):\n", out);
  const int64_t *bounds = pn_analysis_bounds(a);
  int width = 0, vwidth = 1;
  for (uint32_t i = 0; i < net->nplaces; i++) {
    if (net->places[i].role != PN_PLACE_TRACKED)
      continue;
    int len = (int)strlen(net->places[i].name);
    int vlen = snprintf(NULL, 0, "%" PRId64, bounds[i]);
    if (len > width)
      width = len;
    if (vlen > vwidth)
      vwidth = vlen;
  }
  for (uint32_t i = 0; i < net->nplaces; i++) {
    const struct pn_place *p = &net->places[i];
    if (p->role != PN_PLACE_TRACKED)
      continue;
    fprintf(out, "    %-*s %*" PRId64 " / ", width, p->name, vwidth, bounds[i]);
    if (p->capacity == PN_UNBOUNDED)
      fputs("-", out);
    else
      fprintf(out, "%" PRId64, p->capacity);
    if (p->capacity != PN_UNBOUNDED && bounds[i] > p->capacity)
      fputs("  EXCEEDED", out);
    fputc('\n', out);
  }
  fprintf(out, "  assertions (%" PRIu32 "):\n", net->nassertions);
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assertion *as = &net->assertions[i];
    const struct pn_assert_result *r = pn_analysis_assertion(a, i);
    fprintf(out, "    %-4s %-11s %s%s\n", r->holds ? "ok" : "FAIL", pnetc_net_assert_kind(as->kind),
            as->text ? as->text : "", as->implicit ? " (implicit)" : "");
    if (r->holds && as->kind == PN_ASSERT_REACHABLE && (r->trace || r->witness >= 0)) {
      /* How it is reachable: the check a reader would otherwise redo by hand. */
      fprintf(out, "         witness (%" PRIu32 " step%s): ", r->ntrace, r->ntrace == 1 ? "" : "s");
      pnetc_net_trace(out, net, r->trace, r->ntrace);
      fputc('\n', out);
    }
    if (!r->holds && (r->trace || r->witness >= 0)) {
      fprintf(out, "         shortest firing sequence (%" PRIu32 " step%s): ", r->ntrace,
              r->ntrace == 1 ? "" : "s");
      pnetc_net_trace(out, net, r->trace, r->ntrace);
      fputc('\n', out);
      if (r->witness >= 0) {
        pn_analysis_marking(a, (uint64_t)r->witness, tokens);
        fputs("         reaches: ", out);
        pnetc_net_marking(out, net, tokens);
        fputc('\n', out);
        if (as->kind == PN_ASSERT_CAPACITY)
          pnetc_net_excess(out, "         where ", net, tokens);
      }
    }
  }
}

/* Compiler-style errors on stderr: the lines an IDE or a CI log points at. */
static int pnetc_net_report_failures(const struct pn_net *net, const struct pn_analysis *a,
                                     int64_t *tokens)
{
  int failed = 0;
  for (uint32_t i = 0; i < net->nassertions; i++) {
    const struct pn_assertion *as = &net->assertions[i];
    const struct pn_assert_result *r = pn_analysis_assertion(a, i);
    if (r->holds)
      continue;
    failed = 1;
    diag_error(&as->loc, "%s assertion does not hold: %s", pnetc_net_assert_kind(as->kind),
               as->text ? as->text : "");
    if (!r->trace && r->witness < 0)
      continue;
    FILE *out = diag_stream();
    fprintf(out, "pnetc: note: shortest firing sequence (%" PRIu32 " step%s): ", r->ntrace,
            r->ntrace == 1 ? "" : "s");
    pnetc_net_trace(out, net, r->trace, r->ntrace);
    fputc('\n', out);
    if (r->witness >= 0) {
      pn_analysis_marking(a, (uint64_t)r->witness, tokens);
      fputs("pnetc: note: reaching: ", out);
      pnetc_net_marking(out, net, tokens);
      fputc('\n', out);
      if (as->kind == PN_ASSERT_CAPACITY)
        pnetc_net_excess(out, "pnetc: note: ", net, tokens);
    }
  }
  return failed;
}

static char *pnetc_net_join(const char *dir, const char *name, const char *ext)
{
  size_t len = strlen(dir) + strlen(name) + strlen(ext) + 2;
  char *r = malloc(len);
  if (r)
    snprintf(r, len, "%s/%s%s", dir, name, ext);
  return r;
}

static int pnetc_net_check_emit(const struct pnetc_options *o)
{
  /* An option that would be ignored is an error: the user meant something. */
  if (o->profile || o->model) {
    fprintf(stderr,
            "pnetc: error: %s: --%s applies to policies (.pol), not to nets\n"
            "Try 'pnetc --help' for more information.\n",
            o->input, o->profile ? "profile" : "model");
    return -EINVAL;
  }
  switch (o->emit) {
  case PNETC_EMIT_DEFAULT:
  case PNETC_EMIT_C:
  case PNETC_EMIT_JSON:
  case PNETC_EMIT_DOT:
  case PNETC_EMIT_PROMELA:
    return 0;
  case PNETC_EMIT_BPF:
  case PNETC_EMIT_DISASM:
  case PNETC_EMIT_OCI:
  case PNETC_EMIT_SBPL:
  case PNETC_EMIT_WSB:
  case PNETC_EMIT_K8S:
    break;
  }
  fprintf(stderr,
          "pnetc: error: %s: --emit bpf, disasm, oci, sbpl, wsb and k8s apply to policies, "
          "not to nets\nTry 'pnetc --help' for more information.\n",
          o->input);
  return -EINVAL;
}

int pnetc_run_net(const struct pnetc_options *o)
{
  struct pn_net *net = NULL;
  struct pn_analysis *a = NULL;
  struct out_file *files[3] = { NULL, NULL, NULL };
  size_t nfiles = 0;
  char *ident = NULL, *c_path = NULL, *h_path = NULL, *h_name = NULL, *target = NULL;
  const char **deps = NULL;
  int64_t *tokens = NULL;
  int rc, exit_code = PNETC_EXIT_INPUT, failed = 0;

  if (pnetc_net_check_emit(o) != 0)
    goto cleanup;
  net = o->input_kind == PNETC_INPUT_PNML ? pnml_parse_file(o->input) : pnet_parse_file(o->input);
  if (!net)
    goto cleanup; /* the front end printed file:line:col diagnostics */
  tokens = calloc(net->nplaces ? net->nplaces : 1, sizeof *tokens);
  if (!tokens) {
    rc = -ENOMEM;
    goto fail;
  }

  int tables = o->emit == PNETC_EMIT_DEFAULT || o->emit == PNETC_EMIT_C;
  if (o->emit != PNETC_EMIT_PROMELA) {
    struct pn_analysis_opts aopts = {
      .max_states = o->max_states,
      /* Progress only on a terminal: logs and --json stdout stay clean. */
      .show_progress = isatty(STDERR_FILENO) && !o->quiet,
    };
    rc = pn_analyze(net, &aopts, &a);
    if (rc != 0) {
      /* -E2BIG: the analysis already named the limit and what to do. */
      if (rc == -EOVERFLOW)
        fprintf(stderr, "%s: error: a token count exceeds what the analysis can represent\n",
                o->input);
      goto fail;
    }
    failed = pnetc_net_report_failures(net, a, tokens);
  }

  if (o->check_only) {
    if (o->json) {
      rc = emit_json_write(stdout, net, a);
      if (rc == 0 && fflush(stdout) != 0)
        rc = -EIO;
      if (rc != 0)
        goto fail;
    } else if (!o->quiet) {
      pnetc_net_summary(stdout, net, a, tokens);
    }
    target = out_file_absolute(o->input);
    goto commit;
  }

  if (tables) {
    if (!o->quiet)
      pnetc_net_summary(stdout, net, a, tokens);
    if (failed) {
      fprintf(stderr, "%s: error: assertions do not hold; C tables not written\n", o->input);
      exit_code = PNETC_EXIT_ASSERTION;
      goto cleanup;
    }
    /* Legal, and safe (nothing ever runs), but surely not what was meant. */
    if (pn_analysis_class(a, 0) == PN_CLASS_DEAD)
      fprintf(stderr,
              "%s: warning: nothing can fire in the initial marking: the runtime will "
              "never admit anything with these tables\n",
              o->input);
    ident = text_model_ident(o->input);
    if (!ident) {
      rc = -ENOMEM;
      goto fail;
    }
    c_path = pnetc_net_join(o->output_dir, ident, ".c");
    h_path = pnetc_net_join(o->output_dir, ident, ".h");
    h_name = malloc(strlen(ident) + sizeof ".h");
    if (h_name)
      snprintf(h_name, strlen(ident) + sizeof ".h", "%s.h", ident);
    if (!c_path || !h_path || !h_name) {
      rc = -ENOMEM;
      goto fail;
    }
    if ((rc = out_file_open(c_path, &files[nfiles])) != 0)
      goto fail;
    nfiles++;
    if ((rc = out_file_open(h_path, &files[nfiles])) != 0)
      goto fail;
    nfiles++;
    rc = emit_c_net_source(out_file_stream(files[0]), net, a, ident, h_name, PNETC_GENERATOR);
    if (rc == 0)
      rc = emit_c_net_header(out_file_stream(files[1]), net, a, ident, PNETC_GENERATOR);
    if (rc != 0)
      goto fail;
    target = out_file_absolute(c_path);
  } else {
    FILE *out = stdout;
    if (o->output_file) {
      if ((rc = out_file_open(o->output_file, &files[nfiles])) != 0)
        goto fail;
      out = out_file_stream(files[nfiles++]);
      target = out_file_absolute(o->output_file);
    } else {
      target = out_file_absolute(o->input);
    }
    switch (o->emit) {
    case PNETC_EMIT_JSON:
      rc = emit_json_write(out, net, a);
      break;
    case PNETC_EMIT_DOT:
      rc = emit_dot(out, net, a);
      break;
    case PNETC_EMIT_PROMELA:
      rc = emit_promela(out, net);
      break;
    default:
      rc = -EINVAL;
      break;
    }
    if (rc == 0)
      rc = pnetc_output_status(out);
    if (rc != 0)
      goto fail;
  }
commit:
  if (!target) {
    rc = -ENOMEM;
    goto fail;
  }
  deps = malloc((net->nsources ? net->nsources : 1) * sizeof *deps);
  if (!deps) {
    rc = -ENOMEM;
    goto fail;
  }
  for (uint32_t i = 0; i < net->nsources; i++)
    deps[i] = net->sources[i]->path;
  rc = out_file_commit_group(files, nfiles, o->depfile, target, deps, net->nsources);
  nfiles = 0;
  if (rc != 0) {
    exit_code = pnetc_exit_for(rc); /* out_file named the file and the reason */
    goto cleanup;
  }
  if (tables && !o->check_only && !o->quiet)
    printf("wrote %s and %s\n", c_path, h_path);
  exit_code = failed ? PNETC_EXIT_ASSERTION : PNETC_EXIT_OK;
  goto cleanup;

fail:
  exit_code = pnetc_fail(rc, nfiles ? out_file_path(files[0]) : NULL);
cleanup:
  for (size_t i = 0; i < nfiles; i++)
    out_file_abort(files[i]);
  free(ident);
  free(c_path);
  free(h_path);
  free(h_name);
  free(target);
  free(deps);
  free(tokens);
  pn_analysis_free(a);
  pn_net_free(net);
  return exit_code;
}
