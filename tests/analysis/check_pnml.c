/* Unit tests of the PNML reader (dsl/pnml/pnml.c, docs/analysis.md "PNML
 * input"): accepted structure, and one diagnostic per kind of bad input,
 * each checked for its exact file:line:col prefix. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pn_analysis.h"
#include "pnml.h"

#ifndef PNML_DIR
#error "PNML_DIR must name tests/analysis/pnml"
#endif

START_TEST(test_nested_pages)
{
  struct pn_net *net = pnml_parse_file(PNML_DIR "/nested_pages.pnml");
  ck_assert_ptr_nonnull(net);
  ck_assert_str_eq(net->name, "Two job slots");
  ck_assert_uint_eq(net->nplaces, 2);
  ck_assert_uint_eq(net->ntransitions, 2);
  ck_assert_str_eq(net->places[0].name, "slots");
  ck_assert_int_eq(net->places[0].initial, 2);
  ck_assert_int_eq(net->places[0].role, PN_PLACE_TRACKED);
  ck_assert_int_eq(net->places[0].capacity, PN_UNBOUNDED);
  ck_assert_int_eq(net->places[0].loc.line, 9);
  ck_assert_int_eq(net->places[0].loc.col, 7);
  ck_assert_int_eq(net->transitions[0].kind, PN_ADMISSION);
  ck_assert_int_eq(net->transitions[1].kind, PN_PROGRESS);
  ck_assert_uint_eq(net->transitions[0].npre, 1);
  ck_assert_uint_eq(net->transitions[0].pre[0].place, 0);
  ck_assert_uint_eq(net->nassertions, 1);
  ck_assert_int_eq(net->assertions[0].kind, PN_ASSERT_NO_DEADLOCK);
  struct pn_analysis *a = NULL;
  ck_assert_int_eq(pn_analyze(net, NULL, &a), 0);
  ck_assert_uint_eq(pn_analysis_states(a), 3);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SAFE), 2);
  ck_assert_uint_eq(pn_analysis_class_count(a, PN_CLASS_SATURATED), 1);
  pn_analysis_free(a);
  pn_net_free(net);
}
END_TEST

START_TEST(test_no_page_parallel_arcs)
{
  struct pn_net *net = pnml_parse_file(PNML_DIR "/no_page.pnml");
  ck_assert_ptr_nonnull(net);
  ck_assert_uint_eq(net->transitions[0].npre, 1);
  ck_assert_uint_eq(net->transitions[0].pre[0].weight, 2);
  /* Two arcs t -> q weigh 2 together. */
  ck_assert_uint_eq(net->transitions[0].npost, 1);
  ck_assert_uint_eq(net->transitions[0].post[0].weight, 2);
  pn_net_free(net);
}
END_TEST

/* Parses text as "bad.pnml" and returns the diagnostics (caller frees). */
static char *diagnose(const char *text)
{
  char *out = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&out, &len);
  ck_assert_ptr_nonnull(mem);
  diag_set_stream(mem);
  struct pn_net *net = pnml_parse_memory("bad.pnml", text, strlen(text));
  diag_set_stream(stderr);
  fclose(mem);
  ck_assert_ptr_null(net);
  return out;
}

#define HEAD                                                                                       \
  "<pnml><net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"pg\">\n"
#define TAIL "</page></net></pnml>\n"

static const struct {
  const char *text, *want;
} bad_inputs[] = {
  { HEAD "<place id=\"p\"/>\n<transition id=\"t\"/>\n<arc id=\"a\" target=\"t\"/>\n" TAIL,
    "bad.pnml:4:1: error: arc 'a' has no source attribute" },
  { HEAD "<place id=\"p\"/>\n<arc id=\"a\" source=\"p\" target=\"nowhere\"/>\n" TAIL,
    "bad.pnml:3:1: error: arc target 'nowhere' is not a place or transition of the net" },
  { HEAD "<place id=\"p\">\n  <initialMarking><text>-1</text></initialMarking></place>\n" TAIL,
    "bad.pnml:3:19: error: initial marking of place 'p' is not a non-negative integer: '-1'" },
  { HEAD
    "<place id=\"p\">\n  <initialMarking><text>99999999999999999999</text></initialMarking></place>\n" TAIL,
    "bad.pnml:3:19: error: initial marking of place 'p' is not a non-negative integer" },
  { HEAD "<place id=\"p\"/><transition id=\"t\"/>\n<arc id=\"a\" source=\"p\" target=\"t\">"
         "<inscription><text>0</text></inscription></arc>\n" TAIL,
    "bad.pnml:3:48: error: inscription of arc 'a' is not an integer in 1..2147483647: '0'" },
  { HEAD "<place id=\"p\"/>\n<transition id=\"p\"/>\n" TAIL,
    "bad.pnml:3:1: error: duplicate id 'p'" },
  { "<pnml><net id=\"n\" type=\"http://www.pnml.org/version-2009/grammar/symmetricnet\">\n</net></pnml>\n",
    "bad.pnml:1:7: error: net type 'http://www.pnml.org/version-2009/grammar/symmetricnet' is not a "
    "place/transition net" },
  { HEAD "<place id=\"p\"/>\n<place id=\"q\"/>\n<arc id=\"a\" source=\"p\" target=\"q\"/>\n" TAIL,
    "bad.pnml:4:1: error: arc from place 'p' to place 'q': arcs must join a place and a transition" },
  { HEAD "<place id=\"p\">\n</transition>\n" TAIL, "bad.pnml:3:" },
  { "<petrinet/>\n", "bad.pnml:1:1: error: not a PNML document" },
  { "<pnml>\n</pnml>\n", "bad.pnml:1:1: error: no <net> element" },
  { HEAD "<place/>\n" TAIL, "bad.pnml:2:1: error: <place> has no id attribute" },
  { HEAD "<referencePlace id=\"r\" ref=\"p\"/>\n" TAIL,
    "bad.pnml:2:1: error: <referencePlace> is not supported" },
};

START_TEST(test_bad_input)
{
  char *out = diagnose(bad_inputs[_i].text);
  ck_assert_msg(strncmp(out, bad_inputs[_i].want, strlen(bad_inputs[_i].want)) == 0,
                "case %d: got '%s', want prefix '%s'", _i, out, bad_inputs[_i].want);
  /* The offending line is quoted under the message. */
  ck_assert_ptr_nonnull(strchr(out, '^'));
  free(out);
}
END_TEST

START_TEST(test_duplicate_note)
{
  char *out = diagnose(HEAD "<place id=\"p\"/>\n<transition id=\"p\"/>\n" TAIL);
  ck_assert_ptr_nonnull(strstr(out, "bad.pnml:2:1: note: 'p' first defined here"));
  free(out);
}
END_TEST

START_TEST(test_missing_file)
{
  char *out = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&out, &len);
  diag_set_stream(mem);
  struct pn_net *net = pnml_parse_file(PNML_DIR "/does-not-exist.pnml");
  diag_set_stream(stderr);
  fclose(mem);
  ck_assert_ptr_null(net);
  ck_assert_ptr_nonnull(strstr(out, "does-not-exist.pnml"));
  free(out);
}
END_TEST

static Suite *pnml_suite(void)
{
  Suite *s = suite_create("pnml");
  TCase *tc = tcase_create("reader");
  tcase_add_test(tc, test_nested_pages);
  tcase_add_test(tc, test_no_page_parallel_arcs);
  tcase_add_loop_test(tc, test_bad_input, 0, (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
  tcase_add_test(tc, test_duplicate_note);
  tcase_add_test(tc, test_missing_file);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(pnml_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
