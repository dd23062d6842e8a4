/* sbx_eval: `sbx eval` (see sbx_eval.h). */
#include "sbx_eval.h"

#include "cs_tee.h"
#include "cs_version.h"
#include "sbx_admit_record.h"
#include "sbx_audit.h"
#include "sbx_request.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef CS_TEE_WORKER_INSTALLED
#error "CS_TEE_WORKER_INSTALLED: where sbx-tee-worker is installed"
#endif

#define SBX_EVAL_TIER "tee"
/* The worker's CPU budget: the time limit and a margin, so that the
 * wall-time kill always comes first. */
#define SBX_EVAL_CPU_MARGIN_S 2u

struct sbx_eval_opts {
  const char *code, *code_file, *input, *input_file, *audit_path;
  uint64_t timeout_ms, wait_timeout_ms;
  unsigned memory_mib;
  bool no_wait;
};

enum {
  EOPT_INPUT = 256,
  EOPT_INPUT_FILE,
  EOPT_CODE_FILE,
  EOPT_TIMEOUT,
  EOPT_MEMORY,
  EOPT_NO_WAIT,
  EOPT_WAIT_TIMEOUT,
  EOPT_AUDIT,
};

static const struct option sbx_eval_options[] = {
  { "input", required_argument, NULL, EOPT_INPUT },
  { "input-file", required_argument, NULL, EOPT_INPUT_FILE },
  { "code-file", required_argument, NULL, EOPT_CODE_FILE },
  { "timeout", required_argument, NULL, EOPT_TIMEOUT },
  { "memory", required_argument, NULL, EOPT_MEMORY },
  { "no-wait", no_argument, NULL, EOPT_NO_WAIT },
  { "wait-timeout", required_argument, NULL, EOPT_WAIT_TIMEOUT },
  { "audit", required_argument, NULL, EOPT_AUDIT },
  { NULL, 0, NULL, 0 },
};

static int sbx_eval_parse(int argc, char *const argv[], struct sbx_eval_opts *o)
{
  int c;

  memset(o, 0, sizeof(*o));
  o->timeout_ms = SBX_EVAL_DEFAULT_TIMEOUT_MS;
  o->memory_mib = SBX_EVAL_DEFAULT_MEMORY_MIB;
  optind = 0;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "+", sbx_eval_options, NULL)) != -1) {
    switch (c) {
    case EOPT_INPUT:
      o->input = optarg;
      break;
    case EOPT_INPUT_FILE:
      o->input_file = optarg;
      break;
    case EOPT_CODE_FILE:
      o->code_file = optarg;
      break;
    case EOPT_TIMEOUT:
      /* Refused, not clamped, like sbx run --timeout. */
      if (sbx_cli_parse_seconds(optarg, &o->timeout_ms) != 0 ||
          o->timeout_ms > SBX_EVAL_MAX_TIMEOUT_MS) {
        fprintf(stderr, "sbx: error: eval: --timeout: '%s' is not a time of at most %u s\n", optarg,
                SBX_EVAL_MAX_TIMEOUT_MS / 1000u);
        return -EINVAL;
      }
      break;
    case EOPT_MEMORY: {
      char *end;
      unsigned long v = strtoul(optarg, &end, 10);
      if (*optarg == '-' || end == optarg || *end || v < 1 || v > SBX_EVAL_MAX_MEMORY_MIB) {
        fprintf(stderr, "sbx: error: eval: --memory: '%s' is not a size of 1 to %u MiB\n", optarg,
                SBX_EVAL_MAX_MEMORY_MIB);
        return -EINVAL;
      }
      o->memory_mib = (unsigned)v;
      break;
    }
    case EOPT_NO_WAIT:
      o->no_wait = true;
      break;
    case EOPT_WAIT_TIMEOUT:
      if (sbx_cli_parse_seconds(optarg, &o->wait_timeout_ms) != 0) {
        fprintf(stderr, "sbx: error: eval: --wait-timeout: '%s' is not a time\n", optarg);
        return -EINVAL;
      }
      break;
    case EOPT_AUDIT:
      o->audit_path = optarg;
      break;
    case ':':
      fprintf(stderr, "sbx: error: option '%s' needs an argument\n", argv[optind - 1]);
      return -EINVAL;
    default:
      fprintf(stderr, "sbx: error: unknown option '%s' for 'eval' (see sbx --help)\n",
              argv[optind - 1]);
      return -EINVAL;
    }
  }
  if (optind < argc)
    o->code = argv[optind++];
  if (optind < argc || !o->code == !o->code_file || (o->input && o->input_file)) {
    fprintf(stderr, "sbx: error: eval: give the code once (CODE or --code-file) and the input "
                    "at most once (--input or --input-file)\n");
    return -EINVAL;
  }
  return 0;
}

