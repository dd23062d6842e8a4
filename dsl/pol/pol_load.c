/* pol_load: reads a .pol file and the files it includes, then hands the
 * declarations to pol_resolve. Includes are expanded in place, each file
 * at most once (a second include of the same file is skipped, so a
 * library can be included from several places); an include that reaches
 * a file still being read is a cycle and an error. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pol_internal.h"
#include "pol_parse.h"
#include "pol_parse_state.h"

/* From the flex scanner (pol_lex.l, prefix pol_yy). */
typedef void *yyscan_t;
int pol_yylex_init_extra(struct pol_lex_extra *extra, yyscan_t *scanner);
int pol_yylex_destroy(yyscan_t scanner);
void *pol_yy_scan_bytes(const char *bytes, int len, yyscan_t scanner);
int pol_yyparse(yyscan_t scanner, struct pol_parse_state *st);

int pol_parse_source(const struct diag_source *src, struct pol_file **out)
{
  struct pol_lex_extra extra = { .src = src, .line = 1, .col = 1 };
  struct pol_parse_state st = { .src = src };
  yyscan_t scanner = NULL;
  int rc = -ENOMEM;

  *out = NULL;
  st.file = calloc(1, sizeof *st.file);
  if (!st.file)
    goto fail;
  if (pol_yylex_init_extra(&extra, &scanner) != 0)
    goto fail;
  if (!pol_yy_scan_bytes(src->text, (int)src->length, scanner))
    goto fail;
  unsigned before = diag_error_count();
  int prc = pol_yyparse(scanner, &st);
  if (prc != 0 || diag_error_count() != before) {
    rc = prc == 2 ? -ENOMEM : -EINVAL;
    goto fail;
  }
  pol_yylex_destroy(scanner);
  *out = st.file;
  return 0;

fail:
  if (rc == -ENOMEM && diag_error_count() == 0) {
    struct diag_loc loc = { src, 0, 0 };
    diag_error(&loc, "out of memory");
  }
  if (scanner)
    pol_yylex_destroy(scanner);
  pol_file_free(st.file);
  return rc;
}

static int pol_push(void **items, size_t *n, size_t *cap, size_t elem, const void *item)
{
  if (*n == *cap) {
    size_t ncap = *cap ? *cap * 2 : 8;
    void *grown = realloc(*items, ncap * elem);
    if (!grown)
      return -ENOMEM;
    *items = grown;
    *cap = ncap;
  }
  memcpy((char *)*items + *n * elem, item, elem);
  (*n)++;
  return 0;
}

/* The include stack: real paths of files being read, for cycle checks. */
struct pol_include_stack {
  char *real[POL_MAX_INCLUDE_DEPTH + 1];
  int depth;
};

static bool pol_already_read(const struct pol_policy *pol, const char *real)
{
  for (size_t i = 0; i < pol->nsources; i++) {
    char *r = realpath(pol->sources[i]->path, NULL);
    bool same = r && strcmp(r, real) == 0;
    free(r);
    if (same)
      return true;
  }
  return false;
}

