/* c_text: see c_text.h. */
#include "c_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void text_c_string(FILE *out, const char *s)
{
  if (!s) {
    fputs("NULL", out);
    return;
  }
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?') {
      fputc('\\', out);
      fputc(*p, out);
    } else if (*p < 0x20 || *p >= 0x7f) {
      /* Octal, always three digits: a hex escape would swallow a
       * following hex-digit character. */
      fprintf(out, "\\%03o", *p);
    } else {
      fputc(*p, out);
    }
  }
  fputc('"', out);
}

size_t text_c_comment(FILE *out, const char *s)
{
  size_t n = 0;
  unsigned char prev = 0; /* the last byte written */
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c < 0x20 || c >= 0x7f || c == '\\')
      c = '_'; /* no line break, no splice, ASCII only */
    if (c == '?' && prev == '?')
      c = '_'; /* no trigraph can form */
    /* A blank between the two characters of a delimiter: the text can
     * neither end the comment early nor open a nested one (-Wcomment). */
    if ((c == '/' && prev == '*') || (c == '*' && prev == '/')) {
      fputc(' ', out);
      n++;
    }
    fputc(c, out);
    n++;
    prev = c;
  }
  return n;
}

char *text_upper_ident(const char *s)
{
  size_t n = strlen(s);
  char *r = malloc(n + 2);
  if (!r)
    return NULL;
  size_t j = 0;
  if (s[0] >= '0' && s[0] <= '9')
    r[j++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'a' && c <= 'z')
      r[j++] = (char)(c - 'a' + 'A');
    else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
      r[j++] = c;
    else
      r[j++] = '_';
  }
  r[j] = '\0';
  return r;
}

int text_uniquify(char **names, uint32_t n)
{
  for (uint32_t i = 1; i < n; i++) {
    for (;;) {
      uint32_t j;
      for (j = 0; j < i; j++)
        if (strcmp(names[i], names[j]) == 0)
          break;
      if (j == i)
        break;
      size_t len = strlen(names[i]) + 12;
      char *renamed = malloc(len);
      if (!renamed)
        return -ENOMEM;
      snprintf(renamed, len, "%s_%u", names[i], (unsigned)i);
      free(names[i]);
      names[i] = renamed;
    }
  }
  return 0;
}

char *text_model_ident(const char *path)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  char *r = malloc(n + 2);
  if (!r)
    return NULL;
  size_t j = 0;
  if (n == 0 || (base[0] >= '0' && base[0] <= '9'))
    r[j++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = base[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    r[j++] = ok ? c : '_';
  }
  r[j] = '\0';
  return r;
}

int text_stream_status(FILE *out)
{
  if (!ferror(out))
    return 0;
  /* The failing write left its reason in errno (ENOSPC on a full disk). */
  return errno == ENOSPC || errno == EDQUOT || errno == EFBIG ? -errno : -EIO;
}
