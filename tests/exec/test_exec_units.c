/* exec_units: the pieces of runtime/exec on their own: base64 both ways
 * (round trips, and every non-canonical form refused), the UTF-8 check a
 * stream's encoding is chosen by, and the request parser (a full request's
 * fields; each error code with its field). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx_exec.h"
#include "sbx_exec_base64.h"

static int fails;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fails++;                                                                                     \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

static void test_base64(void)
{
  unsigned char all[256], *back;
  size_t n, m;
  for (int i = 0; i < 256; i++)
    all[i] = (unsigned char)i;
  for (size_t len = 0; len <= sizeof all; len++) {
    char *enc = sbx_b64_encode(all, len, &n);
    CHECK(enc && n == (len + 2) / 3 * 4, "encode %zu", len);
    CHECK(sbx_b64_decode(enc, n, &back, &m) == 0 && m == len && memcmp(back, all, len) == 0,
          "round trip %zu", len);
    free(back);
    free(enc);
  }
  {
    char *enc = sbx_b64_encode((const unsigned char *)"foobar", 6, &n);
    CHECK(enc && strcmp(enc, "Zm9vYmFy") == 0, "RFC 4648 vector: %s", enc);
    free(enc);
  }
  /* Non-canonical or broken: refused, never decoded to something. */
  static const char *const bad[] = { "A",        "AB",    "ABC",  "AB=C", "A===",      "====",
                                     "AB==AB==", "AB\n=", "AB==", "ABC=", "Zm9v YmFy", "Zm9v-mFy" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    back = NULL;
    CHECK(sbx_b64_decode(bad[i], strlen(bad[i]), &back, &m) != 0 && !back, "accepted '%s'", bad[i]);
  }
  /* The control of "AB==" and "ABC=" above: their canonical forms decode. */
  CHECK(sbx_b64_decode("AA==", 4, &back, &m) == 0 && m == 1 && back[0] == 0, "AA==");
  free(back);
  CHECK(sbx_b64_decode("AAE=", 4, &back, &m) == 0 && m == 2 && back[1] == 1, "AAE=");
  free(back);
}

