/* sbx_exec_server: `sbx exec-server`, JSON-RPC 2.0 over newline-delimited
 * JSON on stdio (docs/exec-protocol.md). Many processes per connection,
 * each one child `sbx exec --live` with its own descriptors: the request
 * on fd 3, the result on fd 4, the command's stdin, stdout and stderr
 * pipes this server writes and reads as they come.
 *
 * Why a child per process rather than runs in this process: sbx exec's
 * run owns the process's descriptors 0..2 and its signal handling for
 * the run's length, so two runs could not share one process; a child
 * also keeps one run's failure (or its memory) from touching another's.
 *
 * Security decisions, each fails closed:
 *   - the request is parsed and checked here with the parser sbx exec
 *     uses before any child starts: a bad one is -32602 and nothing runs;
 *   - the host options (who approves, the audit log, the workspace) are
 *     the server's command line, never the connection's;
 *   - every input is bounded (line length, processes, chunk size), so a
 *     client cannot make the server grow without limit;
 *   - the connection's end kills its processes: a run nobody can watch or
 *     stop any more must not go on. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "sbx_cli.h"
#include "sbx_exec.h"
#include "sbx_exec_base64.h"
#include "sbx_request.h"
#include "sbx_run.h"

#define SBX_RPC_PROTOCOL 1
#define SBX_RPC_LINE_MAX (24u * 1024u * 1024u) /* a 16 MiB request, base64 grown */
#define SBX_RPC_PROCS_MAX 16
#define SBX_RPC_CHUNK 65536
/* The most stdin a process/start may carry: what an empty pipe holds
 * (more goes by process/write, which never blocks the server). */
#define SBX_RPC_STDIN_MAX 65536u
#define SBX_RPC_RESULT_MAX (1024u * 1024u)
/* An approval request line from a child's sbx (its replies are bounded
 * the same by sbx, docs/approvals.md). */
#define SBX_RPC_APPROVAL_LINE_MAX (64u * 1024u)
/* How long a process's streams are drained after its result came: a
 * descriptor a daemonized grandchild keeps is not waited for. */
#define SBX_RPC_DRAIN_MS 500
/* How long a terminated child has to end before SIGKILL. */
#define SBX_RPC_KILL_GRACE_MS 2000

enum { RPC_PARSE = -32700, RPC_INVALID = -32600, RPC_METHOD = -32601, RPC_PARAMS = -32602 };

struct sbx_rpc_proc {
  bool used;
  json_int_t id;
  pid_t pid;
  int in_w, out_r, err_r, res_r;
  json_int_t seq[2];
  char *result;
  size_t result_len;
  bool reaped;
  int wstatus;
  uint64_t drain_since; /* 0: the result has not ended yet */
  /* process/terminate asked at this time (0: not): SIGTERM is sent again
   * until the child ends, since one that came while its sbx was still
   * setting up its handlers could be lost. */
  uint64_t terminate_at, last_term;
  /* The approver socket this server serves for the child's sbx
   * (--approver socket:PATH) when the host named no approver: listening,
   * the one accepted connection, its partial line. -1: none. */
  int appr_l, appr_c;
  char appr_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
  char *abuf;
  size_t alen;
};

struct sbx_rpc_server {
  const struct sbx_opts *o;
  int in, out;
  struct sbx_rpc_proc procs[SBX_RPC_PROCS_MAX];
  json_int_t next_id;
  bool initialized;
  char dir[PATH_MAX]; /* private (0700): the approver sockets; "" when none */
};

static uint64_t sbx_rpc_now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sbx_rpc_send(struct sbx_rpc_server *s, json_t *msg)
{
  if (msg) {
    json_object_set_new(msg, "jsonrpc", json_string("2.0"));
    sbx_exec_write(s->out, msg);
    json_decref(msg);
  }
}

static void sbx_rpc_reply(struct sbx_rpc_server *s, json_t *id, json_t *result)
{
  json_t *m = json_object();
  json_object_set(m, "id", id ? id : json_null());
  json_object_set_new(m, "result", result);
  sbx_rpc_send(s, m);
}

