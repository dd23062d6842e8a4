/* test_c_text: gen/text/c_text.h, the one escaper every emitter writes
 * names and policy text into generated C with. The properties are checked
 * on every byte value and on delimiter-heavy strings, not on examples
 * only: whatever a model or a policy names, the comment cannot end early,
 * open a nested comment, form a trigraph or break the line, and the
 * literal reads back as the same bytes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_text.h"

/* What f writes for s, NUL-terminated; caller frees. */
static char *written(size_t (*f)(FILE *, const char *), const char *s, size_t *count)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(m);
  size_t n = f(m, s);
  ck_assert_int_eq(fclose(m), 0);
  if (count)
    *count = n;
  ck_assert_uint_eq(n, len);
  return buf;
}

static size_t literal(FILE *out, const char *s)
{
  long before = ftell(out);
  text_c_string(out, s);
  return (size_t)(ftell(out) - before);
}

static void check_comment_safe(const char *in)
{
  char *out = written(text_c_comment, in, NULL);
  ck_assert_msg(!strstr(out, "*/"), "comment text %s ends the comment", out);
  ck_assert_msg(!strstr(out, "/*"), "comment text %s opens a comment", out);
  ck_assert_msg(!strstr(out, "??"), "comment text %s may form a trigraph", out);
  for (const unsigned char *p = (const unsigned char *)out; *p; p++)
    ck_assert_msg(*p >= 0x20 && *p < 0x7f && *p != '\\', "byte %#x in comment text", *p);
  free(out);
}

START_TEST(test_comment_every_byte)
{
  char in[4] = { 'a', 0, 'b', 0 };
  for (int c = 1; c < 256; c++) {
    in[1] = (char)c;
    check_comment_safe(in);
  }
}
END_TEST

START_TEST(test_comment_delimiters)
{
  static const char *const cases[] = { "*/",   "/*",     "*/*/",    "/**/", "***///", "a*/b/*c",
                                       "?\?=", "?\?\?/", "?\?\?\?", "*\\/", "/\\*",   "*\n/" };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    check_comment_safe(cases[i]);
  /* What the profile tables' comments hold today stays as written. */
  char *out = written(text_c_comment, "arch == x86_64? no: foreign ABI -> kill-process", NULL);
  ck_assert_str_eq(out, "arch == x86_64? no: foreign ABI -> kill-process");
  free(out);
  out = written(text_c_comment, "a*/b", NULL);
  ck_assert_str_eq(out, "a* /b");
  free(out);
}
END_TEST

/* The literal, read back the way a C compiler reads it, is the input. */
static char *unescape(const char *lit)
{
  size_t n = strlen(lit);
  ck_assert(n >= 2 && lit[0] == '"' && lit[n - 1] == '"');
  char *r = malloc(n);
  ck_assert_ptr_nonnull(r);
  size_t j = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    if (lit[i] != '\\') {
      ck_assert_msg(lit[i] != '"' && !(lit[i] == '?' && lit[i + 1] == '?'), "unescaped %c", lit[i]);
      r[j++] = lit[i];
    } else if (lit[i + 1] >= '0' && lit[i + 1] <= '7') {
      r[j++] = (char)((lit[i + 1] - '0') * 64 + (lit[i + 2] - '0') * 8 + (lit[i + 3] - '0'));
      i += 3;
    } else {
      r[j++] = lit[++i];
    }
  }
  r[j] = '\0';
  return r;
}

START_TEST(test_string_round_trip)
{
  char in[256];
  for (int c = 1; c < 256; c++)
    in[c - 1] = (char)c;
  in[255] = '\0';
  char *lit = written(literal, in, NULL);
  char *back = unescape(lit);
  ck_assert_str_eq(back, in);
  free(back);
  free(lit);
  lit = written(literal, "a\"b\\c?\?=d", NULL);
  ck_assert_str_eq(lit, "\"a\\\"b\\\\c\\?\\?=d\"");
  free(lit);
}
END_TEST

START_TEST(test_string_null)
{
  char *lit = written(literal, NULL, NULL);
  ck_assert_str_eq(lit, "NULL");
  free(lit);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("c_text");
  TCase *tc = tcase_create("escaping");
  tcase_add_test(tc, test_comment_every_byte);
  tcase_add_test(tc, test_comment_delimiters);
  tcase_add_test(tc, test_string_round_trip);
  tcase_add_test(tc, test_string_null);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
