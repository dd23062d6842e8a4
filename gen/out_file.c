/* out_file: see out_file.h. */
#include "out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dsl/diag.h"

struct out_file {
  char *path;     /* final name (symlinks resolved) */
  char *tmp_path; /* NULL when writing straight to a non-regular file */
  FILE *stream;
};

static int out_file_fail(const char *path, int err) {
  fprintf(diag_stream(), "%s: error: cannot write output: %s\n", path, strerror(err));
  return -err;
}

static char *out_file_temp_name(const char *path, unsigned attempt) {
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dir_len;
  /* Hidden, and named after the final file, so a leftover from a killed
   * run is recognisable and never matches a build glob for *.c. */
  int n = snprintf(NULL, 0, "%.*s.%s.tmp.%ld.%u", (int)dir_len, path, base, (long)getpid(), attempt);
  if (n < 0) return NULL;
  char *name = malloc((size_t)n + 1);
  if (!name) return NULL;
  snprintf(name, (size_t)n + 1, "%.*s.%s.tmp.%ld.%u", (int)dir_len, path, base, (long)getpid(), attempt);
  return name;
}

int out_file_open(const char *path, struct out_file **out) {
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
    fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) break;
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
    if (f->tmp_path) unlink(f->tmp_path);
  }
  if (f) {
    free(f->tmp_path);
    free(f->path);
    free(f);
  }
  return out_file_fail(path, err);
}

FILE *out_file_stream(struct out_file *f) { return f->stream; }
const char *out_file_path(const struct out_file *f) { return f->path; }

static void out_file_free(struct out_file *f) {
  if (!f) return;
  free(f->tmp_path);
  free(f->path);
  free(f);
}

/* Flushes and closes; the temporary file stays until renamed or removed. */
static int out_file_finish(struct out_file *f) {
  int err = 0;
  if (fflush(f->stream) != 0 || ferror(f->stream)) err = errno ? errno : EIO;
  if (fclose(f->stream) != 0 && !err) err = errno ? errno : EIO;
  f->stream = NULL;
  return err ? out_file_fail(f->path, err) : 0;
}

void out_file_abort(struct out_file *f) {
  if (!f) return;
  if (f->stream) fclose(f->stream);
  if (f->tmp_path) unlink(f->tmp_path);
  out_file_free(f);
}

int out_file_commit(struct out_file *f) { return out_file_commit_all(&f, 1); }

int out_file_commit_all(struct out_file **files, size_t n) {
  int rc = 0;
  size_t renamed = 0;

  for (size_t i = 0; i < n && rc == 0; i++) {
    errno = 0;
    rc = out_file_finish(files[i]);
  }
  for (; rc == 0 && renamed < n; renamed++) {
    if (!files[renamed]->tmp_path) continue; /* written in place */
    if (rename(files[renamed]->tmp_path, files[renamed]->path) != 0)
      rc = out_file_fail(files[renamed]->path, errno);
  }
  if (rc != 0) {
    /* A .c from this run next to a .h from the previous one would compile
     * into a table that matches neither model: remove the renamed ones. */
    for (size_t i = 0; i < renamed; i++)
      if (files[i]->tmp_path) unlink(files[i]->path);
  }
  for (size_t i = 0; i < n; i++) {
    if (rc != 0 && i >= renamed) out_file_abort(files[i]);
    else out_file_free(files[i]);
    files[i] = NULL;
  }
  return rc;
}

static void out_file_dep_path(FILE *out, const char *path) {
  char resolved[PATH_MAX];
  if (realpath(path, resolved)) path = resolved;
  for (const char *p = path; *p; p++) {
    if (*p == ' ' || *p == '#' || *p == '\\') fputc('\\', out);
    if (*p == '$') fputc('$', out);
    fputc(*p, out);
  }
}

int out_file_write_depfile(FILE *out, const char *target, const char *const *deps, size_t ndeps) {
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
