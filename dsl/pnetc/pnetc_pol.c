/* pnetc_pol: the back end for security policies (.pol).
 *
 *   pnetc [-o DIR] FILE.pol                  profiles.c + profiles.h (all profiles)
 *   pnetc --check FILE.pol                   compile everything, write nothing
 *   pnetc --emit bpf --profile NAME [-o F]   raw sock_filter bytes, host byte order
 *   pnetc --emit disasm --profile NAME       annotated disassembly + pseudo-code
 *   pnetc --emit oci --profile NAME          OCI/Docker seccomp JSON
 *   pnetc --emit sbpl|wsb|k8s --profile NAME  Seatbelt, Windows Sandbox, Kubernetes
 *
 * Order of work: load and check the policy (exit 2 with file:line:col
 * diagnostics), lower and compile every profile that is asked for (a
 * filter over BPF_MAXINSNS is exit 3), then write all outputs into
 * temporary files and commit them together with the depfile, so a failure
 * at any step leaves no file behind. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_disasm.h"
#include "bpf_gen.h"
#include "c_text.h"
#include "emit_c_pol.h"
#include "emit_c_routes.h"
#include "out_file.h"
#include "pnetc_exit.h"
#include "pnetc_options.h"
#include "pnetc_routes.h"
#include "pol.h"

#include "emit_oci.h"
#include "platform_emit.h"

#ifndef CS_VERSION
#define CS_VERSION "unknown"
#endif
#define PNETC_POL_GENERATOR "pnetc " CS_VERSION

static void pnetc_pol_list_profiles(FILE *out, const struct pol_policy *pol)
{
  for (size_t i = 0; i < pol_profile_count(pol); i++) {
    const struct pol_profile *p = pol_profile_at(pol, i);
    fprintf(out, "%s%s", i ? ", " : "", p->name);
    if (p->alias)
      fprintf(out, " (%s)", p->alias);
  }
}

/* The compiled form of one profile. */
struct pnetc_pol_unit {
  const struct pol_profile *profile;
  struct sc_ruleset rs;
  struct bpf_program_out prog;
};

static int pnetc_pol_compile(struct pnetc_pol_unit *u)
{
  int rc = pol_lower(u->profile, &u->rs);
  if (rc)
    return rc;
  rc = bpf_compile(&u->rs, &u->prog);
  if (rc == -EINVAL)
    fprintf(stderr, "pnetc: error: profile '%s': the BPF generator refused its rule set\n",
            u->profile->name);
  return rc;
}

static void pnetc_pol_summary(FILE *out, const struct pol_policy *pol,
                              const struct pnetc_pol_unit *u, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const struct pol_profile *p = u[i].profile;
    fprintf(out, "profile %s%s%s%s: %zu rules, default %s, filter %u instructions, tier %s\n",
            p->name, p->alias ? " (" : "", p->alias ? p->alias : "", p->alias ? ")" : "", p->nrules,
            p->default_text, u[i].prog.len, p->tier);
  }
  /* The routes, in the order they are tried (docs/pol-language.md). */
  for (size_t i = 0; i < pol_route_count(pol); i++) {
    const struct pol_route *r = pol_route_at(pol, i);
    fprintf(out,
            "route %s: kind %s, profile %s, %zu label%s, host %s -> backend %s, tier %s, lane %s\n",
            r->name, r->kind ? r->kind : "any", r->profile ? r->profile : "any", r->n_labels,
            r->n_labels == 1 ? "" : "s", r->host ? r->host : "any", r->backend, r->tier, r->lane);
  }
}