static void sbx_rpc_error(struct sbx_rpc_server *s, json_t *id, int code, const char *message,
                          json_t *data)
{
  json_t *m = json_object(), *e = json_object();
  json_object_set_new(e, "code", json_integer(code));
  json_object_set_new(e, "message", json_string(message));
  if (data)
    json_object_set_new(e, "data", data);
  json_object_set(m, "id", id ? id : json_null());
  json_object_set_new(m, "error", e);
  sbx_rpc_send(s, m);
}

static void sbx_rpc_notify(struct sbx_rpc_server *s, const char *method, json_t *params)
{
  json_t *m = json_object();
  json_object_set_new(m, "method", json_string(method));
  json_object_set_new(m, "params", params);
  sbx_rpc_send(s, m);
}

static struct sbx_rpc_proc *sbx_rpc_find(struct sbx_rpc_server *s, json_t *params)
{
  json_t *id = json_is_object(params) ? json_object_get(params, "id") : NULL;
  if (!json_is_integer(id))
    return NULL;
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++)
    if (s->procs[i].used && s->procs[i].id == json_integer_value(id))
      return &s->procs[i];
  return NULL;
}

static void sbx_rpc_close(int *fd)
{
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

/* The child: its five descriptors put in place, then sbx exec --live
 * with the server's own host options (argv[1..]). */
static void sbx_rpc_child(const struct sbx_opts *o, int fds[5], const char *approver)
{
  char *argv[64];
  int n = 0;
  for (int i = 0; i < 5; i++)
    if (fds[i] < 5) { /* move it out of the way first */
      int moved = fcntl(fds[i], F_DUPFD, 10);
      if (moved < 0)
        _exit(125);
      fds[i] = moved;
    }
  for (int i = 0; i < 5; i++)
    if (dup2(fds[i], i) < 0)
      _exit(125);
  closefrom(5);
  argv[n++] = "sbx";
  argv[n++] = "exec";
  argv[n++] = "--live";
  for (int i = 1; i < o->sub_argc && n < 61; i++) {
    /* --socket is the server's alone: a child serves nothing. */
    if (strcmp(o->sub_argv[i], "--socket") == 0) {
      i++;
      continue;
    }
    if (strncmp(o->sub_argv[i], "--socket=", 9) == 0)
      continue;
    argv[n++] = o->sub_argv[i];
  }
  if (approver) {
    argv[n++] = "--approver";
    argv[n++] = (char *)approver;
  }
  argv[n] = NULL;
  signal(SIGPIPE, SIG_DFL);
  execv("/proc/self/exe", argv);
  _exit(125);
}

static void sbx_rpc_approver_free(struct sbx_rpc_proc *p);

static int sbx_rpc_spawn(struct sbx_rpc_server *s, struct sbx_rpc_proc *p, const char *req,
                         size_t req_len, const struct sbx_exec_request *parsed)
{
  int in[2], out[2], err[2], rq[2], rs[2], fds[5];
  char spec[sizeof p->appr_path + 8];
  json_int_t id = s->next_id + 1;
  int lfd = -1;
  pid_t pid;
  /* No --approver of the host's: the connection approves. The child's
   * sbx asks this server on a socket of its own in a 0700 directory, and
   * only that child's pid is answered (checked when it connects). */
  p->appr_path[0] = '\0';
  if (!s->o->approver) {
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (snprintf(sa.sun_path, sizeof sa.sun_path, "%s/p%lld.sock", s->dir, (long long)id) >=
        (int)sizeof sa.sun_path)
      return -ENAMETOOLONG;
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 4) != 0) {
      int e = -errno;
      if (lfd >= 0)
        close(lfd);
      return e;
    }
    snprintf(p->appr_path, sizeof p->appr_path, "%s", sa.sun_path);
    snprintf(spec, sizeof spec, "socket:%s", sa.sun_path);
  }
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
      pipe2(rq, O_CLOEXEC) || pipe2(rs, O_CLOEXEC))
    return -errno; /* the descriptors leak only on this rare path, and the
                      connection is then near its limit anyway */
  fds[0] = in[0];
  fds[1] = out[1];
  fds[2] = err[1];
  fds[3] = rq[0];
  fds[4] = rs[1];
  pid = fork();
  if (pid < 0)
    return -errno;
  if (pid == 0)
    sbx_rpc_child(s->o, fds, lfd >= 0 ? spec : NULL);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(rq[0]);
  close(rs[1]);
  {
    char path[sizeof p->appr_path];
    memcpy(path, p->appr_path, sizeof path);
    memset(p, 0, sizeof *p);
    memcpy(p->appr_path, path, sizeof path);
  }
  p->appr_l = lfd;
  p->appr_c = -1;
  p->used = true;
  p->id = s->next_id = id;
  p->pid = pid;
  p->in_w = in[1];
  p->out_r = out[0];
  p->err_r = err[0];
  p->res_r = rs[0];
  /* The child reads the whole request before it does anything else, so
   * this blocking write cannot deadlock. The request's stdin bytes are
   * the first of the command's stream (the live child does not feed
   * them). */
  for (size_t off = 0; off < req_len;) {
    ssize_t w = write(rq[1], req + off, req_len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    off += (size_t)w;
  }
  close(rq[1]);
  /* Never blocking: a command that does not read must not stall the
   * server. The request's stdin is bounded so that an empty pipe takes it
   * whole; if this pipe does not (a user past the kernel's pipe-page
   * limit gets one-page pipes), the run is killed, never fed a cut stdin. */
  fcntl(p->in_w, F_SETFL, O_NONBLOCK);
  if (parsed->stdin_len &&
      write(p->in_w, parsed->stdin_data, parsed->stdin_len) != (ssize_t)parsed->stdin_len) {
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
    sbx_rpc_close(&p->in_w);
    sbx_rpc_close(&p->out_r);
    sbx_rpc_close(&p->err_r);
    sbx_rpc_close(&p->res_r);
    sbx_rpc_approver_free(p);
    p->used = false;
    return -EPIPE;
  }
  return 0;
}

