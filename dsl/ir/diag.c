/* diag: see diag.h. */
#include "diag.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static FILE *diag_out;
static unsigned diag_errors;
static bool diag_quiet;

void diag_set_stream(FILE *stream)
{
  diag_out = stream;
}
void diag_set_quiet(bool quiet)
{
  diag_quiet = quiet;
}
FILE *diag_stream(void)
{
  return diag_out ? diag_out : stderr;
}
unsigned diag_error_count(void)
{
  return diag_errors;
}
void diag_reset(void)
{
  diag_errors = 0;
}

static int diag_index_lines(struct diag_source *src)
{
  size_t count = 1;
  for (size_t i = 0; i < src->length; i++)
    if (src->text[i] == '\n')
      count++;
  src->line_starts = malloc(count * sizeof *src->line_starts);
  if (!src->line_starts)
    return -1;
  size_t line = 0;
  src->line_starts[line++] = 0;
  for (size_t i = 0; i < src->length; i++)
    if (src->text[i] == '\n')
      src->line_starts[line++] = i + 1;
  src->line_count = count;
  return 0;
}

struct diag_source *diag_source_from_memory(const char *name, const char *data, size_t length)
{
  struct diag_source *src = calloc(1, sizeof *src);
  if (!src)
    goto fail;
  src->path = strdup(name);
  src->text = malloc(length + 1);
  if (!src->path || !src->text)
    goto fail;
  memcpy(src->text, data, length);
  src->text[length] = '\0';
  src->length = length;
  if (diag_index_lines(src) != 0)
    goto fail;
  return src;
fail:
  diag_source_free(src);
  fprintf(diag_stream(), "%s: error: out of memory\n", name);
  diag_errors++;
  return NULL;
}

struct diag_source *diag_source_load(const char *path, const struct diag_loc *included_from)
{
  FILE *f = fopen(path, "rb");
  char *data = NULL;
  size_t length = 0, capacity = 0;
  struct diag_source *src = NULL;
  int saved_errno = 0;

  if (!f) {
    saved_errno = errno;
    goto fail;
  }
  for (;;) {
    if (length == capacity) {
      capacity = capacity ? capacity * 2 : 4096;
      char *grown = realloc(data, capacity);
      if (!grown) {
        saved_errno = ENOMEM;
        goto fail;
      }
      data = grown;
    }
    size_t got = fread(data + length, 1, capacity - length, f);
    length += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    saved_errno = EIO;
    goto fail;
  }
  /* A NUL byte would silently truncate the text the lexer sees. */
  if (memchr(data ? data : "", '\0', length)) {
    fprintf(diag_stream(), "%s: error: file contains a NUL byte; not a text file\n", path);
    diag_errors++;
    free(data);
    fclose(f);
    return NULL;
  }
  fclose(f);
  f = NULL;
  src = diag_source_from_memory(path, data ? data : "", length);
  free(data);
  return src;

fail:
  if (f)
    fclose(f);
  free(data);
  if (included_from && included_from->file)
    diag_error(included_from, "cannot read '%s': %s", path, strerror(saved_errno));
  else {
    fprintf(diag_stream(), "%s: error: cannot read file: %s\n", path, strerror(saved_errno));
    diag_errors++;
  }
  return NULL;
}

void diag_source_free(struct diag_source *src)
{
  if (!src)
    return;
  free(src->path);
  free(src->text);
  free(src->line_starts);
  free(src);
}

static void diag_quote(FILE *out, const struct diag_loc *loc)
{
  const struct diag_source *src = loc->file;
  if (!src || loc->line < 1 || (size_t)loc->line > src->line_count)
    return;
  const char *start = src->text + src->line_starts[loc->line - 1];
  const char *end = strchr(start, '\n');
  size_t len = end ? (size_t)(end - start) : strlen(start);
  if (len && start[len - 1] == '\r')
    len--;
  fprintf(out, " %.*s\n ", (int)len, start);
  /* Copy tabs so the caret lines up under tab-indented text. */
  for (int i = 1; i < loc->col && (size_t)(i - 1) < len; i++)
    fputc(start[i - 1] == '\t' ? '\t' : ' ', out);
  fputs("^\n", out);
}

/* The format attribute lets clang's -Wformat-nonliteral (in -Wformat=2)
 * accept the vfprintf below: callers' formats are checked instead. */
static void diag_emit(const char *severity, const struct diag_loc *loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void diag_emit(const char *severity, const struct diag_loc *loc, const char *fmt, va_list ap)
{
  FILE *out = diag_stream();
  if (diag_quiet)
    return;
  if (loc && loc->file) {
    if (loc->line > 0)
      fprintf(out, "%s:%d:%d: %s: ", loc->file->path, loc->line, loc->col, severity);
    else
      fprintf(out, "%s: %s: ", loc->file->path, severity);
  } else {
    fprintf(out, "pnetc: %s: ", severity);
  }
  vfprintf(out, fmt, ap);
  fputc('\n', out);
  if (loc)
    diag_quote(out, loc);
}

void diag_verror(const struct diag_loc *loc, const char *fmt, va_list ap)
{
  diag_emit("error", loc, fmt, ap);
  diag_errors++;
}

void diag_error(const struct diag_loc *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  diag_verror(loc, fmt, ap);
  va_end(ap);
}

void diag_note(const struct diag_loc *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  diag_emit("note", loc, fmt, ap);
  va_end(ap);
}

void diag_warning(const struct diag_loc *loc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  diag_emit("warning", loc, fmt, ap);
  va_end(ap);
}
