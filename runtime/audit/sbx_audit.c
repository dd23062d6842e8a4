/* sbx_audit: the JSON-lines audit log (see sbx_audit.h, docs/audit-log.md). */
#include "sbx_audit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* When a record would be longer than SBX_AUDIT_MAX_RECORD it is rebuilt
 * with this many argv entries / denials, each string cut to this many
 * bytes, and "truncated": true, so the run is still recorded. */
#define SBX_AUDIT_SHORT_ITEMS 32
#define SBX_AUDIT_SHORT_BYTES 512

int sbx_audit_rfc3339(const struct timespec *ts, char *buf, size_t size)
{
  struct tm tm;
  char sec[32];

  if (!gmtime_r(&ts->tv_sec, &tm))
    return -EOVERFLOW;
  if (strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
    return -EOVERFLOW;
  if ((size_t)snprintf(buf, size, "%s.%03ldZ", sec, ts->tv_nsec / 1000000) >= size)
    return -EOVERFLOW;
  return 0;
}

static size_t sbx_audit_cut(const char *s, size_t max)
{
  size_t n = strlen(s);

  if (n <= max)
    return n;
  /* Never cut inside a UTF-8 sequence: back up over continuation bytes. */
  while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
    max--;
  return max;
}

/* A string as JSON. Bytes that are not UTF-8 (argv may hold anything) are
 * not replaced, which would lose what ran: the value becomes {"hex": ...}
 * with every byte, and the schema says so. */
static json_t *sbx_audit_bytes(const char *s, size_t max)
{
  static const char hexd[] = "0123456789abcdef";
  size_t n = sbx_audit_cut(s, max);
  json_t *v = json_stringn(s, n);
  json_t *obj = NULL;
  char *hex = NULL;

  if (v)
    return v;
  hex = malloc(2 * n + 1);
  if (!hex)
    goto fail;
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = hexd[(unsigned char)s[i] >> 4];
    hex[2 * i + 1] = hexd[(unsigned char)s[i] & 15];
  }
  hex[2 * n] = '\0';
  obj = json_object();
  if (!obj || json_object_set_new(obj, "hex", json_string(hex)) != 0)
    goto fail;
  free(hex);
  return obj;
fail:
  json_decref(obj);
  free(hex);
  return NULL;
}

static const char *sbx_audit_outcome_name(enum sbx_audit_outcome o)
{
  switch (o) {
  case SBX_AUDIT_NOT_RUN:
    return "not-run";
  case SBX_AUDIT_EXITED:
    return "exited";
  case SBX_AUDIT_SIGNALED:
    return "signaled";
  case SBX_AUDIT_TIMED_OUT:
    return "timed-out";
  case SBX_AUDIT_INTERRUPTED:
    return "interrupted";
  }
  return "unknown";
}

/* json_object_set_new that counts failures instead of branching at every
 * call: one check at the end keeps the builder readable. */
static void sbx_set(json_t *o, const char *k, json_t *v, int *bad)
{
  if (!v || json_object_set_new(o, k, v) != 0)
    (*bad)++;
}

static void sbx_set_str(json_t *o, const char *k, const char *s, size_t max, int *bad)
{
  sbx_set(o, k, s ? sbx_audit_bytes(s, max) : json_null(), bad);
}

/* A NULL-terminated list of names as a JSON array. */
static json_t *sbx_audit_names(const char *const *names, size_t max, int *bad)
{
  json_t *a = json_array();
  for (size_t i = 0; a && names && names[i]; i++)
    if (json_array_append_new(a, sbx_audit_bytes(names[i], max)) != 0)
      (*bad)++;
  return a;
}

/* The per-run settings: the run id, the working directory, and the
 * environment asked for. Values are recorded only for --env, which the
 * caller wrote on sbx's command line (visible in /proc to every local
 * user already, and never under a name of a secret: sbx_env_rules.c);
 * of --pass-env only the names, since those values come from the caller's
 * environment, where secrets live. */