static void sbx_rpc_start(struct sbx_rpc_server *s, json_t *id, json_t *params)
{
  struct sbx_exec_request req;
  struct sbx_exec_error e;
  struct sbx_rpc_proc *slot = NULL;
  char *text;
  int r;

  if (!json_is_object(params)) {
    sbx_rpc_error(s, id, RPC_PARAMS, "process/start: params must be an exec request object", NULL);
    return;
  }
  text = json_dumps(params, JSON_COMPACT);
  if (!text) {
    sbx_rpc_error(s, id, -32603, "out of memory", NULL);
    return;
  }
  /* Checked here with sbx exec's own parser: a bad request is refused
   * before any child starts, with the same error object sbx exec gives. */
  r = sbx_exec_request_parse(text, strlen(text), &req, &e);
  if (r != 0) {
    json_t *eo = sbx_exec_error_object(&e);
    json_t *data = eo ? json_incref(json_object_get(eo, "error")) : NULL;
    json_decref(eo);
    sbx_rpc_error(s, id, RPC_PARAMS, e.message, data);
    goto out;
  }
  if (req.stdin_len > SBX_RPC_STDIN_MAX) {
    sbx_rpc_error(s, id, RPC_PARAMS,
                  "stdin: at most 65536 bytes here; write more with process/write",
                  json_pack("{ss ss ss}", "code", "invalid_value", "message",
                            "stdin: at most 65536 bytes in process/start", "field", "stdin"));
    goto out;
  }
  for (int i = 0; i < SBX_RPC_PROCS_MAX && !slot; i++)
    if (!s->procs[i].used)
      slot = &s->procs[i];
  if (!slot) {
    sbx_rpc_error(s, id, -32000, "too many processes on this connection", NULL);
    goto out;
  }
  if (sbx_rpc_spawn(s, slot, text, strlen(text), &req) != 0) {
    sbx_rpc_error(s, id, -32603, "the process could not be started", NULL);
    goto out;
  }
  sbx_rpc_reply(s, id, json_pack("{sI}", "id", (json_int_t)slot->id));
out:
  sbx_exec_request_free(&req);
  free(text);
}

