/* out_file: see out_file.h. */
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"

struct out_file {
  char *path;     /* final name (symlinks resolved) */
  char *tmp_path; /* NULL when writing straight to a non-regular file */
  FILE *stream;
};

/* Temporary files that exist right now, for the signal handler: a build
 * interrupted with ^C (or a CI timeout's SIGTERM) must not leave them
 * behind. Only async-signal-safe work happens in the handler: unlink(2) on
 * paths that stay allocated while registered. */
#define OUT_FILE_MAX_PENDING 16
static const char *volatile out_file_pending[OUT_FILE_MAX_PENDING];
static volatile sig_atomic_t out_file_handlers_installed;

static void out_file_on_signal(int sig)
{
  for (int i = 0; i < OUT_FILE_MAX_PENDING; i++)
    if (out_file_pending[i])
      unlink(out_file_pending[i]);
  /* Die of the same signal, so the parent sees how we ended. */
  signal(sig, SIG_DFL);
  raise(sig);
}

static void out_file_install_handlers(void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
  if (out_file_handlers_installed)
    return;
  out_file_handlers_installed = 1;
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa = { .sa_handler = out_file_on_signal };
    sigemptyset(&sa.sa_mask);
    /* Keep an ignored signal ignored (nohup, a shell's background job). */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
      continue;
    sigaction(sigs[i], &sa, NULL);
  }
}

/* Beyond OUT_FILE_MAX_PENDING files the output is still written; only the
 * cleanup on a signal is lost for the extra ones. */
static void out_file_track(const char *tmp, int on)
{
  for (int i = 0; i < OUT_FILE_MAX_PENDING; i++) {
    if (on && !out_file_pending[i]) {
      out_file_pending[i] = tmp;
      return;
    }
    if (!on && out_file_pending[i] == tmp) {
      out_file_pending[i] = NULL;
      return;
    }
  }
}

static int out_file_fail(const char *path, int err)
{
  fprintf(diag_stream(), "%s: error: cannot write output: %s\n", path, strerror(err));
  return -err;
}

static char *out_file_temp_name(const char *path, unsigned attempt)
{
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dir_len;
  /* Hidden, and named after the final file, so a leftover from a killed
   * run is recognisable and never matches a build glob for *.c. */
  int n =
      snprintf(NULL, 0, "%.*s.%s.tmp.%ld.%u", (int)dir_len, path, base, (long)getpid(), attempt);
  if (n < 0)
    return NULL;
  char *name = malloc((size_t)n + 1);
  if (!name)
    return NULL;
  snprintf(name, (size_t)n + 1, "%.*s.%s.tmp.%ld.%u", (int)dir_len, path, base, (long)getpid(),
           attempt);
  return name;
}

int out_file_open(const char *path, struct out_file **out)
{
  struct out_file *f = NULL;
  int fd = -1, err = 0;

  *out = NULL;
  f = calloc(1, sizeof *f);
  if (!f) {
    err = ENOMEM;
    goto fail;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    /* A device or pipe (-o /dev/stdout, a FIFO read by another tool):
     * there is no file to replace, and renaming a temporary over it would
     * destroy the device node. Write through; a failure is still reported. */
    if (!(f->path = strdup(path))) {
      err = ENOMEM;
      goto fail;
    }
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      err = errno;
      goto fail;
    }
    goto stream;
  }
  /* Through a symlink, replace the file it points to, not the link. */
  f->path = realpath(path, NULL);
  if (!f->path && !(f->path = strdup(path))) {
    err = ENOMEM;
    goto fail;
  }
  for (unsigned attempt = 0;; attempt++) {
    free(f->tmp_path);
    f->tmp_path = out_file_temp_name(f->path, attempt);
    if (!f->tmp_path) {
      err = ENOMEM;
      goto fail;
    }
    /* O_EXCL: never write through a file or symlink someone else placed
     * under the temporary name. */
    out_file_install_handlers();
    fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      out_file_track(f->tmp_path, 1);
      break;
    }
    if (errno != EEXIST || attempt >= 100) {
      err = errno;
      free(f->tmp_path);
      f->tmp_path = NULL;
      goto fail;
    }
  }
stream:
  f->stream = fdopen(fd, "w");
  if (!f->stream) {
    err = errno;
    goto fail;
  }
  *out = f;
  return 0;

fail:
  if (fd >= 0) {
    close(fd);
    if (f->tmp_path) {
      unlink(f->tmp_path);
      out_file_track(f->tmp_path, 0);
    }
  }
  if (f) {
    free(f->tmp_path);
    free(f->path);
    free(f);
  }
  return out_file_fail(path, err);
}

