/* pnetc: the command-line driver (docs/pnetc.md).
 *
 * Parses the command line, decides the input kind from the file extension
 * and hands the options to the back end for that kind. The driver itself
 * reads no model: every diagnostic about the input comes from a front end,
 * every output file from a back end (through gen/out_file.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pnetc_exit.h"
#include "pnetc_options.h"

#ifndef CS_VERSION
#define CS_VERSION "unknown"
#endif

static const char pnetc_usage[] =
    "Usage: pnetc [OPTION]... FILE\n"
    "Compile a Commander Sandbox model or policy, and check it.\n"
    "\n"
    "FILE is one of (by extension):\n"
    "  .pnet    Petri-net scheduling model      .pnml   PNML net (ISO/IEC 15909-2)\n"
    "  .pol     sandbox policy                  .json   OCI/Docker seccomp profile\n"
    "\n"
    "Without options, a model or policy is compiled to C tables NAME.c and NAME.h\n"
    "(NAME = the file name without extension) in the current directory, and a\n"
    "summary of the analysis is printed on standard output.\n"
    "\n"
    "Options:\n"
    "  -o, --output=PATH     with C tables: the directory to write them to;\n"
    "                        with --emit of one file: that file (default stdout)\n"
    "      --check           analyse only, write no file\n"
    "      --json            with --check: print the report as one JSON object\n"
    "      --emit=KIND       what to produce instead of C tables:\n"
    "                          c        C tables (the default)\n"
    "                          json     the analysis report (nets)\n"
    "                          dot      Graphviz view of the net (and of the\n"
    "                                   reachability graph of a small net)\n"
    "                          promela  Promela model for Spin (nets)\n"
    "                          bpf      raw seccomp filter bytes (policies)\n"
    "                          disasm   annotated filter disassembly (policies)\n"
    "                          oci      OCI/Docker seccomp JSON (policies)\n"
    "                          sbpl     macOS Seatbelt profile (policies)\n"
    "                          wsb      Windows Sandbox configuration (policies)\n"
    "                          k8s      Kubernetes Pod + NetworkPolicy (policies)\n"
    "      --profile=NAME    the profile of a policy to compile\n"
    "      --library=DIR     where include <NAME>; looks (policies; default: the\n"
    "                        installed share/commander-sandbox/pol)\n"
    "      --model=FILE.pnet the scheduler model a policy's routes name tiers and\n"
    "                        lanes of (policies; default: models/default.pnet's)\n"
    "      --max-states=N    stop the analysis after N states (exit 3)\n"
    "      --depfile=FILE    also write a Make-style list of every file read\n"
    "  -q, --quiet           no summary on standard output\n"
    "  -h, --help            print this help and exit\n"
    "  -V, --version         print the version and exit\n"
    "\n"
    "Exit status:\n"
    "  0  compiled / analysed, every assertion holds\n"
    "  1  an assertion does not hold (the report and the traces are still printed)\n"
    "  2  bad input or usage (file:line:col: error: ...), or an output that\n"
    "     cannot be written\n"
    "  3  a resource limit was reached (--max-states, memory, filter size)\n"
    "\n"
    "Documentation: docs/pnetc.md.\n";

enum {
  OPT_CHECK = 256,
  OPT_JSON,
  OPT_EMIT,
  OPT_PROFILE,
  OPT_MAX_STATES,
  OPT_DEPFILE,
  OPT_LIBRARY,
  OPT_MODEL,
};

static const struct option pnetc_long_options[] = {
  { "output", required_argument, NULL, 'o' },
  { "check", no_argument, NULL, OPT_CHECK },
  { "json", no_argument, NULL, OPT_JSON },
  { "emit", required_argument, NULL, OPT_EMIT },
  { "profile", required_argument, NULL, OPT_PROFILE },
  { "max-states", required_argument, NULL, OPT_MAX_STATES },
  { "depfile", required_argument, NULL, OPT_DEPFILE },
  { "library", required_argument, NULL, OPT_LIBRARY },
  { "model", required_argument, NULL, OPT_MODEL },
  { "quiet", no_argument, NULL, 'q' },
  { "help", no_argument, NULL, 'h' },
  { "version", no_argument, NULL, 'V' },
  { NULL, 0, NULL, 0 },
};

/* Indexed by enum pnetc_emit. [cs-table:pnetc_emit] */
static const char *const pnetc_emit_names[] = {
  [PNETC_EMIT_DEFAULT] = "default", [PNETC_EMIT_C] = "c",
  [PNETC_EMIT_JSON] = "json",       [PNETC_EMIT_DOT] = "dot",
  [PNETC_EMIT_PROMELA] = "promela", [PNETC_EMIT_BPF] = "bpf",
  [PNETC_EMIT_DISASM] = "disasm",   [PNETC_EMIT_OCI] = "oci",
  [PNETC_EMIT_SBPL] = "sbpl",       [PNETC_EMIT_WSB] = "wsb",
  [PNETC_EMIT_K8S] = "k8s",
};
_Static_assert(sizeof pnetc_emit_names / sizeof pnetc_emit_names[0] == PNETC_EMIT_K8S + 1,
               "one name per enum pnetc_emit value");