static void sbx_rpc_write(struct sbx_rpc_server *s, json_t *id, json_t *params)
{
  struct sbx_rpc_proc *p = sbx_rpc_find(s, params);
  json_t *data = json_is_object(params) ? json_object_get(params, "data") : NULL;
  unsigned char *bytes = NULL;
  size_t n = 0;
  ssize_t w = 0;
  if (!p || !json_is_string(data) ||
      sbx_b64_decode(json_string_value(data), json_string_length(data), &bytes, &n) != 0) {
    sbx_rpc_error(s, id, RPC_PARAMS,
                  p ? "process/write: data must be canonical base64" : "no such process", NULL);
    return;
  }
  if (p->in_w < 0) {
    sbx_rpc_error(s, id, -32001, "stdin is closed", NULL);
    free(bytes);
    return;
  }
  /* Non-blocking: a command that does not read must not stall the
   * connection's other processes; what the pipe did not take is said. */
  if (n)
    w = write(p->in_w, bytes, n);
  free(bytes);
  if (w < 0 && errno != EAGAIN) {
    sbx_rpc_error(s, id, -32001, "stdin is closed", NULL);
    return;
  }
  sbx_rpc_reply(s, id, json_pack("{sI}", "written", (json_int_t)(w < 0 ? 0 : w)));
}

/* One approval request line from a child's sbx: sent to the client as a
 * JSON-RPC request of this server's, id "approval-N-K" (N the process, K
 * sbx's own id), with the request's fields (docs/approvals.md). */
static void sbx_rpc_approval_ask(struct sbx_rpc_server *s, struct sbx_rpc_proc *p, const char *line,
                                 size_t len)
{
  json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
  json_t *k = json_object_get(req, "id");
  char rid[64];
  json_t *m;
  if (!json_is_object(req) || !json_is_integer(k)) {
    json_decref(req); /* not sbx's: nothing is asked, sbx times out (deny) */
    return;
  }
  snprintf(rid, sizeof rid, "approval-%lld-%lld", (long long)p->id,
           (long long)json_integer_value(k));
  json_object_set_new(req, "approval", json_integer(json_integer_value(k)));
  json_object_set_new(req, "id", json_integer(p->id));
  json_object_del(req, "type");
  m = json_pack("{ss ss so}", "id", rid, "method", "approval/request", "params", req);
  sbx_rpc_send(s, m);
}

/* The client's answer to an approval/request: relayed to the child's sbx
 * as its socket approver's reply. Only the decision, the scope and the
 * reason are passed on; anything else than a well-formed allow becomes a
 * deny, and sbx checks the reply again (docs/approvals.md, "Reply"). */
static void sbx_rpc_approval_answer(struct sbx_rpc_server *s, json_t *msg)
{
  long long pid_n, k;
  int used = 0;
  const char *rid = json_string_value(json_object_get(msg, "id"));
  json_t *res = json_object_get(msg, "result");
  json_t *decision = json_object_get(res, "decision"), *scope = json_object_get(res, "scope");
  json_t *reason = json_object_get(res, "reason");
  json_t *reply;
  struct sbx_rpc_proc *p = NULL;
  bool allow;
  if (sscanf(rid, "approval-%lld-%lld%n", &pid_n, &k, &used) != 2 || rid[used] != '\0')
    return;
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++)
    if (s->procs[i].used && s->procs[i].id == pid_n)
      p = &s->procs[i];
  if (!p || p->appr_c < 0)
    return; /* the run is over or its sbx gave up asking: too late */
  allow = json_is_string(decision) && strcmp(json_string_value(decision), "allow") == 0;
  reply = json_pack("{sI ss}", "id", (json_int_t)k, "decision", allow ? "allow" : "deny");
  if (allow && json_is_string(scope))
    json_object_set(reply, "scope", scope);
  if (json_is_string(reason))
    json_object_set(reply, "reason", reason);
  else if (!allow && json_object_get(msg, "error"))
    json_object_set_new(reply, "reason", json_string("the host answered with an error"));
  sbx_exec_write(p->appr_c, reply);
  json_decref(reply);
}