static void sbx_audit_settings(json_t *o, const struct sbx_audit_record *r, size_t max, int *bad)
{
  json_t *env, *set;

  if (r->run_id)
    sbx_set_str(o, "run_id", r->run_id, SIZE_MAX, bad);
  if (r->cwd)
    sbx_set_str(o, "cwd", r->cwd, max, bad);
  if (!(env = json_object()) || !(set = json_object())) {
    json_decref(env);
    (*bad)++;
    return;
  }
  for (size_t i = 0; r->env_set && r->env_set[i]; i++) {
    const char *eq = strchr(r->env_set[i], '=');
    char name[160];
    if (!eq || (size_t)(eq - r->env_set[i]) >= sizeof name) {
      (*bad)++;
      continue;
    }
    memcpy(name, r->env_set[i], (size_t)(eq - r->env_set[i]));
    name[eq - r->env_set[i]] = '\0';
    sbx_set(set, name, sbx_audit_bytes(eq + 1, max), bad);
  }
  sbx_set(env, "set", set, bad);
  sbx_set(env, "passed", sbx_audit_names(r->env_passed, max, bad), bad);
  sbx_set(env, "not_set", sbx_audit_names(r->env_unset, max, bad), bad);
  sbx_set(o, "env", env, bad);
  /* What of the real home the run could see and what it kept (a cache
   * kept between runs is where one run can leave something for the
   * next: docs/threat-model.md), and the extra path it asked for. */
  if (r->n_home_read_only || r->n_home_persistent) {
    json_t *home = json_object(), *ro = json_array(), *keep = json_array();
    for (uint32_t i = 0; ro && i < r->n_home_read_only; i++)
      if (json_array_append_new(ro, sbx_audit_bytes(r->home_read_only[i].path, max)) != 0)
        (*bad)++;
    for (uint32_t i = 0; keep && i < r->n_home_persistent; i++)
      if (json_array_append_new(keep, sbx_audit_bytes(r->home_persistent[i].path, max)) != 0)
        (*bad)++;
    if (!home) {
      json_decref(ro);
      json_decref(keep);
      (*bad)++;
    } else {
      sbx_set(home, "read_only", ro, bad);
      sbx_set(home, "persistent", keep, bad);
      if (r->home_state && r->home_state[0])
        sbx_set_str(home, "kept_in", r->home_state, max, bad);
      if (r->home_notes && r->home_notes[0])
        sbx_set_str(home, "notes", r->home_notes, max, bad);
      sbx_set(o, "home", home, bad);
    }
  }
  if (r->extra_path) {
    json_t *extra = json_object();
    if (!extra)
      (*bad)++;
    else {
      sbx_set_str(extra, "path", r->extra_path, max, bad);
      sbx_set_str(extra, "access", r->extra_rw ? "rw" : "ro", SIZE_MAX, bad);
      sbx_set(o, "extra_path", extra, bad);
    }
  }
}

/* "network": what went through the proxy, totals first, then each of
 * the first connections (docs/audit-log.md, "network"). */
static void sbx_audit_network(json_t *o, const struct sbx_audit_network *net, bool shorten,
                              size_t max, int *bad)
{
  json_t *n = json_object(), *list = json_array();
  size_t k = net->n < SBX_AUDIT_CONNS_MAX ? net->n : SBX_AUDIT_CONNS_MAX;

  if (!n || !list) {
    (*bad)++;
    json_decref(n);
    json_decref(list);
    return;
  }
  if (shorten && k > SBX_AUDIT_SHORT_ITEMS)
    k = SBX_AUDIT_SHORT_ITEMS;
  sbx_set_str(n, "via", "proxy", SIZE_MAX, bad);
  sbx_set(n, "connections_total", json_integer((json_int_t)net->total), bad);
  sbx_set(n, "allowed", json_integer((json_int_t)net->allowed), bad);
  sbx_set(n, "refused", json_integer((json_int_t)net->refused), bad);
  sbx_set(n, "bytes_up", json_integer((json_int_t)net->bytes_up), bad);
  sbx_set(n, "bytes_down", json_integer((json_int_t)net->bytes_down), bad);
  for (size_t i = 0; i < k; i++) {
    const struct sbx_audit_conn *c = &net->conns[i];
    json_t *e = json_object();
    if (!e) {
      (*bad)++;
      continue;
    }
    sbx_set_str(e, "protocol", c->protocol, SIZE_MAX, bad);
    sbx_set_str(e, "host", c->host, max, bad);
    sbx_set(e, "port", json_integer((json_int_t)c->port), bad);
    sbx_set_str(e, "dialled", c->dialled && c->dialled[0] ? c->dialled : NULL, max, bad);
    sbx_set_str(e, "decision", c->allowed ? "allow" : "deny", SIZE_MAX, bad);
    sbx_set_str(e, "basis", c->basis, max, bad);
    sbx_set_str(e, "refusal", c->refusal && c->refusal[0] ? c->refusal : NULL, max, bad);
    sbx_set(e, "bytes_up", json_integer((json_int_t)c->bytes_up), bad);
    sbx_set(e, "bytes_down", json_integer((json_int_t)c->bytes_down), bad);
    sbx_set(e, "duration_ms", json_integer((json_int_t)c->duration_ms), bad);
    if (json_array_append_new(list, e) != 0)
      (*bad)++;
  }
  sbx_set(n, "connections", json_incref(list), bad);
  json_decref(list);
  sbx_set(o, "network", n, bad);
}