/* A whole file of at most max bytes, NUL-terminated, malloc'd; NULL after
 * a message. */
static char *sbx_eval_read_file(const char *path, size_t max)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  size_t len = 0, cap = 4096;
  char *buf;

  if (fd < 0) {
    fprintf(stderr, "sbx: error: eval: %s: %s\n", path, strerror(errno));
    return NULL;
  }
  buf = malloc(cap);
  while (buf) {
    if (len + 1 == cap) {
      char *more = cap > max ? NULL : realloc(buf, cap * 2);
      if (!more) {
        fprintf(stderr, "sbx: error: eval: %s: %s\n", path,
                cap > max ? "over the message size limit" : strerror(ENOMEM));
        free(buf);
        buf = NULL;
        break;
      }
      buf = more;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + len, cap - 1 - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      fprintf(stderr, "sbx: error: eval: %s: %s\n", path, strerror(errno));
      free(buf);
      buf = NULL;
      break;
    }
    if (n == 0) {
      buf[len] = '\0';
      break;
    }
    len += (size_t)n;
  }
  close(fd);
  return buf;
}

/* sbx-tee-worker beside this executable (the build tree, and an install
 * whose sbx-core lives with it), else where it is installed. */
static int sbx_eval_worker(char *out, size_t size)
{
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

  if (n > 0) {
    self[n] = '\0';
    if ((size_t)snprintf(out, size, "%s/sbx-tee-worker", dirname(self)) < size &&
        access(out, X_OK) == 0)
      return 0;
  }
  if ((size_t)snprintf(out, size, "%s", CS_TEE_WORKER_INSTALLED) < size && access(out, X_OK) == 0)
    return 0;
  fprintf(stderr, "sbx: error: eval: the isolated worker (sbx-tee-worker) was not found beside "
                  "sbx nor at " CS_TEE_WORKER_INSTALLED "\n");
  return -ENOENT;
}

static int sbx_eval_exit(const struct cs_tee_result *res)
{
  switch (res->status) {
  case CS_TEE_OK:
    return 0;
  case CS_TEE_JS_ERROR:
    return 1;
  case CS_TEE_TIMEOUT:
    return SBX_EXIT_TIMEOUT;
  case CS_TEE_WORKER_DIED:
    return res->signal ? SBX_EXIT_SIGNAL_BASE + res->signal : SBX_EXIT_FAILURE;
  case CS_TEE_BAD_REPLY:
  case CS_TEE_NO_WORKER:
    break;
  }
  return SBX_EXIT_FAILURE;
}

static void sbx_eval_outcome(struct sbx_audit_record *rec, const struct cs_tee_result *res)
{
  rec->duration_ms = res->duration_us / 1000u;
  switch (res->status) {
  case CS_TEE_OK:
  case CS_TEE_JS_ERROR:
    rec->outcome = SBX_AUDIT_EXITED;
    rec->status = res->status == CS_TEE_OK ? 0 : 1;
    break;
  case CS_TEE_TIMEOUT:
    rec->outcome = SBX_AUDIT_TIMED_OUT;
    rec->signal = res->signal;
    break;
  case CS_TEE_WORKER_DIED:
    rec->outcome = res->signal ? SBX_AUDIT_SIGNALED : SBX_AUDIT_EXITED;
    rec->signal = res->signal;
    rec->status = res->signal ? 0 : SBX_EXIT_FAILURE;
    break;
  case CS_TEE_BAD_REPLY:
  case CS_TEE_NO_WORKER:
    rec->outcome = SBX_AUDIT_NOT_RUN;
    break;
  }
}