static void sbx_rpc_dispatch(struct sbx_rpc_server *s, json_t *msg)
{
  json_t *id = json_object_get(msg, "id");
  json_t *method = json_object_get(msg, "method");
  json_t *params = json_object_get(msg, "params");
  const char *m;
  struct sbx_rpc_proc *p;

  if (json_is_object(msg) && !method && json_is_string(id)) {
    sbx_rpc_approval_answer(s, msg);
    return;
  }
  if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "jsonrpc")) ||
      strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") != 0 ||
      !json_is_string(method) ||
      (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id))) {
    sbx_rpc_error(s, json_is_integer(id) || json_is_string(id) ? id : NULL, RPC_INVALID,
                  "not a JSON-RPC 2.0 request", NULL);
    return;
  }
  m = json_string_value(method);
  if (!id) /* a notification from the client: none is defined, so none is answered */
    return;
  if (strcmp(m, "initialize") == 0) {
    s->initialized = true;
    sbx_rpc_reply(s, id,
                  json_pack("{si si s{si si si sb}}", "protocolVersion", SBX_RPC_PROTOCOL,
                            "execVersion", SBX_EXEC_PROTOCOL, "capabilities", "maxProcesses",
                            SBX_RPC_PROCS_MAX, "maxLineBytes", (int)SBX_RPC_LINE_MAX, "chunkBytes",
                            SBX_RPC_CHUNK, "approvals", s->o->approver == NULL));
    return;
  }
  if (!s->initialized) {
    sbx_rpc_error(s, id, -32002, "initialize first", NULL);
    return;
  }
  if (strcmp(m, "process/start") == 0) {
    sbx_rpc_start(s, id, params);
    return;
  }
  if (strcmp(m, "process/write") == 0) {
    sbx_rpc_write(s, id, params);
    return;
  }
  if (strcmp(m, "process/closeStdin") != 0 && strcmp(m, "process/terminate") != 0) {
    sbx_rpc_error(s, id, RPC_METHOD, "unknown method", NULL);
    return;
  }
  if (!(p = sbx_rpc_find(s, params))) {
    sbx_rpc_error(s, id, RPC_PARAMS, "no such process", NULL);
    return;
  }
  if (strcmp(m, "process/closeStdin") == 0)
    sbx_rpc_close(&p->in_w);
  else if (!p->reaped) {
    kill(p->pid, SIGTERM); /* sbx's own path: the run is "interrupted" and recorded */
    p->terminate_at = p->last_term = sbx_rpc_now_ms();
  }
  sbx_rpc_reply(s, id, json_object());
}

/* One line from the client. */
static void sbx_rpc_line(struct sbx_rpc_server *s, const char *line, size_t len)
{
  json_error_t je;
  json_t *msg;
  if (len == 0)
    return;
  msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
  if (!msg) {
    sbx_rpc_error(s, NULL, RPC_PARSE, "parse error", json_pack("{ss}", "detail", je.text));
    return;
  }
  sbx_rpc_dispatch(s, msg);
  json_decref(msg);
}

static void sbx_rpc_output(struct sbx_rpc_server *s, struct sbx_rpc_proc *p, int which)
{
  static unsigned char buf[SBX_RPC_CHUNK];
  int *fd = which == 0 ? &p->out_r : &p->err_r;
  ssize_t n = read(*fd, buf, sizeof buf);
  char *b64;
  size_t b64_len;
  if (n < 0 && errno == EINTR)
    return;
  if (n <= 0) {
    sbx_rpc_close(fd);
    return;
  }
  b64 = sbx_b64_encode(buf, (size_t)n, &b64_len);
  if (!b64)
    return;
  sbx_rpc_notify(s, "process/output",
                 json_pack("{sI ss sI ss}", "id", (json_int_t)p->id, "stream",
                           which == 0 ? "stdout" : "stderr", "seq", p->seq[which]++, "data", b64));
  free(b64);
}

static void sbx_rpc_result(struct sbx_rpc_proc *p)
{
  char buf[4096];
  ssize_t n = read(p->res_r, buf, sizeof buf);
  if (n < 0 && errno == EINTR)
    return;
  if (n > 0 && p->result_len + (size_t)n <= SBX_RPC_RESULT_MAX) {
    char *more = realloc(p->result, p->result_len + (size_t)n + 1);
    if (more) {
      memcpy(more + p->result_len, buf, (size_t)n);
      p->result = more;
      p->result_len += (size_t)n;
      return;
    }
  }
  if (n > 0)
    return; /* past the bound: dropped; the result is then unreadable */
  sbx_rpc_close(&p->res_r);
  p->drain_since = sbx_rpc_now_ms();
}

