/* libFuzzer harness for the net emitters (emit_c_net.h, emit_report.h): every net the .pnet
 * front end accepts, once analysed, must give C tables, a JSON report and a
 * DOT view without a crash, a leak or undefined behaviour, and the outputs
 * must hold together: the report parses back as JSON with the analysis'
 * state count, and the C source carries its banner, one next_state row per
 * state of S and every End marker it opened.
 *
 * Built as fuzz_emit_replay (run over tests/fuzz/corpus/pnet and
 * tests/pnetc_cli/data in every build) and, with -DCS_FUZZ=ON and clang,
 * as the libFuzzer binary fuzz_emit. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "pnet.h"
#include "c_text.h"
#include "emit_c_net.h"
#include "emit_report.h"
#include "pn_analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Row comments start with "/ * S<k>" (without the space); a name may look
 * like one too, so this is a lower bound. */
static size_t count_rows(const char *text)
{
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, "/* S")); p += 4)
    if (p[4] >= '0' && p[4] <= '9')
      n++;
  return n;
}

static size_t count(const char *hay, const char *needle)
{
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* A broken invariant is a bug: abort so libFuzzer keeps the input. */
static void check(int ok, const char *what)
{
  if (!ok) {
    fprintf(stderr, "fuzz_emit: %s\n", what);
    abort();
  }
}

static void emit_all(const struct pn_net *net, const struct pn_analysis *a)
{
  char *src = NULL, *hdr = NULL, *js = NULL, *dot = NULL;
  size_t nsrc = 0, nhdr = 0, njs = 0, ndot = 0;
  FILE *fs = open_memstream(&src, &nsrc), *fh = open_memstream(&hdr, &nhdr);
  FILE *fj = open_memstream(&js, &njs), *fd = open_memstream(&dot, &ndot);
  check(fs && fh && fj && fd, "open_memstream");

  int rc_src = emit_c_net_source(fs, net, a, "fuzz", "fuzz.h", "fuzz_emit");
  int rc_hdr = emit_c_net_header(fh, net, a, "fuzz", "fuzz_emit");
  int rc_js = emit_json_write(fj, net, a);
  int rc_dot = emit_dot(fd, net, a);
  fclose(fs);
  fclose(fh);
  fclose(fj);
  fclose(fd);

  /* -EDOM / -EOVERFLOW are refusals with a message, not bugs; -EPROTO
   * would mean the analysis let a progress step leave S. */
  check(rc_js == 0 && rc_dot == 0, "JSON or DOT emitter failed");
  check(rc_src != -EPROTO, "a progress step leaves the safe set");
  check(rc_src == rc_hdr, "C source and header disagree on success");
  if (rc_src == 0) {
    check(strncmp(src, "/* DO NOT EDIT", 14) == 0 && strncmp(hdr, "/* DO NOT EDIT", 14) == 0,
          "banner missing");
    check(count(src, "---- Begin ") == count(src, "---- End "), "unbalanced Begin/End markers");
    uint64_t nsafe = pn_analysis_safe_set_size(a);
    /* Each row of markings and next_state ends in a comment naming Sk. */
    size_t tables = (net->ntransitions > 0) + (count(src, "static const uint32_t markings[]") > 0);
    check(count_rows(src) >= nsafe * tables, "fewer state rows than states in S");
  }
  json_error_t err;
  json_t *report = json_loads(js, 0, &err);
  check(report != NULL, "report is not JSON");
  check(json_integer_value(json_object_get(report, "states")) == (json_int_t)pn_analysis_states(a),
        "report states differ from the analysis");
  json_decref(report);
  check(strstr(dot, "digraph ") != NULL && dot[ndot - 2] == '}', "DOT not closed");
  free(src);
  free(hdr);
  free(js);
  free(dot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  diag_set_quiet(true);
  struct pn_net *net = pnet_parse_memory("fuzz.pnet", (const char *)data, size);
  if (net) {
    /* Small nets only: the emitters are under test, not the explorer. */
    struct pn_analysis_opts opts = { .max_states = 5000 };
    struct pn_analysis *a = NULL;
    if (pn_analyze(net, &opts, &a) == 0)
      emit_all(net, a);
    pn_analysis_free(a);
  }
  pn_net_free(net);
  diag_reset();
  return 0;
}