static json_t *sbx_audit_build(const struct sbx_audit_record *r, bool shorten, int *bad)
{
  size_t max = shorten ? SBX_AUDIT_SHORT_BYTES : SIZE_MAX;
  size_t nargv = (size_t)(r->argc > 0 ? r->argc : 0);
  size_t nden = r->n_denials;
  json_t *o = json_object(), *argv = json_array(), *lim = json_object(), *res = json_object();
  json_t *adm = json_object(), *den = json_array();
  char when[48];

  if (!o || !argv || !lim || !res || !adm || !den) {
    (*bad)++;
    goto done;
  }
  if (sbx_audit_rfc3339(&r->start, when, sizeof(when)) != 0)
    snprintf(when, sizeof(when), "invalid-time");
  if (shorten) {
    nargv = nargv < SBX_AUDIT_SHORT_ITEMS ? nargv : SBX_AUDIT_SHORT_ITEMS;
    nden = nden < SBX_AUDIT_SHORT_ITEMS ? nden : SBX_AUDIT_SHORT_ITEMS;
  }

  sbx_set(o, "schema", json_integer(SBX_AUDIT_SCHEMA), bad);
  sbx_set_str(o, "time", when, SIZE_MAX, bad);
  sbx_set_str(o, "sbx_version", r->sbx_version, SIZE_MAX, bad);
  sbx_set(o, "pid", json_integer(getpid()), bad);
  sbx_set(o, "uid", json_integer(getuid()), bad);
  sbx_set_str(o, "profile", r->profile, SIZE_MAX, bad);
  sbx_set_str(o, "profile_alias", r->profile_alias, SIZE_MAX, bad);
  sbx_set_str(o, "profile_source", r->profile_source, SIZE_MAX, bad);
  /* A profile from a user's file is named with the file, so the record
   * says which rules ran, not only a name any file can declare. */
  if (r->policy_file)
    sbx_set_str(o, "policy_file", r->policy_file, max, bad);
  sbx_set_str(o, "tier", r->tier, max, bad);
  sbx_set_str(o, "lane", r->lane, max, bad);
  sbx_set_str(o, "route", r->route, max, bad);
  sbx_set_str(o, "backend", r->backend, max, bad);
  /* Only a container run has an image: other records keep their shape. */
  if (r->image)
    sbx_set_str(o, "image", r->image, max, bad);
  /* Which start-up path confined the run: the layers are the same, the
   * auditor may still want to know (docs/sbx.md, "Warm start"). */
  if (r->start_path)
    sbx_set_str(o, "start", r->start_path, SIZE_MAX, bad);
  for (size_t i = 0; i < nargv; i++)
    if (!r->argv[i] || json_array_append_new(argv, sbx_audit_bytes(r->argv[i], max)) != 0)
      (*bad)++;
  sbx_set(o, "argv", json_incref(argv), bad);
  sbx_set_str(o, "workspace", r->workspace, max, bad);

  sbx_set_str(adm, "model", r->model, SIZE_MAX, bad);
  if (r->model_file)
    sbx_set_str(adm, "model_file", r->model_file, max, bad);
  sbx_set(adm, "admitted", json_boolean(r->admitted), bad);
  sbx_set(adm, "wait_ms", json_integer((json_int_t)r->admission_wait_ms), bad);
  if (r->wait_timeout_ms)
    sbx_set(adm, "wait_timeout_ms", json_integer((json_int_t)r->wait_timeout_ms), bad);
  sbx_set(adm, "wait_noticed", json_boolean(r->wait_noticed), bad);
  sbx_set(adm, "timed_out", json_boolean(r->wait_timed_out), bad);
  sbx_set(o, "admission", json_incref(adm), bad);
  sbx_audit_settings(o, r, max, bad);

  if (r->limits) {
    sbx_set(lim, "max_execution_ms", json_integer((json_int_t)r->limits->max_execution_ms), bad);
    sbx_set(lim, "max_memory_bytes", json_integer((json_int_t)r->limits->max_memory_bytes), bad);
    sbx_set(lim, "max_cpu_seconds", json_integer((json_int_t)r->limits->max_cpu_seconds), bad);
    sbx_set(lim, "max_processes", json_integer((json_int_t)r->limits->max_processes), bad);
    sbx_set(lim, "max_open_files", json_integer((json_int_t)r->limits->max_open_files), bad);
    sbx_set(lim, "max_file_size", json_integer((json_int_t)r->limits->max_file_size), bad);
  }
  sbx_set(lim, "timeout_ms", json_integer((json_int_t)r->timeout_ms), bad);
  sbx_set(o, "limits", json_incref(lim), bad);

  sbx_set_str(res, "outcome", sbx_audit_outcome_name(r->outcome), SIZE_MAX, bad);
  if (r->outcome == SBX_AUDIT_EXITED)
    sbx_set(res, "exit_status", json_integer(r->status), bad);
  if (r->outcome == SBX_AUDIT_SIGNALED || r->outcome == SBX_AUDIT_INTERRUPTED ||
      (r->outcome == SBX_AUDIT_TIMED_OUT && r->signal)) {
    sbx_set(res, "signal", json_integer(r->signal), bad);
    const char *abbrev = sigabbrev_np(r->signal);
    char name[32];
    snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
    sbx_set_str(res, "signal_name", name, SIZE_MAX, bad);
  }
  sbx_set(res, "duration_ms", json_integer((json_int_t)r->duration_ms), bad);
  sbx_set(res, "sbx_exit", json_integer(r->sbx_exit), bad);
  sbx_set_str(res, "error", r->error, max, bad);
  sbx_set(o, "result", json_incref(res), bad);

  for (size_t i = 0; i < nden; i++) {
    json_t *d = json_object();
    if (!d) {
      (*bad)++;
      continue;
    }
    sbx_set_str(d, "layer", r->denials[i].layer, max, bad);
    sbx_set_str(d, "rule", r->denials[i].rule, max, bad);
    sbx_set_str(d, "what", r->denials[i].what, max, bad);
    sbx_set_str(d, "action", r->denials[i].action, max, bad);
    if (json_array_append_new(den, d) != 0)
      (*bad)++;
  }
  sbx_set(o, "denials", json_incref(den), bad);
  if (r->network)
    sbx_audit_network(o, r->network, shorten, max, bad);
  if (r->eval) {
    json_t *ev = json_object();
    sbx_set_str(ev, "status", r->eval->status, SIZE_MAX, bad);
    sbx_set(ev, "heap_bytes", json_integer((json_int_t)r->eval->heap_bytes), bad);
    sbx_set(ev, "heap_used", json_integer((json_int_t)r->eval->heap_used), bad);
    sbx_set(ev, "max_message", json_integer((json_int_t)r->eval->max_message), bad);
    sbx_set(ev, "cpu_seconds", json_integer((json_int_t)r->eval->cpu_seconds), bad);
    sbx_set(ev, "code_bytes", json_integer((json_int_t)r->eval->code_bytes), bad);
    sbx_set(ev, "input_bytes", json_integer((json_int_t)r->eval->input_bytes), bad);
    sbx_set(o, "eval", ev, bad);
  }
  if (shorten)
    sbx_set(o, "truncated", json_true(), bad);
done:
  json_decref(argv);
  json_decref(lim);
  json_decref(res);
  json_decref(adm);
  json_decref(den);
  return o;
}