/* The child's sbx connects to ask: only it is answered. Any other peer
 * (only the user's own processes can reach the 0700 directory; this is
 * the second wall) is closed at once. */
static void sbx_rpc_approver_accept(struct sbx_rpc_proc *p)
{
  struct ucred cred;
  socklen_t len = sizeof cred;
  int c = accept4(p->appr_l, NULL, NULL, SOCK_CLOEXEC);
  if (c < 0)
    return;
  if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid != p->pid ||
      cred.uid != geteuid()) {
    close(c);
    return;
  }
  /* sbx reconnects after any failure: the newest connection is the one. */
  sbx_rpc_close(&p->appr_c);
  p->appr_c = c;
  p->alen = 0;
}

static void sbx_rpc_approver_read(struct sbx_rpc_server *s, struct sbx_rpc_proc *p)
{
  char *nl;
  ssize_t n;
  if (!p->abuf && !(p->abuf = malloc(SBX_RPC_APPROVAL_LINE_MAX)))
    return;
  n = read(p->appr_c, p->abuf + p->alen, SBX_RPC_APPROVAL_LINE_MAX - p->alen);
  if (n < 0 && errno == EINTR)
    return;
  if (n <= 0) {
    sbx_rpc_close(&p->appr_c);
    return;
  }
  p->alen += (size_t)n;
  while ((nl = memchr(p->abuf, '\n', p->alen))) {
    size_t used = (size_t)(nl - p->abuf) + 1;
    sbx_rpc_approval_ask(s, p, p->abuf, used - 1);
    memmove(p->abuf, p->abuf + used, p->alen - used);
    p->alen -= used;
  }
  if (p->alen == SBX_RPC_APPROVAL_LINE_MAX) /* no line in 64 KiB: not sbx */
    sbx_rpc_close(&p->appr_c);
}

static void sbx_rpc_approver_free(struct sbx_rpc_proc *p)
{
  sbx_rpc_close(&p->appr_l);
  sbx_rpc_close(&p->appr_c);
  if (p->appr_path[0])
    unlink(p->appr_path);
  p->appr_path[0] = '\0';
  free(p->abuf);
  p->abuf = NULL;
}

/* Everything of a process is in: its exited notification, then its slot
 * is free. A result that is missing or unreadable is said, not made up. */
static void sbx_rpc_finish(struct sbx_rpc_server *s, struct sbx_rpc_proc *p)
{
  json_t *res = p->result ? json_loadb(p->result, p->result_len, 0, NULL) : NULL;
  json_t *params = json_pack("{sI}", "id", (json_int_t)p->id);
  if (res && json_is_object(res)) {
    json_t *empty = json_pack("{ss ss si si sb}", "data", "", "encoding", "utf-8", "bytes", 0,
                              "total_bytes", 0, "truncated", 0);
    /* The streams were sent as process/output: the result keeps their
     * shape with no data (docs/exec-protocol.md). */
    json_object_set(res, "stdout", empty);
    json_object_set(res, "stderr", empty);
    json_decref(empty);
    json_object_set_new(params, "result", res);
  } else {
    json_decref(res);
    json_object_set_new(params, "result", json_null());
    json_object_set_new(params, "error", json_string("the run's sbx ended without a result"));
  }
  json_object_set_new(params, "status",
                      json_integer(WIFEXITED(p->wstatus) ? WEXITSTATUS(p->wstatus) : 125));
  /* A terminate that came before the child's sbx set up its handlers
   * ends it by the signal itself, before any result: said as such. */
  if (WIFSIGNALED(p->wstatus))
    json_object_set_new(params, "signal", json_string(strsignal(WTERMSIG(p->wstatus))));
  sbx_rpc_notify(s, "process/exited", params);
  sbx_rpc_close(&p->in_w);
  sbx_rpc_close(&p->out_r);
  sbx_rpc_close(&p->err_r);
  free(p->result);
  p->result = NULL;
  sbx_rpc_approver_free(p);
  p->used = false;
}

