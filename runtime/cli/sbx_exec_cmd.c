/* sbx_exec_cmd: `sbx exec`, one JSON request on stdin and one JSON
 * result on stdout (docs/exec-api.md). The CLI glue only: the request is
 * parsed and checked by runtime/exec, turned into the options `sbx run`
 * would have got, and run by the very function `sbx run` uses
 * (sbx_run_observed), so admission, approvals, confinement and the audit
 * record are the same, by construction.
 *
 * Why sbx's own messages go to a memory file and into the result's
 * `message`: stdout carries the result alone and stderr the host's
 * problems with sbx exec itself; the command's streams are captured
 * apart. Nothing of the three mixes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sbx_audit.h"
#include "sbx_diag.h"
#include "sbx_admit.h"
#include "sbx_exec.h"
#include "sbx_policy.h"
#include "sbx_request.h"
#include "sbx_run.h"

/* How much of sbx's own messages a result carries. */
#define SBX_EXEC_MESSAGE_MAX (64u * 1024u)

struct sbx_exec_run {
  const struct sbx_exec_request *req;
  struct sbx_exec_approvals approvals;
  json_t *result; /* from the record; NULL until the run told it */
  uint64_t admission_ms, run_ms;
};

static uint64_t sbx_exec_clock_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sbx_exec_on_approval(void *ctx, const struct cs_approval_request *req,
                                 const struct cs_approval_decision *d)
{
  struct sbx_exec_run *x = ctx;
  sbx_exec_approvals_add(&x->approvals, req, d);
}

static void sbx_exec_on_finished(void *ctx, const struct sbx_run_outcome *out)
{
  struct sbx_exec_run *x = ctx;
  x->result = sbx_exec_result_from_record(out->rec);
  x->admission_ms = out->rec->admission_wait_ms;
  x->run_ms = out->rec->duration_ms;
}

/* The whole request, at most SBX_EXEC_REQUEST_MAX + 1 bytes (one more
 * than allowed, so that the parser can tell "too large"). */
static int sbx_exec_read_request(int fd, char **text, size_t *len)
{
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  if (!buf)
    return -ENOMEM;
  for (;;) {
    ssize_t r;
    if (n == cap) {
      char *bigger;
      if (cap > SBX_EXEC_REQUEST_MAX)
        break;
      bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        return -ENOMEM;
      }
      buf = bigger;
      cap *= 2;
    }
    r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int err = -errno;
      free(buf);
      return err;
    }
    if (r == 0)
      break;
    n += (size_t)r;
  }
  *text = buf;
  *len = n;
  return 0;
}

/* The options `sbx run` would have had for this request. */
static int sbx_exec_options(const struct sbx_exec_request *req, struct sbx_opts *o, int diag)
{
  o->cmd = SBX_CMD_RUN;
  o->cmd_argv = (char *const *)req->argv;
  o->cmd_argc = (int)req->argc;
  o->cwd = req->cwd;
  o->profile = req->profile;
  o->tier = req->tier;
  o->run_id = req->run_id;
  o->policy = req->policy;
  o->lane = req->lane;
  if (req->n_labels > SBX_OPT_LABEL_MAX)
    return -E2BIG;
  for (size_t i = 0; i < req->n_labels; i++)
    o->labels[i] = req->labels[i];
  o->n_labels = (int)req->n_labels;
  o->labels[req->n_labels] = NULL;
  o->has_timeout = req->has_timeout;
  o->timeout_ms = req->timeout_ms;
  if (req->n_env > SBX_OPT_ENV_MAX)
    return -E2BIG;
  for (size_t i = 0; i < req->n_env; i++)
    o->set_env[i] = req->env[i];
  o->n_set_env = (int)req->n_env;
  o->set_env[req->n_env] = NULL;
  o->has_diag_fd = true;
  o->diag_fd = diag;
  return 0;
}

/* What sbx said during the run, from the start of the memory file. */
static size_t sbx_exec_messages(int diag, char *buf, size_t size)
{
  ssize_t n;
  fflush(sbx_diag());
  n = pread(diag, buf, size, 0);
  return n > 0 ? (size_t)n : 0;
}

/* Where the request comes from and the result goes: stdin and stdout,
 * or, live (the exec server's child, docs/exec-protocol.md), fds 3 and 4,
 * because 0..2 are then the command's own streams, passed through. */
#define SBX_EXEC_LIVE_REQUEST_FD 3
#define SBX_EXEC_LIVE_RESULT_FD 4
static int sbx_exec_result_fd = STDOUT_FILENO;

static int sbx_exec_answer(const json_t *o)
{
  if (!o || sbx_exec_write(sbx_exec_result_fd, o) != 0) {
    fprintf(stderr, "sbx: error: exec: the result could not be written\n");
    return SBX_EXIT_FAILURE;
  }
  return 0;
}

/* The error object; exit 2 for a refused request, 125 when sbx exec
 * itself could not go on (`internal`: the request was not at fault). */
static int sbx_exec_refuse(const struct sbx_exec_error *e)
{
  json_t *o = sbx_exec_error_object(e);
  int r = sbx_exec_answer(o);
  json_decref(o);
  if (r != 0 || strcmp(e->code, "internal") == 0)
    return SBX_EXIT_FAILURE;
  return SBX_EXEC_EXIT_BAD_REQUEST;
}