char *sbx_audit_format(const struct sbx_audit_record *r, int *errp)
{
  char *line = NULL, *out = NULL;
  json_t *o = NULL;
  size_t len = 0;
  int bad = 0;

  for (int pass = 0; pass < 2; pass++) {
    bad = 0;
    o = sbx_audit_build(r, pass == 1, &bad);
    if (!o || bad) {
      *errp = -ENOMEM;
      goto cleanup;
    }
    line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    o = NULL;
    if (!line) {
      *errp = -ENOMEM;
      goto cleanup;
    }
    len = strlen(line);
    if (len + 1 <= SBX_AUDIT_MAX_RECORD)
      break;
    free(line);
    line = NULL;
  }
  if (!line) {
    *errp = -EMSGSIZE;
    goto cleanup;
  }
  out = malloc(len + 2);
  if (!out) {
    *errp = -ENOMEM;
    goto cleanup;
  }
  memcpy(out, line, len);
  out[len] = '\n';
  out[len + 1] = '\0';
cleanup:
  json_decref(o);
  free(line);
  return out;
}

/* Room for one more record of `need` bytes: free blocks on the file
 * system, and our own RLIMIT_FSIZE (a write past it raises SIGXFSZ). */
static int sbx_audit_room(int fd, size_t need, const char *path, FILE *err)
{
  struct statvfs vfs;
  struct rlimit rl;
  struct stat st;

  if (fstat(fd, &st) != 0 || fstatvfs(fd, &vfs) != 0) {
    int e = errno;
    fprintf(err, "sbx: error: audit log %s: %s\n", path, strerror(e));
    return -e;
  }
  if (vfs.f_flag & ST_RDONLY) {
    fprintf(err, "sbx: error: audit log %s: read-only file system\n", path);
    return -EROFS;
  }
  if ((uint64_t)vfs.f_bavail * vfs.f_frsize < need) {
    fprintf(err,
            "sbx: error: audit log %s: file system has %llu bytes free, "
            "a record needs up to %zu; refusing to run without a record\n",
            path, (unsigned long long)vfs.f_bavail * vfs.f_frsize, need);
    return -ENOSPC;
  }
  if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (uint64_t)st.st_size + need > (uint64_t)rl.rlim_cur) {
    fprintf(err, "sbx: error: audit log %s: RLIMIT_FSIZE %llu leaves no room for a record\n", path,
            (unsigned long long)rl.rlim_cur);
    return -EFBIG;
  }
  return 0;
}