static void sbx_rpc_reap(struct sbx_rpc_server *s)
{
  uint64_t now = sbx_rpc_now_ms();
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++) {
    struct sbx_rpc_proc *p = &s->procs[i];
    if (!p->used)
      continue;
    if (!p->reaped && waitpid(p->pid, &p->wstatus, WNOHANG) == p->pid)
      p->reaped = true;
    if (!p->reaped && p->terminate_at) {
      if (now - p->terminate_at > SBX_RPC_KILL_GRACE_MS)
        kill(p->pid, SIGKILL); /* terminate means ended, not asked nicely */
      else if (now - p->last_term >= 200) {
        kill(p->pid, SIGTERM);
        p->last_term = now;
      }
    }
    if (p->res_r >= 0 || !p->reaped)
      continue;
    if ((p->out_r >= 0 || p->err_r >= 0) && now - p->drain_since < SBX_RPC_DRAIN_MS)
      continue;
    sbx_rpc_finish(s, p);
  }
}

/* The connection is gone: every process of it is terminated, then
 * killed after a grace period (a run nobody can watch must not go on). */
static void sbx_rpc_kill_all(struct sbx_rpc_server *s)
{
  uint64_t t0 = sbx_rpc_now_ms();
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++)
    if (s->procs[i].used && !s->procs[i].reaped)
      kill(s->procs[i].pid, SIGTERM);
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++) {
    struct sbx_rpc_proc *p = &s->procs[i];
    if (!p->used)
      continue;
    while (!p->reaped) {
      if (waitpid(p->pid, &p->wstatus, WNOHANG) == p->pid) {
        p->reaped = true;
        break;
      }
      if (sbx_rpc_now_ms() - t0 > SBX_RPC_KILL_GRACE_MS) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, &p->wstatus, 0);
        p->reaped = true;
        break;
      }
      usleep(10000);
    }
    sbx_rpc_close(&p->in_w);
    sbx_rpc_close(&p->out_r);
    sbx_rpc_close(&p->err_r);
    sbx_rpc_close(&p->res_r);
    free(p->result);
    sbx_rpc_approver_free(p);
    p->used = false;
  }
}

static int sbx_rpc_serve(struct sbx_rpc_server *s)
{
  char *buf = malloc(SBX_RPC_LINE_MAX + 1);
  size_t len = 0;
  bool skipping = false, open = true;
  if (!buf)
    return SBX_EXIT_FAILURE;
  while (open) {
    struct pollfd pf[1 + 5 * SBX_RPC_PROCS_MAX];
    struct sbx_rpc_proc *who[1 + 5 * SBX_RPC_PROCS_MAX];
    int kind[1 + 5 * SBX_RPC_PROCS_MAX];
    nfds_t n = 0;
    pf[n] = (struct pollfd){ .fd = s->in, .events = POLLIN };
    who[n] = NULL;
    kind[n++] = -1;
    for (int i = 0; i < SBX_RPC_PROCS_MAX; i++) {
      struct sbx_rpc_proc *p = &s->procs[i];
      int fds[5];
      if (!p->used)
        continue;
      fds[0] = p->out_r;
      fds[1] = p->err_r;
      fds[2] = p->res_r;
      fds[3] = p->appr_l;
      fds[4] = p->appr_c;
      for (int k = 0; k < 5; k++)
        if (fds[k] >= 0) {
          pf[n] = (struct pollfd){ .fd = fds[k], .events = POLLIN };
          who[n] = p;
          kind[n++] = k;
        }
    }
    if (poll(pf, n, 50) < 0 && errno != EINTR)
      break;
    for (nfds_t i = 1; i < n; i++) {
      if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      if (kind[i] == 3)
        sbx_rpc_approver_accept(who[i]);
      else if (kind[i] == 4)
        sbx_rpc_approver_read(s, who[i]);
      else if (kind[i] == 2)
        sbx_rpc_result(who[i]);
      else
        sbx_rpc_output(s, who[i], kind[i]);
    }
    sbx_rpc_reap(s);
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t r = read(s->in, buf + len, SBX_RPC_LINE_MAX + 1 - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0) {
        open = false;
        break;
      }
      len += (size_t)r;
      for (;;) {
        char *nl = memchr(buf, '\n', len);
        size_t used;
        if (!nl) {
          /* Past the bound without a newline: the line is refused whole
           * and skipped to its end; its start is never taken for a
           * request. */
          if (len > SBX_RPC_LINE_MAX) {
            if (!skipping)
              sbx_rpc_error(s, NULL, RPC_INVALID, "line too long", NULL);
            skipping = true;
            len = 0;
          }
          break;
        }
        used = (size_t)(nl - buf) + 1;
        if (!skipping)
          sbx_rpc_line(s, buf, used - 1);
        skipping = false;
        memmove(buf, buf + used, len - used);
        len -= used;
      }
    }
  }
  free(buf);
  sbx_rpc_kill_all(s);
  return 0;
}