FILE *out_file_stream(struct out_file *f)
{
  return f->stream;
}
const char *out_file_path(const struct out_file *f)
{
  return f->path;
}

static void out_file_free(struct out_file *f)
{
  if (!f)
    return;
  if (f->tmp_path)
    out_file_track(f->tmp_path, 0);
  free(f->tmp_path);
  free(f->path);
  free(f);
}

/* Flushes and closes; the temporary file stays until renamed or removed. */
static int out_file_finish(struct out_file *f)
{
  int err = 0;
  if (fflush(f->stream) != 0 || ferror(f->stream))
    err = errno ? errno : EIO;
  if (fclose(f->stream) != 0 && !err)
    err = errno ? errno : EIO;
  f->stream = NULL;
  return err ? out_file_fail(f->path, err) : 0;
}

void out_file_abort(struct out_file *f)
{
  if (!f)
    return;
  if (f->stream)
    fclose(f->stream);
  if (f->tmp_path)
    unlink(f->tmp_path);
  out_file_free(f);
}

int out_file_commit(struct out_file *f)
{
  return out_file_commit_all(&f, 1);
}

int out_file_commit_all(struct out_file **files, size_t n)
{
  int rc = 0;
  size_t renamed = 0;

  for (size_t i = 0; i < n && rc == 0; i++) {
    errno = 0;
    rc = out_file_finish(files[i]);
  }
  /* No signal between the first and the last rename: an interrupted group
   * would leave this run's NAME.c next to the previous run's NAME.h. */
  sigset_t all, saved;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &saved);
  while (rc == 0 && renamed < n) {
    struct out_file *f = files[renamed];
    /* (a file written in place has nothing to rename) */
    if (f->tmp_path && rename(f->tmp_path, f->path) != 0) {
      rc = out_file_fail(f->path, errno);
      break;
    }
    renamed++;
  }
  if (rc != 0) {
    /* A .c from this run next to a .h from the previous one would compile
     * into a table that matches neither model: remove the renamed ones. */
    for (size_t i = 0; i < renamed; i++)
      if (files[i]->tmp_path)
        unlink(files[i]->path);
  }
  sigprocmask(SIG_SETMASK, &saved, NULL);
  for (size_t i = 0; i < n; i++) {
    if (rc != 0 && i >= renamed)
      out_file_abort(files[i]);
    else
      out_file_free(files[i]);
    files[i] = NULL;
  }
  return rc;
}

static void out_file_dep_path(FILE *out, const char *path)
{
  char resolved[PATH_MAX];
  if (realpath(path, resolved))
    path = resolved;
  for (const char *p = path; *p; p++) {
    if (*p == ' ' || *p == '#' || *p == '\\')
      fputc('\\', out);
    if (*p == '$')
      fputc('$', out);
    fputc(*p, out);
  }
}

char *out_file_absolute(const char *path)
{
  char cwd[PATH_MAX];
  char *r = NULL;
  if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
    return strdup(path);
  return asprintf(&r, "%s/%s", cwd, path) < 0 ? NULL : r;
}

int out_file_write_depfile(FILE *out, const char *target, const char *const *deps, size_t ndeps)
{
  out_file_dep_path(out, target);
  fputc(':', out);
  for (size_t i = 0; i < ndeps; i++) {
    fputs(" \\\n  ", out);
    out_file_dep_path(out, deps[i]);
  }
  fputc('\n', out);
  for (size_t i = 0; i < ndeps; i++) {
    fputc('\n', out);
    out_file_dep_path(out, deps[i]);
    fputs(":\n", out);
  }
  return ferror(out) ? -EIO : 0;
}

int out_file_commit_group(struct out_file **files, size_t n, const char *depfile,
                          const char *target, const char *const *deps, size_t ndeps)
{
  struct out_file **all = NULL;
  int rc = 0;
  if (!depfile)
    return out_file_commit_all(files, n);
  all = calloc(n + 1, sizeof *all);
  if (!all) {
    rc = -ENOMEM;
    goto fail;
  }
  if ((rc = out_file_open(depfile, &all[n])) != 0)
    goto fail;
  if ((rc = out_file_write_depfile(out_file_stream(all[n]), target, deps, ndeps)) != 0) {
    out_file_abort(all[n]);
    goto fail;
  }
  for (size_t i = 0; i < n; i++)
    all[i] = files[i];
  rc = out_file_commit_all(all, n + 1);
  for (size_t i = 0; i < n; i++)
    files[i] = NULL;
  free(all);
  return rc;

fail:
  for (size_t i = 0; i < n; i++) {
    out_file_abort(files[i]);
    files[i] = NULL;
  }
  free(all);
  return rc;
}