int sbx_audit_open(struct sbx_audit *a, const char *path, FILE *err)
{
  struct stat st;
  int r;

  a->fd = -1;
  a->path = NULL;
  if (!path)
    return 0;
  if (!*path) {
    fprintf(err, "sbx: error: audit log: empty path\n");
    return -EINVAL;
  }
  a->path = strdup(path);
  if (!a->path) {
    r = -ENOMEM;
    goto fail;
  }
  /* O_CLOEXEC: the confined command must never inherit the log. 0600:
   * records carry argv, which may hold secrets. O_NONBLOCK so a FIFO put
   * in the log's place cannot hang us before the type check refuses it. */
  a->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
  if (a->fd < 0) {
    r = -errno;
    fprintf(err, "sbx: error: audit log %s: cannot open for appending: %s\n", path, strerror(-r));
    goto fail;
  }
  if (fstat(a->fd, &st) != 0) {
    r = -errno;
    fprintf(err, "sbx: error: audit log %s: %s\n", path, strerror(-r));
    goto fail;
  }
  /* Only a regular file gives O_APPEND's one-write-one-record guarantee. */
  if (!S_ISREG(st.st_mode)) {
    fprintf(err, "sbx: error: audit log %s: not a regular file\n", path);
    r = -EINVAL;
    goto fail;
  }
  r = sbx_audit_room(a->fd, SBX_AUDIT_RESERVE, path, err);
  if (r != 0)
    goto fail;
  return 0;
fail:
  sbx_audit_close(a);
  return r;
}

int sbx_audit_append(struct sbx_audit *a, const struct sbx_audit_record *r, FILE *err)
{
  char *line = NULL;
  size_t len;
  ssize_t w;
  int rc = 0;

  if (a->fd < 0)
    return 0;
  line = sbx_audit_format(r, &rc);
  if (!line) {
    fprintf(err, "sbx: error: audit log %s: cannot format the record: %s\n", a->path,
            strerror(-rc));
    goto cleanup;
  }
  len = strlen(line);
  rc = sbx_audit_room(a->fd, len, a->path, err);
  if (rc != 0)
    goto cleanup;
  /* One write of the whole line: with O_APPEND the kernel positions and
   * writes it under the inode lock, so concurrent sbx never interleave. A
   * short write is only possible when the file system fails; retrying the
   * rest would not be atomic any more, so it is reported instead. */
  w = write(a->fd, line, len);
  if (w < 0) {
    rc = -errno;
    fprintf(err, "sbx: error: audit log %s: write: %s\n", a->path, strerror(-rc));
    goto cleanup;
  }
  if ((size_t)w != len) {
    rc = -ENOSPC;
    fprintf(err, "sbx: error: audit log %s: short write (%zd of %zu bytes)\n", a->path, w, len);
    goto cleanup;
  }
  /* The record is the proof the run happened: make it durable before sbx
   * reports the command's status. */
  if (fdatasync(a->fd) != 0 && errno != EINVAL) {
    rc = -errno;
    fprintf(err, "sbx: error: audit log %s: fdatasync: %s\n", a->path, strerror(-rc));
  }
cleanup:
  /* A record that could not be stored is still shown, not lost. */
  if (rc != 0 && line)
    fprintf(err, "sbx: audit record not written, here it is: %s", line);
  free(line);
  return rc;
}

void sbx_audit_close(struct sbx_audit *a)
{
  if (a->fd >= 0)
    close(a->fd);
  a->fd = -1;
  free(a->path);
  a->path = NULL;
}