/* `--check --json`: one object per profile, keys sorted, for scripts. */
static int pnetc_pol_json(FILE *out, const char *input, const struct pnetc_pol_unit *u, size_t n)
{
  json_t *root = json_object(), *list = json_array();
  int rc = -ENOMEM;
  if (!root || !list || json_object_set_new(root, "input", json_string(input)) != 0)
    goto done;
  for (size_t i = 0; i < n; i++) {
    const struct pol_profile *p = u[i].profile;
    json_t *o = json_pack("{s:s, s:s?, s:s?, s:s, s:s, s:I, s:I, s:s}", "name", p->name, "alias",
                          p->alias, "extends", p->extends, "summary", p->summary, "tier", p->tier,
                          "rules", (json_int_t)p->nrules, "filter_instructions",
                          (json_int_t)u[i].prog.len, "default_action", p->default_text);
    if (!o || json_array_append_new(list, o) != 0)
      goto done;
  }
  if (json_object_set(root, "profiles", list) != 0)
    goto done;
  rc = json_dumpf(root, out, JSON_SORT_KEYS | JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF
           ? 0
           : -EIO;
done:
  json_decref(list);
  json_decref(root);
  return rc;
}

/* Whether the rule set has an OCI export, which is written nowhere:
 * oci_export_ruleset refuses (with its message) what runc would weaken. */
static int pnetc_pol_oci_exportable(const struct sc_ruleset *rs)
{
  char *text = NULL;
  size_t len = 0;
  FILE *sink = open_memstream(&text, &len);
  if (!sink)
    return -ENOMEM;
  int rc = oci_export_ruleset(sink, rs);
  if (fclose(sink) != 0 && rc == 0)
    rc = -ENOMEM;
  free(text);
  return rc;
}

static int pnetc_pol_check_emit(const struct pnetc_options *o)
{
  switch (o->emit) {
  case PNETC_EMIT_DEFAULT:
  case PNETC_EMIT_C:
    if (o->profile && !o->check_only) {
      fprintf(stderr,
              "pnetc: error: %s: the C tables hold every profile; --profile applies to --emit bpf, "
              "disasm, oci, sbpl, wsb and k8s\n",
              o->input);
      return -EINVAL;
    }
    return 0;
  case PNETC_EMIT_BPF:
  case PNETC_EMIT_DISASM:
  case PNETC_EMIT_OCI:
  case PNETC_EMIT_SBPL:
  case PNETC_EMIT_WSB:
  case PNETC_EMIT_K8S:
    if (!o->profile) {
      fprintf(stderr,
              "pnetc: error: %s: --emit bpf, disasm, oci, sbpl, wsb and k8s need --profile NAME\n",
              o->input);
      return -EINVAL;
    }
    return 0;
  case PNETC_EMIT_JSON:
  case PNETC_EMIT_DOT:
  case PNETC_EMIT_PROMELA:
    break;
  }
  fprintf(stderr, "pnetc: error: %s: --emit json, dot and promela apply to nets, not to policies\n",
          o->input);
  return -EINVAL;
}

/* The banner's file names (pol_display_path), main file first; freed
 * with pnetc_pol_sources_free, also after a failure. */
static int pnetc_pol_sources(const struct pol_policy *pol, struct emit_pol_sources *out)
{
  size_t n = pol_file_count(pol);
  char **names = calloc(n ? n : 1, sizeof *names);
  out->names = (const char *const *)names;
  out->n = 0;
  if (!names)
    return -ENOMEM;
  for (size_t i = 0; i < n; i++) {
    if (!(names[i] = pol_display_path(pol, i)))
      return -ENOMEM;
    out->n++;
  }
  return 0;
}

static void pnetc_pol_sources_free(struct emit_pol_sources *s)
{
  char **names = (char **)s->names;
  for (size_t i = 0; i < s->n; i++)
    free(names[i]);
  free(names);
}

int pnetc_run_policy(const struct pnetc_options *o)
{
  struct pol_policy *pol = NULL;
  struct pnetc_pol_unit *units = NULL;
  struct emit_pol_compiled *compiled = NULL;
  struct emit_pol_sources sources = { NULL, 0 };
  struct out_file *files[3] = { NULL, NULL, NULL };
  size_t nunits = 0, nfiles = 0;
  char *ident = NULL, *c_path = NULL, *h_path = NULL, *h_name = NULL, *target = NULL;
  char *library = NULL;
  const char **deps = NULL;
  int rc = 0, exit_code = PNETC_EXIT_INPUT;

  if (pnetc_pol_check_emit(o) != 0)
    goto cleanup;
  /* Without --library the installed library (or, in the build tree, the
   * source's models/), so `include <profiles.pol>;` works from any
   * directory; none found is an error only for a policy that uses it. */
  library = o->library ? NULL : pol_library_default();
  struct pol_load_options lo = { .library_dir = o->library ? o->library : library };
  rc = pol_load_with(o->input, &lo, &pol);
  if (rc)
    goto fail; /* diagnostics were printed */
  /* A route that names a tier or lane the scheduler lacks would be
   * refused at every run: refuse it here, at its line. */
  rc = pnetc_routes_check(pol, o->model);
  if (rc)
    goto fail;

  /* Which profiles to compile: all for the tables, one for the others. */
  size_t nprof = pol_profile_count(pol);
  const struct pol_profile *only = NULL;
  if (o->profile) {
    only = pol_profile_find(pol, o->profile);
    if (!only) {
      fprintf(stderr, "pnetc: error: %s: no profile named '%s' (profiles: ", o->input, o->profile);
      pnetc_pol_list_profiles(stderr, pol);
      fputs(")\n", stderr);
      goto cleanup;
    }
  }
  units = calloc(nprof, sizeof *units);
  compiled = calloc(nprof, sizeof *compiled);
  if (!units || !compiled) {
    rc = -ENOMEM;
    goto fail;
  }
  for (size_t i = 0; i < nprof; i++) {
    const struct pol_profile *p = pol_profile_at(pol, i);
    if (only && p != only)
      continue;
    struct pnetc_pol_unit *u = &units[nunits++];
    u->profile = p;
    if ((rc = pnetc_pol_compile(u)) != 0)
      goto fail;
    compiled[nunits - 1] = (struct emit_pol_compiled){ p, &u->rs, &u->prog };
  }

  if (o->check_only) {
    if (o->json) {
      if ((rc = pnetc_pol_json(stdout, o->input, units, nunits)) != 0)
        goto fail;
    } else if (!o->quiet) {
      pnetc_pol_summary(stdout, pol, units, nunits);
    }
    target = out_file_absolute(o->input);
    goto commit;
  }

  if (o->emit == PNETC_EMIT_DEFAULT || o->emit == PNETC_EMIT_C) {
    ident = text_model_ident(o->input);
    const char *dir = o->output_dir ? o->output_dir : ".";
    if (!ident || asprintf(&c_path, "%s/%s.c", dir, ident) < 0 ||
        asprintf(&h_path, "%s/%s.h", dir, ident) < 0 || asprintf(&h_name, "%s.h", ident) < 0) {
      rc = -ENOMEM;
      goto fail;
    }
    if ((rc = out_file_open(c_path, &files[nfiles])) != 0)
      goto fail;
    nfiles++;
    if ((rc = out_file_open(h_path, &files[nfiles])) != 0)
      goto fail;
    nfiles++;
    if ((rc = pnetc_pol_sources(pol, &sources)) != 0)
      goto fail;
    rc = emit_c_pol_source(out_file_stream(files[0]), &sources, compiled, nunits, h_name,
                           PNETC_POL_GENERATOR);
    if (rc == 0)
      rc = emit_c_routes_source(out_file_stream(files[0]),
                                pol_route_count(pol) ? pol_route_at(pol, 0) : NULL,
                                pol_route_count(pol));
    if (rc == 0)
      rc = emit_c_pol_header(out_file_stream(files[1]), &sources, compiled, nunits,
                             pol_route_count(pol), PNETC_POL_GENERATOR);
    if (rc)
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
    const struct pnetc_pol_unit *u = &units[0];
    const struct platform_input platform = { u->profile, o->input, PNETC_POL_GENERATOR };
    switch (o->emit) {
    case PNETC_EMIT_BPF:
      if (fwrite(u->prog.insns, sizeof *u->prog.insns, u->prog.len, out) != u->prog.len &&
          (rc = pnetc_output_status(out)) == 0)
        rc = -EIO;
      break;
    case PNETC_EMIT_DISASM:
      fprintf(out, "# profile %s: %u instructions\n", u->profile->name, u->prog.len);
      bpf_write_disasm(out, &u->prog);
      fputc('\n', out);
      bpf_write_pseudocode(out, &u->rs);
      break;
    case PNETC_EMIT_OCI:
      rc = oci_export_ruleset(out, &u->rs);
      break;
    case PNETC_EMIT_SBPL:
      rc = emit_sbpl(out, &platform);
      break;
    case PNETC_EMIT_WSB:
      rc = emit_wsb(out, &platform);
      break;
    case PNETC_EMIT_K8S:
      /* The manifest names the profile's OCI export as its seccomp
       * profile: one that cannot be exported must not get a manifest. */
      if ((rc = pnetc_pol_oci_exportable(&u->rs)) == 0)
        rc = emit_k8s(out, &platform);
      break;
    default:
      rc = -EINVAL;
      break;
    }
    if (rc == 0)
      rc = pnetc_output_status(out);
    if (rc)
      goto fail;
  }

commit:
  if (!target) {
    rc = -ENOMEM;
    goto fail;
  }
  deps = malloc((pol_file_count(pol) + 1) * sizeof *deps);
  if (!deps) {
    rc = -ENOMEM;
    goto fail;
  }
  size_t ndeps = 0;
  for (size_t i = 0; i < pol_file_count(pol); i++)
    deps[ndeps++] = pol_file_path(pol, i);
  /* The routes were checked against the model: a changed model must
   * check them again. */
  if (o->model)
    deps[ndeps++] = o->model;
  rc = out_file_commit_group(files, nfiles, o->depfile, target, deps, ndeps);
  nfiles = 0;
  if (rc) {
    exit_code = pnetc_exit_for(rc); /* out_file named the file and the reason */
    goto cleanup;
  }
  if ((o->emit == PNETC_EMIT_DEFAULT || o->emit == PNETC_EMIT_C) && !o->check_only && !o->quiet) {
    pnetc_pol_summary(stdout, pol, units, nunits);
    printf("wrote %s and %s\n", c_path, h_path);
  }
  exit_code = PNETC_EXIT_OK;
  goto cleanup;

fail:
  exit_code = pnetc_fail(rc, nfiles ? out_file_path(files[0]) : NULL);
cleanup:
  for (size_t i = 0; i < nfiles; i++)
    out_file_abort(files[i]);
  for (size_t i = 0; i < nunits; i++) {
    sc_ruleset_free(&units[i].rs);
    bpf_program_out_free(&units[i].prog);
  }
  free(units);
  free(compiled);
  pnetc_pol_sources_free(&sources);
  free(ident);
  free(c_path);
  free(h_path);
  free(h_name);
  free(target);
  free(deps);
  free(library);
  pol_policy_free(pol);
  return exit_code;
}