static int sbx_rpc_connection(const struct sbx_opts *o, int in, int out);

/* --socket PATH: the directory is the socket's access control, as for
 * sbx serve (docs/sbx.md): the user's, mode 0700, not a symlink; the
 * socket made 0600 and every peer's uid checked besides. */
static int sbx_rpc_listen(const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  char dir[PATH_MAX], *slash;
  struct stat st;
  mode_t old;
  int fd, rc;
  if (strlen(path) >= sizeof sa.sun_path ||
      snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
    fprintf(stderr, "sbx: error: exec-server: socket path too long: %s\n", path);
    return -ENAMETOOLONG;
  }
  strcpy(sa.sun_path, path);
  slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 0077)) {
    fprintf(stderr,
            "sbx: error: exec-server: the socket's directory %s must be a directory of uid %d "
            "with mode 0700\n",
            dir, (int)geteuid());
    return -EPERM;
  }
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
    fprintf(stderr, "sbx: error: exec-server: a server already answers at %s\n", path);
    close(fd);
    return -EADDRINUSE;
  }
  close(fd);
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  unlink(path); /* a stale socket nobody answers on (just checked) */
  old = umask(0077);
  rc = bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 16) < 0 ? -errno : 0;
  umask(old);
  if (rc < 0) {
    fprintf(stderr, "sbx: error: exec-server: %s: %s\n", path, strerror(-rc));
    close(fd);
    return rc;
  }
  return fd;
}

/* One process per connection (forked): each has its own processes and
 * approvals, and one client's end kills only its own runs. */
static int sbx_rpc_serve_socket(const struct sbx_opts *o)
{
  int l = sbx_rpc_listen(o->exec_socket);
  if (l < 0)
    return SBX_EXIT_FAILURE;
  signal(SIGCHLD, SIG_IGN); /* the connections' processes reap themselves */
  for (;;) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    pid_t pid;
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      break;
    }
    /* Only our own uid: anyone else could otherwise run commands as us. */
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) {
      close(c);
      continue;
    }
    pid = fork();
    if (pid == 0) {
      close(l);
      signal(SIGCHLD, SIG_DFL);
      _exit(sbx_rpc_connection(o, c, c));
    }
    close(c);
  }
  close(l);
  return SBX_EXIT_FAILURE;
}

int sbx_exec_server_cmd(const struct sbx_opts *o)
{
  /* A client gone while a notification is written is a closed
   * connection, seen at the next read, not a crash. */
  signal(SIGPIPE, SIG_IGN);
  if (o->exec_socket)
    return sbx_rpc_serve_socket(o);
  return sbx_rpc_connection(o, STDIN_FILENO, STDOUT_FILENO);
}

static int sbx_rpc_connection(const struct sbx_opts *o, int in, int out)
{
  struct sbx_rpc_server s = { .o = o, .in = in, .out = out };
  int code;
  for (int i = 0; i < SBX_RPC_PROCS_MAX; i++)
    s.procs[i].in_w = s.procs[i].out_r = s.procs[i].err_r = s.procs[i].res_r = s.procs[i].appr_l =
        s.procs[i].appr_c = -1;
  /* The approver sockets' directory: the user's only (mkdtemp makes it
   * 0700), so no other user can even reach a socket's name. */
  if (!o->approver) {
    const char *base = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (!base || !*base || stat(base, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077))
      base = "/tmp";
    snprintf(s.dir, sizeof s.dir, "%s/sbx-exec-server.XXXXXX", base);
    if (!mkdtemp(s.dir)) {
      fprintf(stderr, "sbx: error: exec-server: the approvals directory: %s\n", strerror(errno));
      return SBX_EXIT_FAILURE;
    }
  }
  code = sbx_rpc_serve(&s);
  if (s.dir[0])
    rmdir(s.dir);
  return code;
}