/* Directory part of path ("." when none); caller frees. */
static char *pol_dirname(const char *path)
{
  const char *slash = strrchr(path, '/');
  if (!slash)
    return strdup(".");
  if (slash == path)
    return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

static int pol_read_file(struct pol_policy *pol, struct diag_source *src,
                         struct pol_include_stack *stack);

/* Whether real (resolved) is dir itself or lies below it. */
static bool pol_path_within(const char *real, const char *dir)
{
  size_t n = dir ? strlen(dir) : 0;
  if (!n)
    return false;
  if (strcmp(dir, "/") == 0)
    return real[0] == '/';
  return strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* The file `include <NAME>;` names: NAME below the library directory. The
 * name is relative, and no component may be "." or "..": the angle form
 * reaches the library and nothing else, so no file next to the policy,
 * and no path climbing out, can stand in for a library file. */
static int pol_library_path(const struct pol_policy *pol, const struct pol_decl *d, char **out)
{
  const char *name = d->name.text;
  *out = NULL;
  if (!pol->library_real) {
    diag_error(&d->name.loc,
               "include <%s>: no library directory is known (pnetc --library DIR; "
               "docs/pol-language.md, \"Includes\")",
               name);
    return -EINVAL;
  }
  if (name[0] == '/') {
    diag_error(&d->name.loc, "include <%s>: a library name is relative to the library directory",
               name);
    return -EINVAL;
  }
  for (const char *c = name; *c;) {
    const char *end = strchr(c, '/');
    size_t len = end ? (size_t)(end - c) : strlen(c);
    if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
      diag_error(&d->name.loc,
                 "include <%s>: empty, \".\" and \"..\" components are not allowed in a library "
                 "name",
                 name);
      return -EINVAL;
    }
    c += len + (end ? 1 : 0);
  }
  if (asprintf(out, "%s/%s", pol->library_real, name) < 0) {
    *out = NULL;
    diag_error(&d->name.loc, "out of memory");
    return -ENOMEM;
  }
  return 0;
}

static int pol_do_include(struct pol_policy *pol, const struct pol_decl *d,
                          struct pol_include_stack *stack)
{
  const char *name = d->name.text;
  char *dir = NULL, *path = NULL, *real = NULL;
  struct diag_source *src = NULL;
  int rc = -EINVAL;

  if (!pol->allow_includes) {
    diag_error(&d->name.loc, "includes are not allowed here");
    goto done;
  }
  if (name[0] == '\0') {
    diag_error(&d->name.loc, "empty include path");
    goto done;
  }
  if (d->library) {
    rc = pol_library_path(pol, d, &path);
    if (rc)
      goto done;
  } else {
    /* Relative includes are relative to the including file, so a policy
   * means the same thing whatever directory pnetc runs in. */
    if (name[0] != '/') {
      dir = pol_dirname(d->loc.file->path);
      if (!dir)
        goto oom;
    }
    if (!dir || strcmp(dir, ".") == 0)
      path = strdup(name);
    else if (asprintf(&path, "%s/%s", dir, name) < 0)
      path = NULL;
    if (!path) {
    oom:
      rc = -ENOMEM;
      diag_error(&d->name.loc, "out of memory");
      goto done;
    }
  }
  rc = -EINVAL;
  real = realpath(path, NULL);
  if (!real) {
    if (d->library)
      diag_error(&d->name.loc, "cannot read <%s> from the library: %s", name, strerror(errno));
    else
      diag_error(&d->name.loc, "cannot read '%s': %s", name, strerror(errno));
    goto done;
  }
  /* A symbolic link inside the library must not lead out of it: what
   * <NAME> names is the installed file, nothing a link can swap in. */
  if (d->library && !pol_path_within(real, pol->library_real)) {
    diag_error(&d->name.loc, "library file <%s> resolves to '%s', outside the library '%s'", name,
               real, pol->library_real);
    goto done;
  }
  for (int i = 0; i < stack->depth; i++) {
    if (strcmp(stack->real[i], real) == 0) {
      diag_error(&d->name.loc, "include cycle: '%s' is already being read", name);
      goto done;
    }
  }
  if (pol_already_read(pol, real)) {
    rc = 0; /* included once already: its declarations are in place */
    goto done;
  }
  if (stack->depth >= POL_MAX_INCLUDE_DEPTH) {
    diag_error(&d->name.loc, "includes nested deeper than %d", POL_MAX_INCLUDE_DEPTH);
    goto done;
  }
  struct stat stb;
  if (stat(path, &stb) == 0 && (!S_ISREG(stb.st_mode) || stb.st_size > POL_MAX_FILE_BYTES)) {
    diag_error(&d->name.loc,
               S_ISREG(stb.st_mode) ? "'%s' is larger than 1 MiB" : "'%s' is not a regular file",
               name);
    goto done;
  }
  src = pol->opts.read_file ? pol->opts.read_file(pol->opts.ctx, path, &d->name.loc)
                            : diag_source_load(path, &d->name.loc);
  if (!src)
    goto done;
  stack->real[stack->depth++] = real;
  real = NULL;
  rc = pol_read_file(pol, src, stack);
  src = NULL; /* owned by pol now, even on failure */
  free(stack->real[--stack->depth]);

done:
  free(dir);
  free(path);
  free(real);
  diag_source_free(src);
  return rc;
}

/* Takes ownership of src. Parses it and appends its declarations,
 * expanding includes in place. */
static int pol_read_file(struct pol_policy *pol, struct diag_source *src,
                         struct pol_include_stack *stack)
{
  struct pol_file *file = NULL;
  int rc;

  rc = pol_push((void **)&pol->sources, &pol->nsources, &pol->cap_sources, sizeof src, &src);
  if (rc) {
    diag_source_free(src);
    return rc;
  }
  rc = pol_parse_source(src, &file);
  if (rc)
    return rc;
  rc = pol_push((void **)&pol->files, &pol->nfiles, &pol->cap_files, sizeof file, &file);
  if (rc) {
    pol_file_free(file);
    return rc;
  }
  int result = 0;
  for (size_t i = 0; i < file->n; i++) {
    const struct pol_decl *d = file->decls[i];
    if (d->kind == POL_DECL_INCLUDE) {
      rc = pol_do_include(pol, d, stack);
      if (rc == -ENOMEM)
        return rc;
      if (rc)
        result = rc; /* keep going: report errors in later includes too */
      continue;
    }
    rc = pol_push((void **)&pol->decls, &pol->ndecls, &pol->cap_decls, sizeof d, &d);
    if (rc)
      return rc;
  }
  return result;
}

static int pol_load_source(struct diag_source *src, bool allow_includes,
                           const struct pol_load_options *opts, struct pol_policy **out)
{
  struct pol_policy *pol = calloc(1, sizeof *pol);
  struct pol_include_stack stack = { .depth = 0 };
  int rc = -ENOMEM;

  *out = NULL;
  if (!pol) {
    diag_source_free(src);
    goto fail;
  }
  pol->allow_includes = allow_includes;
  if (opts)
    pol->opts = *opts;
  pol->opts.library_dir = NULL; /* only library_real is used from here */
  if (opts && opts->library_dir) {
    pol->library_real = realpath(opts->library_dir, NULL);
    if (!pol->library_real) {
      fprintf(diag_stream(), "%s: error: library directory '%s': %s\n", src->path,
              opts->library_dir, strerror(errno));
      diag_source_free(src);
      rc = -EINVAL;
      goto fail;
    }
  }
  pol->main_dir = pol_dirname(src->path);
  if (!pol->main_dir) {
    diag_source_free(src);
    goto fail;
  }
  stack.real[0] = realpath(src->path, NULL);
  if (stack.real[0])
    stack.depth = 1;
  rc = pol_read_file(pol, src, &stack);
  if (stack.depth)
    free(stack.real[0]);
  if (rc)
    goto fail;
  rc = pol_resolve(pol);
  if (rc)
    goto fail;
  *out = pol;
  return 0;

fail:
  if (rc == -ENOMEM) {
    fprintf(diag_stream(), "pnetc: error: out of memory\n");
  }
  pol_policy_free(pol);
  return rc;
}

int pol_load(const char *path, struct pol_policy **out)
{
  return pol_load_with(path, NULL, out);
}

int pol_load_with(const char *path, const struct pol_load_options *opts, struct pol_policy **out)
{
  struct stat stb;
  *out = NULL;
  if (stat(path, &stb) == 0 && S_ISREG(stb.st_mode) && stb.st_size > POL_MAX_FILE_BYTES) {
    fprintf(diag_stream(), "%s: error: file is larger than 1 MiB\n", path);
    return -EINVAL;
  }
  struct diag_source *src = opts && opts->read_file ? opts->read_file(opts->ctx, path, NULL)
                                                    : diag_source_load(path, NULL);
  if (!src)
    return -EINVAL;
  return pol_load_source(src, true, opts, out);
}

int pol_load_memory(const char *name, const char *data, size_t len, struct pol_policy **out)
{
  *out = NULL;
  if (len > POL_MAX_FILE_BYTES) {
    fprintf(diag_stream(), "%s: error: file is larger than 1 MiB\n", name);
    return -EINVAL;
  }
  if (memchr(data, '\0', len)) {
    fprintf(diag_stream(), "%s: error: file contains a NUL byte; not a text file\n", name);
    return -EINVAL;
  }
  struct diag_source *src = diag_source_from_memory(name, data, len);
  if (!src)
    return -ENOMEM;
  return pol_load_source(src, false, NULL, out);
}

void pol_policy_free(struct pol_policy *pol)
{
  if (!pol)
    return;
  pol_resolve_free(pol);
  for (size_t i = 0; i < pol->nfiles; i++)
    pol_file_free(pol->files[i]);
  free(pol->files);
  for (size_t i = 0; i < pol->nsources; i++)
    diag_source_free(pol->sources[i]);
  free(pol->sources);
  free(pol->decls);
  free(pol->main_dir);
  free(pol->library_real);
  free(pol);
}

size_t pol_file_count(const struct pol_policy *pol)
{
  return pol->nsources;
}
const char *pol_file_path(const struct pol_policy *pol, size_t i)
{
  return pol->sources[i]->path;
}
const char *pol_main_path(const struct pol_policy *pol)
{
  return pol->sources[0]->path;
}
