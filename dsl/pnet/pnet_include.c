/* pnet_include: the files of a model: reading the main file and every
 * include (relative to the including file, like C's #include "..."),
 * refusing cycles, repeated files and paths outside the main file's
 * directory, and keeping the chain of include directives for messages
 * (docs/pnet-language.md, "Includes"). */
#include "pnet_lower_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pnet_parse.h"

/* Includes are relative to the including file, like C's #include "...". */
static char *lw_include_path(const char *including, const char *path)
{
  const char *slash = strrchr(including, '/');
  char *out = NULL;
  if (path[0] == '/' || !slash)
    return strdup(path);
  if (asprintf(&out, "%.*s/%s", (int)(slash - including), including, path) < 0)
    return NULL;
  return out;
}

void lw_include(struct pnet_lower *lw, const struct pnet_decl *d)
{
  char *path = lw_include_path(d->loc.file->path, d->path);
  if (!path) {
    lw_oom(lw, &d->loc);
    return;
  }
  lw_file(lw, path, NULL, 0, &d->loc);
  free(path);
}

/* ---- files ------------------------------------------------------------ */

/* Same wording as diag_source_load, which reports the other read errors. */
static void lw_file_error(struct pnet_lower *lw, const struct diag_loc *from, const char *path,
                          const char *detail)
{
  if (from) {
    lw_error(lw, from, "cannot read '%s': %s", path, detail);
  } else {
    fprintf(diag_stream(), "%s: error: cannot read file: %s\n", path, detail);
    lw->errors++;
  }
}

static bool lw_below_root(const struct pnet_lower *lw, const char *real)
{
  if (!lw->root)
    return false;
  size_t n = strlen(lw->root);
  if (n == 1)
    return true; /* the main file is in "/" */
  return strncmp(real, lw->root, n) == 0 && real[n] == '/';
}

void lw_file(struct pnet_lower *lw, const char *path, const char *text, size_t len,
             const struct diag_loc *from)
{
  struct pn_net *net = lw->net;
  char *real = NULL;
  struct diag_source *src = NULL;
  struct pnet_parse pp = { 0 };

  if (lw->depth >= PNET_MAX_INCLUDE_DEPTH) {
    lw_error(lw, from, "includes nested too deeply (limit %d)", PNET_MAX_INCLUDE_DEPTH);
    goto cleanup;
  }
  if (!text) {
    struct stat st;
    real = realpath(path, NULL);
    if (!real || stat(real, &st) != 0) {
      lw_file_error(lw, from, path, strerror(errno));
      goto cleanup;
    }
    /* Models come from whoever can open a pull request, and pnetc quotes
     * source lines in its diagnostics: an include of /etc/shadow or
     * ../../.ssh/id_rsa would copy a line of it into a build log. So an
     * include may only read files below the main file's directory, checked
     * on the canonical path so neither '..' nor a symbolic link escapes. */
    if (from && !lw_below_root(lw, real)) {
      lw_error(lw, from, "cannot include '%s': it is outside the directory of the main file", path);
      goto cleanup;
    }
    /* Only regular files: a FIFO or /dev/zero named in an include would
     * block or exhaust memory. */
    if (!S_ISREG(st.st_mode)) {
      lw_file_error(lw, from, path, "not a regular file");
      goto cleanup;
    }
    if (st.st_size > PNET_MAX_FILE_BYTES) {
      char limit[64];
      snprintf(limit, sizeof limit, "larger than %ld bytes", (long)PNET_MAX_FILE_BYTES);
      lw_file_error(lw, from, path, limit);
      goto cleanup;
    }
    for (int i = 0; i < lw->depth; i++) {
      if (!lw->stack_real[i] || strcmp(lw->stack_real[i], real) != 0)
        continue;
      char *chain = NULL;
      size_t size = 0;
      FILE *f = open_memstream(&chain, &size);
      if (!f)
        goto oom;
      for (int j = i; j < lw->depth; j++)
        fprintf(f, "'%s' includes ", lw->stack_shown[j]);
      fprintf(f, "'%s'", path);
      if (fclose(f) != 0) {
        free(chain);
        goto oom;
      }
      lw_error(lw, from, "include cycle: %s", chain);
      free(chain);
      goto cleanup;
    }
    /* Each file is read once: a second include of a shared file (a diamond)
     * adds nothing, as with an include guard. */
    for (uint32_t i = 0; i < lw->nseen; i++)
      if (strcmp(lw->seen[i], real) == 0)
        goto cleanup;
  } else if (len > PNET_MAX_FILE_BYTES) {
    lw_file_error(lw, from, path, "too large");
    goto cleanup;
  }
  if (net->nsources >= PNET_MAX_SOURCES) {
    lw_error(lw, from, "too many files in one model (limit %d)", PNET_MAX_SOURCES);
    goto cleanup;
  }

  struct diag_source **sources = realloc(net->sources, (net->nsources + 1) * sizeof *sources);
  if (!sources)
    goto oom;
  net->sources = sources;
  if (real) {
    char **seen = realloc(lw->seen, (lw->nseen + 1) * sizeof *seen);
    if (!seen)
      goto oom;
    lw->seen = seen;
  }
  src = text ? diag_source_from_memory(path, text, len) : diag_source_load(path, from);
  if (!src) {
    lw->errors++;
    goto cleanup;
  }
  lw->included_from[net->nsources] = from ? *from : (struct diag_loc){ 0 };
  net->sources[net->nsources++] = src;
  if (real) {
    lw->seen[lw->nseen++] = real;
    lw->stack_real[lw->depth] = real;
    real = NULL;
  } else {
    lw->stack_real[lw->depth] = NULL;
  }

  pp.src = src;
  if (pnet_parse_source(&pp) != 0) {
    struct diag_loc in_src = { src, 1, 1 };
    lw_include_notes(lw, &in_src); /* the parser stops at its first error */
    lw->errors += pp.errors;
    if (lw->errors >= PNET_MAX_ERRORS)
      lw->stop = true;
    goto cleanup;
  }
  struct pnet_decl **trees = realloc(lw->trees, (lw->ntrees + 1) * sizeof *trees);
  if (!trees) {
    pnet_decl_free(pp.decls);
    goto oom;
  }
  lw->trees = trees;
  lw->trees[lw->ntrees++] = pp.decls;
  lw->stack_shown[lw->depth] = src->path;
  lw->depth++;
  lw_decls(lw, pp.decls);
  lw->depth--;
  goto cleanup;
oom:
  lw_oom(lw, from);
cleanup:
  free(real);
}