static int pnetc_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int pnetc_usage_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("pnetc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'pnetc --help' for more information.\n", stderr);
  return PNETC_EXIT_INPUT;
}

static int pnetc_parse_emit(const char *arg, enum pnetc_emit *out)
{
  /* "default" is the absence of --emit, not something to ask for. */
  for (size_t i = PNETC_EMIT_C; i < sizeof pnetc_emit_names / sizeof pnetc_emit_names[0]; i++) {
    if (strcmp(arg, pnetc_emit_names[i]) == 0) {
      *out = (enum pnetc_emit)i;
      return 0;
    }
  }
  return -EINVAL;
}

static int pnetc_input_kind(const char *path, enum pnetc_input_kind *out)
{
  static const struct {
    const char *ext;
    enum pnetc_input_kind kind;
  } kinds[] = {
    { ".pnet", PNETC_INPUT_PNET },
    { ".pnml", PNETC_INPUT_PNML },
    { ".pol", PNETC_INPUT_POL },
    { ".json", PNETC_INPUT_OCI },
  };
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base)
    return -EINVAL;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    if (strcmp(dot, kinds[i].ext) == 0) {
      *out = kinds[i].kind;
      return 0;
    }
  }
  return -EINVAL;
}

static int pnetc_parse_count(const char *arg, uint64_t *out)
{
  char *end = NULL;
  if (arg[0] < '0' || arg[0] > '9')
    return -EINVAL;
  errno = 0;
  unsigned long long v = strtoull(arg, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0)
    return -EINVAL;
  *out = (uint64_t)v;
  return 0;
}

int main(int argc, char **argv)
{
  struct pnetc_options opts = { .output_dir = ".", .emit = PNETC_EMIT_DEFAULT };
  const char *output = NULL;
  int c;

  opterr = 0; /* our own messages, with the --help hint */
  while ((c = getopt_long(argc, argv, ":o:qhV", pnetc_long_options, NULL)) != -1) {
    switch (c) {
    case 'o':
      output = optarg;
      break;
    case OPT_CHECK:
      opts.check_only = true;
      break;
    case OPT_JSON:
      opts.json = true;
      break;
    case OPT_EMIT:
      if (pnetc_parse_emit(optarg, &opts.emit) != 0)
        return pnetc_usage_error(
            "unknown --emit kind '%s' (c, json, dot, promela, bpf, disasm, oci, sbpl, wsb, k8s)",
            optarg);
      break;
    case OPT_PROFILE:
      opts.profile = optarg;
      break;
    case OPT_MAX_STATES:
      if (pnetc_parse_count(optarg, &opts.max_states) != 0)
        return pnetc_usage_error("--max-states needs a positive integer, not '%s'", optarg);
      break;
    case OPT_DEPFILE:
      opts.depfile = optarg;
      break;
    case OPT_LIBRARY:
      opts.library = optarg;
      break;
    case OPT_MODEL:
      opts.model = optarg;
      break;
    case 'q':
      opts.quiet = true;
      break;
    case 'h':
      fputs(pnetc_usage, stdout);
      return fflush(stdout) == 0 ? PNETC_EXIT_OK : PNETC_EXIT_INPUT;
    case 'V':
      printf("pnetc (Commander Sandbox) %s\n", CS_VERSION);
      return fflush(stdout) == 0 ? PNETC_EXIT_OK : PNETC_EXIT_INPUT;
    case ':':
      return pnetc_usage_error("option '%s' needs an argument", argv[optind - 1]);
    default:
      return pnetc_usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc)
    return pnetc_usage_error("%s", "no input file");
  if (optind + 1 < argc)
    return pnetc_usage_error("more than one input file ('%s')", argv[optind + 1]);
  opts.input = argv[optind];

  if (pnetc_input_kind(opts.input, &opts.input_kind) != 0)
    return pnetc_usage_error("'%s': unknown input kind; expected a .pnet, .pnml, .pol or .json "
                             "(OCI seccomp profile) file",
                             opts.input);
  if (opts.json && !opts.check_only)
    return pnetc_usage_error("%s",
                             "--json goes with --check (use --emit json to write the report)");
  if (opts.check_only && opts.emit != PNETC_EMIT_DEFAULT)
    return pnetc_usage_error("--check writes nothing; it cannot be combined with --emit %s",
                             pnetc_emit_names[opts.emit]);
  if (opts.check_only && output)
    return pnetc_usage_error("--check writes nothing; '-o %s' would be ignored", output);
  /* One -o for both shapes of output: C tables are a pair of files, so it
   * names their directory; every other emitter writes one file. */
  if (output) {
    if (opts.emit == PNETC_EMIT_DEFAULT || opts.emit == PNETC_EMIT_C)
      opts.output_dir = output;
    else if (strcmp(output, "-") != 0)
      opts.output_file = output;
  }

  switch (opts.input_kind) {
  case PNETC_INPUT_PNET:
  case PNETC_INPUT_PNML:
    return pnetc_run_net(&opts);
  case PNETC_INPUT_POL:
    return pnetc_run_policy(&opts);
  case PNETC_INPUT_OCI:
    return pnetc_run_oci(&opts);
  }
  return PNETC_EXIT_INPUT;
}
