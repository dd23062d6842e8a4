/* pnetc_options: the parsed pnetc command line, shared by the driver
 * (dsl/pnetc.c) and the per-input-kind back ends it dispatches to. */
#ifndef CS_DSL_PNETC_OPTIONS_H
#define CS_DSL_PNETC_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

enum pnetc_emit {
  PNETC_EMIT_DEFAULT, /* .pnet/.pol: C tables (.c + .h) in output_dir, summary on stdout */
  PNETC_EMIT_C,
  PNETC_EMIT_JSON, /* analysis report */
  PNETC_EMIT_DOT,
  PNETC_EMIT_PROMELA,
  PNETC_EMIT_BPF,    /* raw filter bytes, host byte order */
  PNETC_EMIT_DISASM, /* annotated disassembly + pseudo-code */
  PNETC_EMIT_OCI,    /* OCI/Docker seccomp JSON */
  PNETC_EMIT_SBPL,   /* macOS Seatbelt profile (gen/platform) */
  PNETC_EMIT_WSB,    /* Windows Sandbox configuration */
  PNETC_EMIT_K8S,    /* Kubernetes Pod and NetworkPolicy */
};

enum pnetc_input_kind { PNETC_INPUT_PNET, PNETC_INPUT_PNML, PNETC_INPUT_POL, PNETC_INPUT_OCI };

struct pnetc_options {
  const char *input; /* the single input file */
  enum pnetc_input_kind input_kind;
  const char *output_dir;  /* -o DIR for C tables (default ".") */
  const char *output_file; /* -o FILE for single-file emitters; NULL: stdout */
  const char *depfile;     /* --depfile FILE: Make-style list of files read */
  const char *profile;     /* --profile NAME (policies) */
  const char *library;     /* --library DIR: include <NAME>; (policies); NULL: the default */
  const char *model;       /* --model FILE.pnet: the tiers and lanes routes may name (policies) */
  enum pnetc_emit emit;
  bool check_only;     /* --check: analysis, no files written */
  bool json;           /* --json: the report as one JSON object on stdout */
  bool quiet;          /* -q: no human summary */
  uint64_t max_states; /* --max-states N */
};

/* Back ends: each returns an enum pnetc_exit value. Output files are
 * written to a temporary name and renamed into place only on success, so
 * no partial file is ever left behind. */
int pnetc_run_net(const struct pnetc_options *opts);    /* .pnet and .pnml */
int pnetc_run_policy(const struct pnetc_options *opts); /* .pol */
int pnetc_run_oci(const struct pnetc_options *opts);    /* OCI seccomp JSON */

#endif