static void test_utf8(void)
{
  static const struct {
    const char *s;
    bool ok;
  } cases[] = {
    { "plain", true },
    { "h\xc3\xa9llo", true },
    { "\xe2\x82\xac", true },
    { "\xf0\x9f\x98\x80", true },
    { "\xc3", false },
    { "\xc0\xaf", false },
    { "\xe0\x80\xaf", false },
    { "\xed\xa0\x80", false },
    { "\xf4\x90\x80\x80", false },
    { "\xff", false },
    { "\x80", false },
    { "\xe2\x82", false },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK(sbx_exec_utf8_valid((const unsigned char *)cases[i].s, strlen(cases[i].s)) == cases[i].ok,
          "utf8 case %zu", i);
  CHECK(sbx_exec_utf8_valid((const unsigned char *)"a\0b", 3), "NUL is valid UTF-8");
}

static void test_parse_full(void)
{
  static const char req[] =
      "{\"version\":1,\"argv\":[\"cat\",\"-n\"],\"cwd\":\"sub\",\"env\":{\"A\":\"1\",\"B_2\":\"x=y\"},"
      "\"stdin\":{\"base64\":\"aGk=\"},\"timeout\":1500,\"profile\":\"standard\",\"policy\":\"p.pol\","
      "\"tier\":\"t\",\"lane\":\"background\",\"labels\":[\"untrusted\",\"ci\"],"
      "\"backend\":\"local\",\"output_limit\":4096,"
      "\"run_id\":\"r-1.2:3\"}";
  struct sbx_exec_request r;
  struct sbx_exec_error e;
  int rc = sbx_exec_request_parse(req, strlen(req), &r, &e);
  CHECK(rc == 0, "full request refused: %s %s", e.code, e.message);
  if (rc == 0) {
    CHECK(r.argc == 2 && strcmp(r.argv[0], "cat") == 0 && strcmp(r.argv[1], "-n") == 0 &&
              !r.argv[2],
          "argv");
    CHECK(r.cwd && strcmp(r.cwd, "sub") == 0, "cwd");
    CHECK(r.n_env == 2 && strcmp(r.env[0], "A=1") == 0 && strcmp(r.env[1], "B_2=x=y") == 0 &&
              !r.env[2],
          "env");
    CHECK(r.stdin_len == 2 && memcmp(r.stdin_data, "hi", 2) == 0, "stdin");
    CHECK(r.has_timeout && r.timeout_ms == 1500, "timeout");
    CHECK(strcmp(r.profile, "standard") == 0 && strcmp(r.policy, "p.pol") == 0 &&
              strcmp(r.tier, "t") == 0 && strcmp(r.run_id, "r-1.2:3") == 0,
          "strings");
    CHECK(r.output_limit == 4096, "output_limit");
    CHECK(strcmp(r.lane, "background") == 0 && strcmp(r.backend, "local") == 0, "lane, backend");
    CHECK(r.n_labels == 2 && strcmp(r.labels[0], "untrusted") == 0 &&
              strcmp(r.labels[1], "ci") == 0 && !r.labels[2],
          "labels");
  }
  sbx_exec_request_free(&r);
  rc = sbx_exec_request_parse("{\"argv\":[\"x\"]}", 14, &r, &e);
  CHECK(rc == 0 && r.output_limit == SBX_EXEC_OUTPUT_DEFAULT && !r.has_timeout && !r.stdin_data &&
            !r.lane && !r.backend && !r.labels,
        "defaults: the route decides lane and backend");
  sbx_exec_request_free(&r);
}

static void test_parse_errors(void)
{
  static const struct {
    const char *req, *code, *field;
  } cases[] = {
    { "", "invalid_json", "" },
    { "{\"argv\":[\"x\"]", "invalid_json", "" },
    { "{\"argv\":[\"x\"],\"argv\":[\"y\"]}", "invalid_json", "" },
    { "\"ls\"", "not_an_object", "" },
    { "{}", "missing_field", "argv" },
    { "{\"argv\":\"ls -l\"}", "wrong_type", "argv" },
    { "{\"argv\":[]}", "invalid_value", "argv" },
    { "{\"argv\":[null]}", "wrong_type", "argv" },
    { "{\"argv\":[\"x\"],\"x\":1}", "unknown_field", "x" },
    { "{\"argv\":[\"x\"],\"timeout\":-1}", "invalid_value", "timeout" },
    { "{\"argv\":[\"x\"],\"timeout\":2592000001}", "invalid_value", "timeout" },
    { "{\"argv\":[\"x\"],\"output_limit\":0}", "invalid_value", "output_limit" },
    { "{\"argv\":[\"x\"],\"env\":{\"1A\":\"v\"}}", "invalid_value", "env" },
    { "{\"argv\":[\"x\"],\"env\":{\"A\":null}}", "wrong_type", "env" },
    { "{\"argv\":[\"x\"],\"stdin\":{}}", "invalid_value", "stdin" },
    { "{\"argv\":[\"x\"],\"stdin\":{\"text\":1}}", "wrong_type", "stdin.text" },
    { "{\"argv\":[\"x\"],\"stdin\":{\"base64\":\"@@@@\"}}", "invalid_value", "stdin.base64" },
    { "{\"argv\":[\"x\"],\"version\":0}", "unsupported_version", "version" },
    { "{\"argv\":[\"x\"],\"lane\":7}", "wrong_type", "lane" },
    { "{\"argv\":[\"x\"],\"labels\":\"untrusted\"}", "wrong_type", "labels" },
    { "{\"argv\":[\"x\"],\"labels\":[\"\"]}", "invalid_value", "labels" },
    { "{\"argv\":[\"x\"],\"backend\":\"ssh\"}", "backend_unavailable", "backend" },
    { "{\"argv\":[\"x\"],\"backend\":\"vm\"}", "unknown_backend", "backend" },
    { "{\"argv\":[\"x\"],\"run_id\":\"a/b\"}", "invalid_value", "run_id" },
    { "{\"argv\":[\"x\"],\"cwd\":\"\"}", "invalid_value", "cwd" },
    { "{\"argv\":[\"x\"],\"policy\":[]}", "wrong_type", "policy" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct sbx_exec_request r;
    struct sbx_exec_error e;
    int rc = sbx_exec_request_parse(cases[i].req, strlen(cases[i].req), &r, &e);
    CHECK(rc != 0 && e.code && strcmp(e.code, cases[i].code) == 0 &&
              strcmp(e.field, cases[i].field) == 0 && e.message[0],
          "'%s': got %s field '%s' (%s), want %s '%s'", cases[i].req, rc ? e.code : "accepted",
          rc ? e.field : "", rc ? e.message : "", cases[i].code, cases[i].field);
    sbx_exec_request_free(&r);
  }
  {
    json_t *o;
    struct sbx_exec_error e = { .code = "unknown_field" };
    snprintf(e.message, sizeof e.message, "unknown field 'x'");
    snprintf(e.field, sizeof e.field, "x");
    o = sbx_exec_error_object(&e);
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    CHECK(s && strcmp(s, "{\"version\":1,\"error\":{\"code\":\"unknown_field\",\"message\":"
                         "\"unknown field 'x'\",\"field\":\"x\"}}") == 0,
          "error object: %s", s ? s : "(none)");
    free(s);
    json_decref(o);
  }
}

int main(void)
{
  test_base64();
  test_utf8();
  test_parse_full();
  test_parse_errors();
  if (fails) {
    printf("%d failure(s)\n", fails);
    return 1;
  }
  printf("exec_units: all passed\n");
  return 0;
}
