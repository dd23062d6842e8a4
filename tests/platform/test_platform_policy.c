/* test_platform_policy: the answers gen/platform's emitters share
 * (platform_policy.h), on hand-made profiles: component-wise path
 * containment, grants with denied rules winning only for the accesses
 * they name, and the workspace refusals. Exit 0, or 1 naming the check. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "platform_policy.h"

static int failures;

static void expect(int cond, const char *what)
{
  if (!cond) {
    fprintf(stderr, "FAIL: %s\n", what);
    failures++;
  }
}

int main(void)
{
  expect(platform_path_within("/usr/bin", "/usr"), "/usr covers /usr/bin");
  expect(platform_path_within("/usr", "/usr"), "/usr covers itself");
  expect(platform_path_within("/usr", "/usr/"), "a trailing / changes nothing");
  expect(!platform_path_within("/usrx", "/usr"), "/usr does not cover /usrx");
  expect(!platform_path_within("/us", "/usr"), "/usr does not cover /us");
  expect(platform_path_within("${WORKSPACE}", "/"), "/ covers the workspace");
  expect(platform_path_within("~/.ssh", "/"), "/ covers the home");
  expect(platform_path_within("${WORKSPACE}/a/b", "${WORKSPACE}"), "the workspace covers below it");
  expect(!platform_path_within("${WORKSPACE}x", "${WORKSPACE}"),
         "no prefix match on the workspace");
  expect(!platform_path_within("/usr", "${WORKSPACE}"), "the workspace is not known to hold /usr");

  struct pol_path_rule allowed[] = {
    { .path = "${WORKSPACE}", .access = CS_PATH_READ | CS_PATH_WRITE },
    { .path = "/usr", .access = CS_PATH_READ | CS_PATH_EXEC },
  };
  struct pol_path_rule denied[] = {
    { .path = "${WORKSPACE}/secrets", .access = CS_PATH_READ | CS_PATH_WRITE | CS_PATH_EXEC },
    { .path = "/usr/local", .access = CS_PATH_WRITE },
  };
  struct pol_profile p = { .name = "hand",
                           .allowed = allowed,
                           .n_allowed = 2,
                           .denied = denied,
                           .n_denied = 2,
                           .allow_file_delete = true };
  expect(platform_grants(&p, "${WORKSPACE}/src", CS_PATH_WRITE), "writes in the workspace");
  expect(!platform_grants(&p, "${WORKSPACE}/src", CS_PATH_EXEC), "no execution granted there");
  expect(!platform_grants(&p, "${WORKSPACE}/secrets/k", CS_PATH_READ), "denied wins inside");
  expect(platform_grants(&p, "/usr/local/bin", CS_PATH_READ),
         "a write-only denial leaves reads (it names only write)");
  expect(!platform_grants(&p, "/etc", CS_PATH_READ), "nothing granted where no rule is");
  expect(!platform_grants(&p, "/usr", CS_PATH_READ | CS_PATH_WRITE), "every bit must be granted");
  expect(platform_workspace_writable(&p), "the workspace is writable");

  /* The refusals print diagnostics with no source: silence them. */
  diag_set_quiet(true);
  expect(platform_workspace_refusals(&p, "T", "file", "folder") != 0,
         "a denied path inside the workspace is refused");
  p.n_denied = 1;
  p.denied = denied + 1;
  expect(platform_workspace_refusals(&p, "T", "file", "folder") == 0,
         "a denial outside the workspace is no reason to refuse (negative control)");
  p.allow_file_delete = false;
  expect(platform_workspace_refusals(&p, "T", "file", "folder") != 0,
         "a writable workspace without deletion is refused");
  if (!failures)
    puts("platform_policy: every check holds");
  return failures ? 1 : 0;
}