int sbx_exec_cmd(const struct sbx_tables *tp, const struct sbx_opts *op)
{
  struct sbx_tables t = *tp;
  struct sbx_opts o = *op;
  struct sbx_exec_request req;
  struct sbx_exec_error e;
  struct sbx_exec_capture cap;
  struct sbx_exec_run x = { .req = &req };
  struct sbx_user_policy up = { 0 };
  struct sbx_exec_durations d;
  uint64_t t0 = sbx_exec_clock_ms();
  char *text = NULL, *msg = NULL;
  size_t len = 0, msg_len = 0;
  int diag = -1, code, r;
  FILE *diag_f = NULL;

  sbx_exec_result_fd = o.exec_live ? SBX_EXEC_LIVE_RESULT_FD : STDOUT_FILENO;
  if ((r = sbx_exec_read_request(o.exec_live ? SBX_EXEC_LIVE_REQUEST_FD : STDIN_FILENO, &text,
                                 &len)) != 0) {
    memset(&e, 0, sizeof e);
    e.code = "invalid_json";
    snprintf(e.message, sizeof e.message, "reading the request: %s", strerror(-r));
    return sbx_exec_refuse(&e);
  }
  r = sbx_exec_request_parse(text, len, &req, &e);
  free(text);
  if (r != 0) {
    sbx_exec_request_free(&req);
    return sbx_exec_refuse(&e);
  }

  memset(&e, 0, sizeof e);
  e.code = "internal";
  diag = memfd_create("sbx-exec-messages", MFD_CLOEXEC);
  diag_f = diag >= 0 ? fdopen(dup(diag), "w") : NULL;
  msg = malloc(SBX_EXEC_MESSAGE_MAX);
  if (diag < 0 || !diag_f || !msg || sbx_exec_approvals_init(&x.approvals) != 0) {
    snprintf(e.message, sizeof e.message, "sbx exec: out of resources before the run");
    code = sbx_exec_refuse(&e);
    goto out_nothing;
  }
  if (sbx_exec_options(&req, &o, diag) != 0) {
    snprintf(e.message, sizeof e.message, "env or labels: too many");
    code = sbx_exec_refuse(&e);
    goto out;
  }
  /* A lane the scheduler model does not have is the request's fault:
   * refused before anything runs, as an unknown field would be. */
  if (req.lane && !sbx_admit_lane_known(t.model, req.lane)) {
    e.code = "unknown_lane";
    snprintf(e.field, sizeof e.field, "lane");
    snprintf(e.message, sizeof e.message, "unknown lane '%.64s' (sbx check lists the model's)",
             req.lane);
    code = sbx_exec_refuse(&e);
    goto out;
  }
  /* A refused policy is recorded like sbx run's --policy: nothing runs,
   * the audit log says why (an agent handing sbx untrusted rules is
   * worth an auditor's eye). */
  if (o.policy && sbx_policy_apply(&t, &o, &up, diag_f) != 0) {
    sbx_policy_free(&up);
    memset(&up, 0, sizeof up);
    t.profiles = NULL;
    t.n_profiles = 0;
    t.policy_file = o.policy;
    t.refused = "policy refused (request's policy)";
  }
  fflush(diag_f);
  /* Live, nothing is captured: the command inherits sbx's 0..2, which
   * the server reads as they come; the request's stdin bytes were fed by
   * the server (they are the first of the stream), so the result's
   * streams are empty. */
  if (o.exec_live) {
    static unsigned char nothing[1];
    memset(&cap, 0, sizeof cap);
    cap.out.data = cap.err.data = nothing;
  } else if ((r = sbx_exec_capture_start(&cap, req.stdin_data, req.stdin_len, req.output_limit)) !=
             0) {
    snprintf(e.message, sizeof e.message, "capturing the command's streams: %s", strerror(-r));
    code = sbx_exec_refuse(&e);
    goto out;
  }
  {
    const struct sbx_run_observer obs = { .approval = sbx_exec_on_approval,
                                          .finished = sbx_exec_on_finished,
                                          .ctx = &x };
    code = sbx_run_observed(&t, &o, &obs);
  }
  if (!o.exec_live)
    sbx_exec_capture_finish(&cap);
  msg_len = sbx_exec_messages(diag, msg, SBX_EXEC_MESSAGE_MAX);
  if (!x.result)
    x.result = sbx_exec_result_unrecorded(code);
  d.total_ms = sbx_exec_clock_ms() - t0;
  d.admission_ms = x.admission_ms;
  d.run_ms = x.run_ms;
  if (!x.result || sbx_exec_result_finish(x.result, &cap, &x.approvals, &d, msg, msg_len) != 0)
    code = SBX_EXIT_FAILURE;
  else
    code = sbx_exec_answer(x.result) == 0 ? SBX_EXEC_EXIT_RESULT : SBX_EXIT_FAILURE;
  if (code == SBX_EXIT_FAILURE && !x.result)
    fprintf(stderr, "sbx: error: exec: out of memory building the result\n");
  if (!o.exec_live)
    sbx_exec_capture_free(&cap);
out:
  sbx_policy_free(&up);
out_nothing:
  json_decref(x.result);
  sbx_exec_approvals_free(&x.approvals);
  if (diag_f)
    fclose(diag_f);
  if (diag >= 0)
    close(diag);
  free(msg);
  sbx_exec_request_free(&req);
  return code;
}
