/* emit_util: see emit_util.h. */
#include "emit_util.h"

#include "emit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void emit_util_c_string(FILE *out, const char *s) {
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

size_t emit_util_comment(FILE *out, const char *s) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c == '*' && p[1] == '/') {
      fputs("* ", out);
      n++;
    } else if (c == '/' && p[1] == '*') {
      fputs("/ ", out);
      n++;
    } else if (c < 0x20 || c >= 0x7f || c == '?' || c == '\\') {
      fputc('_', out);
    } else {
      fputc(c, out);
    }
    n++;
  }
  return n;
}

char *emit_util_upper_ident(const char *s) {
  size_t n = strlen(s);
  char *r = malloc(n + 2);
  if (!r) return NULL;
  size_t j = 0;
  if (s[0] >= '0' && s[0] <= '9') r[j++] = '_';
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'a' && c <= 'z') r[j++] = (char)(c - 'a' + 'A');
    else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') r[j++] = c;
    else r[j++] = '_';
  }
  r[j] = '\0';
  return r;
}

int emit_util_uniquify(char **names, uint32_t n) {
  for (uint32_t i = 1; i < n; i++) {
    for (;;) {
      uint32_t j;
      for (j = 0; j < i; j++)
        if (strcmp(names[i], names[j]) == 0) break;
      if (j == i) break;
      size_t len = strlen(names[i]) + 12;
      char *renamed = malloc(len);
      if (!renamed) return -ENOMEM;
      snprintf(renamed, len, "%s_%u", names[i], (unsigned)i);
      free(names[i]);
      names[i] = renamed;
    }
  }
  return 0;
}

const char *emit_util_class_name(enum pn_class c) {
  switch (c) {
  case PN_CLASS_DEAD: return "deadlock";
  case PN_CLASS_UNSAFE: return "unsafe";
  case PN_CLASS_SATURATED: return "saturated";
  case PN_CLASS_SAFE: return "safe";
  }
  return "unknown";
}

const char *emit_util_role_name(enum pn_place_role r) {
  switch (r) {
  case PN_PLACE_TRACKED: return "tracked";
  case PN_PLACE_SOURCE: return "source";
  case PN_PLACE_SINK: return "sink";
  }
  return "unknown";
}

const char *emit_util_kind_name(enum pn_transition_kind k) {
  switch (k) {
  case PN_ADMISSION: return "admission";
  case PN_PROGRESS: return "progress";
  }
  return "unknown";
}

const char *emit_util_assert_kind_name(enum pn_assert_kind k) {
  switch (k) {
  case PN_ASSERT_NO_DEADLOCK: return "no_deadlock";
  case PN_ASSERT_CAPACITY: return "capacity";
  case PN_ASSERT_INVARIANT: return "invariant";
  case PN_ASSERT_REACHABLE: return "reachable";
  case PN_ASSERT_UNREACHABLE: return "unreachable";
  }
  return "unknown";
}

int emit_util_stream_status(FILE *out) {
  if (!ferror(out)) return 0;
  /* The failing write left its reason in errno (ENOSPC on a full disk). */
  return errno == ENOSPC || errno == EDQUOT || errno == EFBIG ? -errno : -EIO;
}

uint64_t emit_safe_set_size(const struct pn_analysis *a) {
  uint64_t n = 0, states = pn_analysis_states(a);
  for (uint64_t s = 0; s < states; s++) n += pn_analysis_in_safe_set(a, s);
  return n;
}