int sbx_eval_cmd(const struct sbx_tables *t, int argc, char *const argv[])
{
  struct sbx_eval_opts o;
  struct sbx_audit audit = { .fd = -1 };
  struct sbx_audit_record rec;
  struct sbx_audit_eval ev;
  struct sbx_audit_denial den[1];
  struct sbx_admit adm;
  struct cs_tee_result res = { 0 };
  struct cs_tee_pool *pool = NULL;
  char worker[PATH_MAX], *code_buf = NULL, *input_buf = NULL;
  char *rec_argv[2];
  bool admit_open = false;
  int code = SBX_EXIT_FAILURE, r;

  if (sbx_eval_parse(argc, argv, &o) != 0)
    return SBX_EXIT_FAILURE;
  memset(&rec, 0, sizeof(rec));
  memset(&ev, 0, sizeof(ev));
  clock_gettime(CLOCK_REALTIME, &rec.start);
  rec.sbx_version = CS_VERSION;
  rec.profile_source = "none";
  rec.tier = SBX_EVAL_TIER;
  rec.model = t->model->model_name;
  rec.model_file = t->model_file;
  rec.timeout_ms = o.timeout_ms;
  rec.wait_timeout_ms = o.wait_timeout_ms;
  rec.sbx_exit = SBX_EXIT_FAILURE;
  rec.eval = &ev;
  ev.status = "not-run";
  ev.heap_bytes = (uint64_t)o.memory_mib * 1024u * 1024u;
  ev.max_message = CS_TEE_DEFAULT_MAX_MESSAGE;
  ev.cpu_seconds = (unsigned)(o.timeout_ms / 1000u) + SBX_EVAL_CPU_MARGIN_S;
  rec.denials = den;

  /* The log first: no evaluation runs without its record. */
  if (sbx_audit_open(&audit, o.audit_path ? o.audit_path : getenv(SBX_AUDIT_ENV), stderr) != 0)
    return SBX_EXIT_FAILURE;
  if (o.code_file && !(code_buf = sbx_eval_read_file(o.code_file, CS_TEE_DEFAULT_MAX_MESSAGE))) {
    rec.error = "--code-file unreadable";
    goto record;
  }
  if (o.input_file && !(input_buf = sbx_eval_read_file(o.input_file, CS_TEE_DEFAULT_MAX_MESSAGE))) {
    rec.error = "--input-file unreadable";
    goto record;
  }
  const char *js = code_buf ? code_buf : o.code;
  const char *input = input_buf ? input_buf : o.input;
  rec_argv[0] = "eval";
  rec_argv[1] = (char *)(uintptr_t)js;
  rec.argv = rec_argv;
  rec.argc = 2;
  ev.code_bytes = strlen(js);
  ev.input_bytes = input ? strlen(input) : 0;
  if (t->refused) {
    rec.error = t->refused;
    goto record;
  }
  if (sbx_eval_worker(worker, sizeof worker) != 0) {
    rec.error = "isolated worker not found";
    goto record;
  }

  r = t->model_state_name ? sbx_admit_open_named(&adm, t->model, t->model_state_name, stderr)
                          : sbx_admit_open(&adm, t->model, stderr);
  if (r != 0) {
    rec.error = "admission state unavailable";
    goto record;
  }
  admit_open = true;
  if (sbx_admit_record(&adm, NULL, o.no_wait, &rec, den, &rec.n_denials, stderr) != 0)
    goto record;

  struct cs_tee_config cfg = {
    .worker_path = worker,
    .workers = 1,
    .timeout_ms = o.timeout_ms,
    .heap_bytes = (size_t)ev.heap_bytes,
    .cpu_seconds = (unsigned)ev.cpu_seconds,
    .max_message = (size_t)ev.max_message,
  };
  r = cs_tee_pool_open(&pool, &cfg);
  if (r == 0)
    r = cs_tee_eval(pool, js, input, 0, &res);
  if (r != 0) {
    fprintf(stderr, "sbx: error: eval: %s\n",
            r == -EINVAL  ? "the code is not UTF-8, or the input is empty"
            : r == -E2BIG ? "the request is over the message size limit"
                          : strerror(-r));
    rec.error = r == -EINVAL  ? "code not UTF-8 or empty input"
                : r == -E2BIG ? "request too large"
                              : "eval failed";
    goto record;
  }
  ev.status = cs_tee_status_name(res.status);
  ev.heap_used = res.heap_used;
  sbx_eval_outcome(&rec, &res);
  code = sbx_eval_exit(&res);
  if (res.status == CS_TEE_OK) {
    printf("%s\n", res.value);
    if (fflush(stdout) != 0)
      code = SBX_EXIT_FAILURE;
  } else {
    fprintf(stderr, "sbx: eval: %s: %s\n", cs_tee_status_name(res.status), res.error);
    if (res.status != CS_TEE_JS_ERROR)
      rec.error = res.error;
  }

record:
  rec.sbx_exit = code;
  if (sbx_audit_append(&audit, &rec, stderr) != 0 && code == 0)
    code = SBX_EXIT_FAILURE;
  cs_tee_pool_close(pool);
  cs_tee_result_free(&res);
  if (admit_open) {
    if (rec.admitted)
      (void)sbx_admit_release(&adm, stderr);
    sbx_admit_close(&adm);
  }
  sbx_audit_close(&audit);
  free(code_buf);
  free(input_buf);
  return code;
}
