/* Unit tests of sbx's table-independent modules: the command line, profile
 * selection, the --timeout rule, `explain` (golden), the audit log. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture_profiles.h"
#include "sbx_audit.h"
#include "sbx_cli.h"
#include "sbx_confine.h"
#include "sbx_explain.h"
#include "sbx_profile.h"
#include "sbx_route.h"

static const char *golden_dir;

/* A parse with the messages captured. */
static int parse(struct sbx_opts *o, char *msg, size_t msgsize, int argc, char **argv)
{
  FILE *err = fmemopen(msg, msgsize, "w");
  int r;

  ck_assert_ptr_nonnull(err);
  r = sbx_cli_parse(argc, argv, o, err);
  fclose(err);
  return r;
}

START_TEST(cli_run_options)
{
  char *argv[] = { "sbx",        "run", "--profile", "standard", "--workspace", "/tmp",
                   "--tier",     "v8",  "--timeout", "1.5",      "--no-wait",   "--audit",
                   "/tmp/a.log", "--",  "ls",        "-l",       NULL };
  struct sbx_opts o;
  char msg[256] = "";

  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 16, argv), 0);
  ck_assert_int_eq(o.cmd, SBX_CMD_RUN);
  ck_assert_str_eq(o.profile, "standard");
  ck_assert_str_eq(o.workspace, "/tmp");
  ck_assert_str_eq(o.tier, "v8");
  ck_assert(o.has_timeout);
  ck_assert_uint_eq(o.timeout_ms, 1500);
  ck_assert(o.no_wait);
  ck_assert_str_eq(o.audit_path, "/tmp/a.log");
  ck_assert_int_eq(o.cmd_argc, 2);
  ck_assert_str_eq(o.cmd_argv[0], "ls");
  ck_assert_str_eq(o.cmd_argv[1], "-l");
}
END_TEST

START_TEST(cli_add_path)
{
  struct sbx_opts o;
  char msg[256] = "";
  char *ro[] = { "sbx", "run", "--add-path", "/data", "true", NULL };
  char *rw[] = { "sbx", "run", "--add-path", "/data:rw", "true", NULL };
  char *colon[] = { "sbx", "run", "--add-path", "/a:b:ro", "true", NULL };
  char *bad[][8] = {
    { "sbx", "run", "--add-path", ":rw", "true", NULL },
    { "sbx", "run", "--add-path", "", "true", NULL },
    { "sbx", "run", "--add-path", "/a", "--add-path", "/b", "true", NULL },
    { "sbx", "explain", "--add-path", "/a", NULL },
    { "sbx", "serve", "--add-path", "/a", NULL },
  };

  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 5, ro), 0);
  ck_assert_str_eq(o.add_path, "/data");
  ck_assert_uint_eq(o.add_path_len, 5);
  ck_assert(!o.add_rw);
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 5, rw), 0);
  ck_assert_uint_eq(o.add_path_len, 5);
  ck_assert(o.add_rw);
  /* Only the last ":ro" / ":rw" is the access; other colons are the path's. */
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 5, colon), 0);
  ck_assert_uint_eq(o.add_path_len, 4);
  ck_assert(!o.add_rw);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int n = 0;
    while (bad[i][n])
      n++;
    ck_assert_int_eq(parse(&o, msg, sizeof(msg), n, bad[i]), -EINVAL);
  }
}
END_TEST

START_TEST(cli_run_settings)
{
  char *argv[] = {
    "sbx",   "run", "--env",          "A=1", "--env",    "B=x=y",   "--pass-env", "C",
    "--cwd", "sub", "--wait-timeout", "2",   "--run-id", "s-1:a.b", "--",         "true",
    NULL
  };
  char *many[2 * SBX_OPT_ENV_MAX + 6];
  char *bad[][6] = { { "sbx", "run", "--env", "NOEQ", "true", NULL },
                     { "sbx", "run", "--env", "9A=1", "true", NULL },
                     { "sbx", "run", "--pass-env", "A=1", "true", NULL },
                     { "sbx", "run", "--run-id", "a b", "true", NULL },
                     { "sbx", "run", "--wait-timeout", "0", "true", NULL },
                     { "sbx", "check", "--run-id", "x", NULL, NULL },
                     { "sbx", "explain", "--cwd", "x", NULL, NULL } };
  struct sbx_opts o;
  char msg[256] = "";

  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 16, argv), 0);
  ck_assert_int_eq(o.n_set_env, 2);
  ck_assert_str_eq(o.set_env[0], "A=1");
  ck_assert_str_eq(o.set_env[1], "B=x=y");
  ck_assert_ptr_null(o.set_env[2]);
  ck_assert_int_eq(o.n_pass_env, 1);
  ck_assert_str_eq(o.pass_env[0], "C");
  ck_assert_ptr_null(o.pass_env[1]);
  ck_assert_str_eq(o.cwd, "sub");
  ck_assert(o.has_wait_timeout);
  ck_assert_uint_eq(o.wait_timeout_ms, 2000);
  ck_assert_str_eq(o.run_id, "s-1:a.b");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int n = 0;
    while (bad[i][n])
      n++;
    ck_assert_int_eq(parse(&o, msg, sizeof(msg), n, bad[i]), -EINVAL);
  }
  /* --no-wait and --wait-timeout contradict each other. */
  {
    char *both[] = { "sbx", "run", "--no-wait", "--wait-timeout", "1", "true", NULL };
    ck_assert_int_eq(parse(&o, msg, sizeof(msg), 6, both), -EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "contradict"));
  }
  /* More than SBX_OPT_ENV_MAX is refused, not cut short. */
  {
    int n = 0;
    many[n++] = "sbx";
    many[n++] = "run";
    for (int i = 0; i <= SBX_OPT_ENV_MAX; i++) {
      many[n++] = "--env";
      many[n++] = "A=1";
    }
    many[n++] = "true";
    many[n] = NULL;
    ck_assert_int_eq(parse(&o, msg, sizeof(msg), n, many), -EINVAL);
  }
}
END_TEST

/* The environment rules by class, with look-alikes that must pass. */
START_TEST(env_rules)
{
  const char *refused[] = { "LD_PRELOAD",
                            "LD_AUDIT",
                            "GLIBC_TUNABLES",
                            "GCONV_PATH",
                            "PATH",
                            "HOME",
                            "PWD",
                            "SBX_PROFILE",
                            "GITHUB_TOKEN",
                            "gh_token",
                            "AWS_SECRET_ACCESS_KEY",
                            "PGPASSWORD",
                            "SSH_AUTH_SOCK",
                            "npm_config__authToken",
                            "DEPLOY_KEY",
                            "MY_API_KEY",
                            "OPENAI_APIKEY",
                            "KRB5CCNAME",
                            "DB_PASS",
                            "SESSION_COOKIE",
                            NULL };
  const char *passed[] = { "GIT_AUTHOR_NAME",
                           "GIT_COMMITTER_EMAIL",
                           "KEYBOARD_LAYOUT",
                           "MONKEY",
                           "PASSAGE",
                           "CARGO_HOME",
                           "LANG",
                           "MY_SETTING",
                           NULL };
  char why[192];

  for (const char *const *n = refused; *n; n++) {
    why[0] = '\0';
    ck_assert_msg(sbx_env_refusal(*n, strlen(*n), why, sizeof why) == -EPERM, "%s passed", *n);
    ck_assert_msg(strstr(why, "env rule '") != NULL, "%s: %s", *n, why);
  }
  for (const char *const *n = passed; *n; n++)
    ck_assert_msg(sbx_env_refusal(*n, strlen(*n), why, sizeof why) == 0, "%s: %s", *n, why);
  /* Only the first len bytes count. */
  ck_assert_int_eq(sbx_env_refusal("MY_SETTING=TOKEN", 10, why, sizeof why), 0);
}
END_TEST

START_TEST(cli_command_options_are_not_ours)
{
  /* Without "--", parsing stops at CMD: its --profile belongs to it. */
  char *argv[] = { "sbx", "run", "env", "--profile", "x", NULL };
  char *argv2[] = { "sbx", "run", "--", "--profile", NULL };
  struct sbx_opts o;
  char msg[256] = "";

  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 5, argv), 0);
  ck_assert_ptr_null(o.profile);
  ck_assert_int_eq(o.cmd_argc, 3);
  ck_assert_str_eq(o.cmd_argv[1], "--profile");
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 4, argv2), 0);
  ck_assert_int_eq(o.cmd_argc, 1);
  ck_assert_str_eq(o.cmd_argv[0], "--profile");
}
END_TEST

START_TEST(cli_approvals)
{
  char *run[] = {
    "sbx",         "run", "--approver", "none", "--approval-timeout", "2.5", "--approval-store",
    "/tmp/s.json", "--",  "true",       NULL
  };
  char *sub[] = { "sbx", "approvals", "--approval-store", "/tmp/s.json", "list", NULL };
  char *bad[] = { "sbx", "explain", "--approver", "none", NULL };
  struct sbx_opts o;
  char msg[256] = "";

  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 10, run), 0);
  ck_assert_str_eq(o.approver, "none");
  ck_assert_uint_eq(o.approval_timeout_ms, 2500);
  ck_assert_str_eq(o.approval_store, "/tmp/s.json");
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 5, sub), 0);
  ck_assert_int_eq(o.cmd, SBX_CMD_APPROVALS);
  ck_assert_int_eq(o.sub_argc, 4);
  ck_assert_str_eq(o.sub_argv[0], "approvals");
  ck_assert_str_eq(o.sub_argv[3], "list");
  /* Approval options mean nothing to explain: refused, not ignored. */
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 4, bad), -EINVAL);
}
END_TEST

START_TEST(cli_errors)
{
  struct {
    int argc;
    char *argv[6];
    const char *needle;
  } cases[] = {
    { 1, { "sbx" }, "no command given" },
    { 2, { "sbx", "frobnicate" }, "unknown command 'frobnicate'" },
    { 2, { "sbx", "run" }, "run: no command given" },
    { 3, { "sbx", "run", "--" }, "run: no command given" },
    { 4, { "sbx", "run", "--bogus", "ls" }, "unknown option '--bogus'" },
    { 3, { "sbx", "run", "--profile" }, "needs an argument" },
    { 5, { "sbx", "run", "--timeout", "0", "ls" }, "--timeout '0'" },
    { 5, { "sbx", "run", "--timeout", "1.2345", "ls" }, "at most 3 decimals" },
    { 3, { "sbx", "check", "--no-wait" }, "check: only --json is accepted" },
    { 3, { "sbx", "run", "--json" }, "run: --json belongs to check" },
    { 4, { "sbx", "explain", "--json", "x" }, "explain: only --profile, --bpf and --routes" },
    { 4, { "sbx", "check", "--profile", "x" }, "check: only --json" },
    { 3, { "sbx", "explain", "extra" }, "unexpected argument 'extra'" },
    { 4, { "sbx", "explain", "--tier", "v8" }, "explain: only --profile, --bpf and --routes" },
    { 4, { "sbx", "run", "--bpf", "ls" }, "run: --bpf belongs to explain" },
    /* A user's policy or model: only where it means something. */
    { 4, { "sbx", "run", "--policy", "", "ls" }, "--policy: empty file name" },
    { 4, { "sbx", "run", "--model", "", "ls" }, "--model: empty file name" },
    { 4, { "sbx", "check", "--policy", "p.pol" }, "check: only --json" },
    { 4, { "sbx", "explain", "--model", "m.pnet" }, "explain: only --profile, --bpf and --routes" },
    { 4, { "sbx", "explain", "--workspace", "/" }, "explain: only --profile, --bpf and --routes" },
    { 4, { "sbx", "serve", "--policy", "p.pol" }, "serve: only --idle and -v" },
    /* exec: the run's settings come from the request, never twice. */
    { 4,
      { "sbx", "exec", "--profile", "strict" },
      "exec: the run's settings come from the request" },
    { 4, { "sbx", "exec", "--env", "A=1" }, "exec: the run's settings come from the request" },
    { 4, { "sbx", "exec", "--timeout", "2" }, "exec: the run's settings come from the request" },
    { 4, { "sbx", "exec", "--policy", "p.pol" }, "exec: the run's settings come from the request" },
    { 3, { "sbx", "exec", "ls" }, "exec: unexpected argument 'ls'" },
    { 5, { "sbx", "exec", "--no-wait", "--wait-timeout", "1" }, "contradict each other" },
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct sbx_opts o;
    char msg[512] = "";
    ck_assert_msg(parse(&o, msg, sizeof(msg), cases[i].argc, cases[i].argv) == -EINVAL,
                  "case %zu accepted", i);
    ck_assert_msg(strstr(msg, cases[i].needle) != NULL, "case %zu: '%s' lacks '%s'", i, msg,
                  cases[i].needle);
    ck_assert_msg(strncmp(msg, "sbx: error: ", 12) == 0, "case %zu: '%s'", i, msg);
  }
}
END_TEST

START_TEST(cli_exec_options)
{
  struct sbx_opts o;
  char msg[512] = "";
  char *exec[] = { "sbx",        "exec", "--workspace", "/w",     "--audit", "/a.log",
                   "--approver", "none", "--model",     "m.pnet", "--cold",  NULL };
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 11, exec), 0);
  ck_assert_int_eq(o.cmd, SBX_CMD_EXEC);
  ck_assert_str_eq(o.workspace, "/w");
  ck_assert_str_eq(o.audit_path, "/a.log");
  ck_assert_str_eq(o.approver, "none");
  ck_assert_str_eq(o.model, "m.pnet");
  ck_assert(o.cold);
  ck_assert_ptr_null(o.cmd_argv);
}
END_TEST

START_TEST(cli_policy_and_model)
{
  struct sbx_opts o;
  char msg[512] = "";
  char *run[] = { "sbx", "run", "--policy", "a.pol", "--model", "m.pnet", "--", "ls", NULL };
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 8, run), 0);
  ck_assert_str_eq(o.policy, "a.pol");
  ck_assert_str_eq(o.model, "m.pnet");
  ck_assert_str_eq(o.cmd_argv[0], "ls");
  /* explain takes the workspace a run would keep the policy out of. */
  char *explain[] = { "sbx", "explain", "--policy", "a.pol", "--workspace", "/w", NULL };
  ck_assert_int_eq(parse(&o, msg, sizeof(msg), 6, explain), 0);
  ck_assert_str_eq(o.policy, "a.pol");
  ck_assert_str_eq(o.workspace, "/w");
}
END_TEST

START_TEST(cli_help_lists_every_exit_code)
{
  char buf[8192] = "";
  FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

  sbx_cli_usage(f);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "124"));
  ck_assert_ptr_nonnull(strstr(buf, "125"));
  ck_assert_ptr_nonnull(strstr(buf, "126"));
  ck_assert_ptr_nonnull(strstr(buf, "127"));
  ck_assert_ptr_nonnull(strstr(buf, "128+N"));
}
END_TEST

START_TEST(cli_seconds)
{
  static const struct {
    const char *s;
    int ok;
    uint64_t ms;
  } cases[] = {
    { "2", 1, 2000 },        { "0.5", 1, 500 }, { "1.250", 1, 1250 },
    { ".5", 1, 500 },        { "0.001", 1, 1 }, { "2592000", 1, 2592000000ull },
    { "2592000.001", 0, 0 }, { "0", 0, 0 },     { "0.0", 0, 0 },
    { "1.2345", 0, 0 },      { "", 0, 0 },      { "1.", 0, 0 },
    { ".", 0, 0 },           { "abc", 0, 0 },   { "-1", 0, 0 },
    { "1s", 0, 0 },          { " 1", 0, 0 },    { "99999999999999999999999", 0, 0 },
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    uint64_t ms = 0;
    int r = sbx_cli_parse_seconds(cases[i].s, &ms);
    ck_assert_msg((r == 0) == cases[i].ok, "'%s': %d", cases[i].s, r);
    if (cases[i].ok)
      ck_assert_uint_eq(ms, cases[i].ms);
  }
}
END_TEST

static int select_profile(const char *flag, const char *env, const char **name, char *msg,
                          size_t msgsize)
{
  const struct cs_profile *p = NULL;
  enum sbx_profile_source src;
  FILE *err = fmemopen(msg, msgsize, "w");
  int r = sbx_profile_select(sbx_fixture_profiles, SBX_FIXTURE_N, flag, env, &p, &src, err);

  fclose(err);
  *name = p ? p->name : NULL;
  if (r == 0)
    ck_assert_str_eq(sbx_profile_source_name(src), flag ? "flag" : env ? "env" : "default");
  return r;
}

START_TEST(profile_precedence)
{
  const char *name;
  char msg[512] = "";

  ck_assert_int_eq(select_profile(NULL, NULL, &name, msg, sizeof(msg)), 0);
  ck_assert_str_eq(name, "strict");
  ck_assert_int_eq(select_profile(NULL, "standard", &name, msg, sizeof(msg)), 0);
  ck_assert_str_eq(name, "standard");
  ck_assert_int_eq(select_profile("strict", "standard", &name, msg, sizeof(msg)), 0);
  ck_assert_str_eq(name, "strict");
  ck_assert_int_eq(select_profile("WORKSPACE_WRITE", NULL, &name, msg, sizeof(msg)), 0);
  ck_assert_str_eq(name, "standard");
  ck_assert_int_eq(select_profile(NULL, "READ_ONLY", &name, msg, sizeof(msg)), 0);
  ck_assert_str_eq(name, "strict");
}
END_TEST

START_TEST(profile_unknown_is_an_error)
{
  const char *name;
  char msg[512] = "";

  /* Even when the environment names a valid one, a bad flag is an error. */
  ck_assert_int_eq(select_profile("stirct", "strict", &name, msg, sizeof(msg)), -ENOENT);
  ck_assert_ptr_nonnull(strstr(msg, "unknown profile 'stirct' (from --profile)"));
  ck_assert_ptr_nonnull(strstr(msg, "strict (READ_ONLY), standard (WORKSPACE_WRITE)"));
  ck_assert_int_eq(select_profile(NULL, "read_only", &name, msg, sizeof(msg)), -ENOENT);
  ck_assert_ptr_nonnull(strstr(msg, "from COMMANDER_SECURITY_PROFILE"));
  ck_assert_int_eq(select_profile(NULL, "", &name, msg, sizeof(msg)), -ENOENT);
  ck_assert_ptr_nonnull(strstr(msg, "COMMANDER_SECURITY_PROFILE is empty"));
  ck_assert_int_eq(select_profile("", NULL, &name, msg, sizeof(msg)), -ENOENT);
  /* A table without "strict" cannot supply the default. */
  {
    const struct cs_profile *p = NULL;
    enum sbx_profile_source src;
    FILE *err = fmemopen(msg, sizeof(msg), "w");
    ck_assert_int_eq(sbx_profile_select(&sbx_fixture_profiles[1], 1, NULL, NULL, &p, &src, err),
                     -ENOENT);
    fclose(err);
    ck_assert_ptr_nonnull(strstr(msg, "unknown profile 'strict' (from the default)"));
  }
}
END_TEST

START_TEST(profile_timeout_only_lowers)
{
  const struct cs_profile *p = &sbx_fixture_profiles[1]; /* 1.5 s */
  char msg[512] = "";
  uint64_t ms = 0;
  FILE *err = fmemopen(msg, sizeof(msg), "w");

  ck_assert_int_eq(sbx_profile_timeout(p, 0, 0, &ms, err), 0);
  ck_assert_uint_eq(ms, 1500);
  ck_assert_int_eq(sbx_profile_timeout(p, 1, 1000, &ms, err), 0);
  ck_assert_uint_eq(ms, 1000);
  ck_assert_int_eq(sbx_profile_timeout(p, 1, 1500, &ms, err), 0);
  ck_assert_uint_eq(ms, 1500);
  ck_assert_int_eq(sbx_profile_timeout(p, 1, 1501, &ms, err), -ERANGE);
  ck_assert_uint_eq(ms, 1500);
  fclose(err);
  ck_assert_ptr_nonnull(strstr(msg, "--timeout 1.501s exceeds profile 'standard' "
                                    "maxExecutionTime 1.500s (fixture.pol:18:1)"));
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "r");
  char *buf;
  long n;

  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = calloc(1, (size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

START_TEST(explain_golden)
{
  char *out = NULL, *want, path[4096];
  size_t outlen = 0, wantlen = 0;
  FILE *f = open_memstream(&out, &outlen);

  for (int i = 0; i < SBX_FIXTURE_N; i++) {
    sbx_explain(f, &sbx_fixture_profiles[i]);
    fprintf(f, "----\n");
  }
  fclose(f);
  snprintf(path, sizeof(path), "%s/explain_fixture.golden", golden_dir);
  if (getenv("SBX_UPDATE_GOLDEN")) {
    FILE *g = fopen(path, "w");
    ck_assert_ptr_nonnull(g);
    fwrite(out, 1, outlen, g);
    fclose(g);
  }
  want = slurp(path, &wantlen);
  ck_assert_msg(want != NULL, "cannot read %s", path);
  ck_assert_msg(outlen == wantlen && memcmp(out, want, outlen) == 0,
                "explain differs from %s; got:\n%s", path, out);
  free(want);
  free(out);
}
END_TEST

/* A proxied profile: explain names the mode and lists every rule with its
 * origin, deny rules before allow rules (the order the proxy decides in),
 * the rest and the local ranges. Control: the same profile with direct
 * network prints no policy and says "allowed". */
START_TEST(explain_network_rules)
{
  static const struct cs_net_rule allow[] = {
    { "registry.npmjs.org:443", "net.pol:9:11 (profile parent)" },
    { "**.pythonhosted.org", "net.pol:20:11 (profile px)" },
  };
  static const struct cs_net_rule deny[] = { { "evil.pythonhosted.org",
                                               "net.pol:10:10 (profile parent)" } };
  static const struct cs_net_rule local[] = { { "127.0.0.0/8", "net.pol:12:11 (profile parent)" } };
  struct cs_profile p = sbx_fixture_profiles[0];
  p.allow_network = true;
  p.net_mode = CS_NET_PROXY;
  p.net_rest = CS_NET_REST_ASK;
  p.net_allow = allow;
  p.n_net_allow = 2;
  p.net_deny = deny;
  p.n_net_deny = 1;
  p.net_local = local;
  p.n_net_local = 1;
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  sbx_explain(f, &p);
  fclose(f);
  ck_assert_msg(strstr(out, "Network:        through sbx's proxy only") != NULL, "%s", out);
  const char *d = strstr(out, "  deny   evil.pythonhosted.org");
  const char *a1 = strstr(out, "  allow  registry.npmjs.org:443");
  const char *a2 = strstr(out, "  allow  **.pythonhosted.org");
  ck_assert_msg(d && a1 && a2 && d < a1 && a1 < a2, "%s", out);
  ck_assert_msg(strstr(a1, "net.pol:9:11 (profile parent)") != NULL, "%s", out);
  ck_assert_msg(strstr(a2, "net.pol:20:11 (profile px)") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "  rest   ask: ") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "  local  127.0.0.0/8") != NULL, "%s", out);
  free(out);

  p.net_mode = CS_NET_DIRECT;
  f = open_memstream(&out, &len);
  sbx_explain(f, &p);
  fclose(f);
  ck_assert_msg(strstr(out, "Network:        allowed.") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "Network policy") == NULL, "%s", out);
  free(out);
}
END_TEST

START_TEST(explain_bytes_exact)
{
  char b[32];

  ck_assert_str_eq(sbx_explain_bytes(b, sizeof(b), 1000), "1000 bytes");
  ck_assert_str_eq(sbx_explain_bytes(b, sizeof(b), 1024), "1 KiB");
  ck_assert_str_eq(sbx_explain_bytes(b, sizeof(b), 1536), "1536 bytes");
  ck_assert_str_eq(sbx_explain_bytes(b, sizeof(b), 3ull << 30), "3 GiB");
}
END_TEST

static struct sbx_audit_record sample_record(char **argv, int argc)
{
  static const struct sbx_audit_denial den[] = {
    { "seccomp", "fixture.pol:11:5", "ptrace (nr 101)", "kill-process" },
  };
  struct sbx_audit_record r;

  memset(&r, 0, sizeof(r));
  r.start.tv_sec = 1795942800; /* 2026-11-29T09:00:00Z */
  r.start.tv_nsec = 42000000;
  r.profile = "strict";
  r.profile_alias = "READ_ONLY";
  r.profile_source = "env";
  r.tier = "v8";
  r.argv = argv;
  r.argc = argc;
  r.workspace = "/work";
  r.model = "default";
  r.admitted = true;
  r.admission_wait_ms = 7;
  r.limits = &sbx_fixture_profiles[0].limits;
  r.timeout_ms = 2000;
  r.outcome = SBX_AUDIT_SIGNALED;
  r.signal = 9;
  r.sbx_exit = 137;
  r.duration_ms = 12;
  r.denials = den;
  r.n_denials = 1;
  return r;
}

START_TEST(audit_format_schema)
{
  char *argv[] = { "ls", "-l", "caf\xc3\xa9", "\xff\x01", NULL };
  struct sbx_audit_record r = sample_record(argv, 4);
  json_error_t jerr;
  json_t *o;
  char *line;
  int e = 0;

  line = sbx_audit_format(&r, &e);
  ck_assert_ptr_nonnull(line);
  ck_assert(line[strlen(line) - 1] == '\n');
  ck_assert_ptr_null(strchr(line, '\n') == line + strlen(line) - 1 ? NULL : line);
  o = json_loads(line, 0, &jerr);
  ck_assert_msg(o != NULL, "%s: %s", line, jerr.text);
  ck_assert_int_eq(json_integer_value(json_object_get(o, "schema")), 1);
  ck_assert_str_eq(json_string_value(json_object_get(o, "time")), "2026-11-29T09:00:00.042Z");
  ck_assert_str_eq(json_string_value(json_object_get(o, "profile")), "strict");
  ck_assert_str_eq(json_string_value(json_object_get(o, "profile_source")), "env");
  ck_assert_str_eq(json_string_value(json_object_get(o, "tier")), "v8");
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "argv"), 2)), "caf\xc3\xa9");
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(json_object_get(o, "argv"), 3), "hex")),
      "ff01");
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o, "admission"), "wait_ms")),
                   7);
  ck_assert_int_eq(
      json_integer_value(json_object_get(json_object_get(o, "limits"), "max_file_size")), 1000);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o, "limits"), "timeout_ms")),
                   2000);
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "result"), "signal_name")),
                   "SIGKILL");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "result"), "outcome")),
                   "signaled");
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(json_object_get(o, "denials"), 0), "rule")),
      "fixture.pol:11:5");
  ck_assert_ptr_null(json_object_get(o, "truncated"));
  json_decref(o);
  free(line);
}
END_TEST

START_TEST(audit_huge_record_is_shortened)
{
  enum { N = 2000 };
  char **argv = calloc(N + 1, sizeof(char *));
  char *big = malloc(1000);
  struct sbx_audit_record r;
  json_t *o;
  char *line;
  int e = 0;

  memset(big, 'a', 999);
  big[999] = '\0';
  for (int i = 0; i < N; i++)
    argv[i] = big;
  r = sample_record(argv, N);
  line = sbx_audit_format(&r, &e);
  ck_assert_ptr_nonnull(line);
  ck_assert_uint_le(strlen(line), SBX_AUDIT_MAX_RECORD);
  o = json_loads(line, 0, NULL);
  ck_assert_ptr_nonnull(o);
  ck_assert(json_is_true(json_object_get(o, "truncated")));
  ck_assert_uint_eq(json_array_size(json_object_get(o, "argv")), 32);
  json_decref(o);
  free(line);
  free(big);
  free(argv);
}
END_TEST

static int audit_open_msg(const char *path, char *msg, size_t size)
{
  struct sbx_audit a;
  FILE *err = fmemopen(msg, size, "w");
  int r = sbx_audit_open(&a, path, err);

  fclose(err);
  sbx_audit_close(&a);
  return r;
}

START_TEST(audit_unusable_logs_refused)
{
  char dir[] = "/tmp/sbx-audit-XXXXXX", path[256], msg[512] = "";

  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(audit_open_msg(dir, msg, sizeof(msg)), -EISDIR);
  ck_assert_ptr_nonnull(strstr(msg, "cannot open for appending"));
  snprintf(path, sizeof(path), "%s/missing/a.log", dir);
  ck_assert_int_eq(audit_open_msg(path, msg, sizeof(msg)), -ENOENT);
  ck_assert_int_eq(audit_open_msg("", msg, sizeof(msg)), -EINVAL);
  snprintf(path, sizeof(path), "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  /* A FIFO without a reader fails open(O_NONBLOCK) with ENXIO; either
   * way it is refused before anything runs. */
  ck_assert_int_ne(audit_open_msg(path, msg, sizeof(msg)), 0);
  ck_assert_ptr_nonnull(strstr(msg, "sbx: error: audit log"));
  unlink(path);
  snprintf(path, sizeof(path), "%s/ok.log", dir);
  ck_assert_int_eq(audit_open_msg(path, msg, sizeof(msg)), 0);
  ck_assert_int_eq(audit_open_msg(NULL, msg, sizeof(msg)), 0);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(audit_concurrent_appends_never_interleave)
{
  enum { PROCS = 8, EACH = 50 };
  char dir[] = "/tmp/sbx-audit-XXXXXX", path[256], line[1 << 16];
  char *argv[] = { "x", NULL };
  int lines = 0;
  FILE *f;

  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof(path), "%s/a.log", dir);
  for (int p = 0; p < PROCS; p++) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      struct sbx_audit a;
      char *big = malloc(20000);
      memset(big, 'a' + p, 19999);
      big[19999] = '\0';
      argv[0] = big; /* long lines make interleaving likely if it could happen */
      if (sbx_audit_open(&a, path, stderr) != 0)
        _exit(1);
      for (int i = 0; i < EACH; i++) {
        struct sbx_audit_record r = sample_record(argv, 1);
        if (sbx_audit_append(&a, &r, stderr) != 0)
          _exit(2);
      }
      sbx_audit_close(&a);
      free(big);
      _exit(0);
    }
  }
  for (int p = 0; p < PROCS; p++) {
    int st;
    ck_assert_int_gt(wait(&st), 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  while (fgets(line, sizeof(line), f)) {
    json_t *o = json_loads(line, 0, NULL);
    const char *a0;
    ck_assert_msg(o != NULL, "line %d does not parse", lines + 1);
    a0 = json_string_value(json_array_get(json_object_get(o, "argv"), 0));
    ck_assert_uint_eq(strlen(a0), 19999);
    ck_assert_uint_eq(strspn(a0, (char[]){ a0[0], 0 }), 19999);
    json_decref(o);
    lines++;
  }
  fclose(f);
  ck_assert_int_eq(lines, PROCS * EACH);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(audit_rfc3339)
{
  struct timespec ts = { 0, 999999999 };
  char buf[48];

  ck_assert_int_eq(sbx_audit_rfc3339(&ts, buf, sizeof(buf)), 0);
  ck_assert_str_eq(buf, "1970-01-01T00:00:00.999Z");
  ts.tv_sec = 951782400; /* leap day 2000 */
  ts.tv_nsec = 0;
  ck_assert_int_eq(sbx_audit_rfc3339(&ts, buf, sizeof(buf)), 0);
  ck_assert_str_eq(buf, "2000-02-29T00:00:00.000Z");
  ck_assert_int_eq(sbx_audit_rfc3339(&ts, buf, 10), -EOVERFLOW);
}
END_TEST

/* Routes: every condition must hold, labels all present, hosts without
 * case, the first match wins, none is the default route; --tier and
 * --lane win over the route's. */
START_TEST(route_first_match_and_default)
{
  static const char *const two[] = { "untrusted", "ci" };
  static const struct cs_route routes[] = {
    { .name = "both",
      .origin = "t:1:1",
      .kind = "command",
      .labels = two,
      .n_labels = 2,
      .backend = "local",
      .tier = "tee",
      .lane = "background" },
    { .name = "host",
      .origin = "t:2:1",
      .host = "build.example",
      .backend = "ssh",
      .tier = "seccomp",
      .lane = "interactive" },
    { .name = "strict",
      .origin = "t:3:1",
      .kind = "command",
      .profile = "strict",
      .backend = "local",
      .tier = "wasm",
      .lane = "subagent" },
    { .name = "one",
      .origin = "t:4:1",
      .labels = two,
      .n_labels = 1,
      .backend = "container",
      .tier = "v8",
      .lane = "interactive" },
  };
  const char *ci_untrusted[] = { "ci", "untrusted" }, *untrusted[] = { "untrusted" };
  struct sbx_route_request rq = { .kind = "command", .profile = "standard" };
  struct sbx_route_choice c;

  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_ptr_null(c.route);
  ck_assert_str_eq(c.name, "default");
  ck_assert_str_eq(c.backend, "local");
  ck_assert_str_eq(sbx_route_tier(&c, NULL, "seccomp"), "seccomp");
  ck_assert_ptr_null(sbx_route_lane(&c, NULL));

  rq.labels = ci_untrusted;
  rq.n_labels = 2;
  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_str_eq(c.name, "both");
  ck_assert_str_eq(sbx_route_tier(&c, NULL, "seccomp"), "tee");
  ck_assert_str_eq(sbx_route_lane(&c, NULL), "background");
  ck_assert_str_eq(sbx_route_tier(&c, "v8", "seccomp"), "v8");
  ck_assert_str_eq(sbx_route_lane(&c, "interactive"), "interactive");

  /* One of the two labels: not "both" (all must be there), but "one". */
  rq.labels = untrusted;
  rq.n_labels = 1;
  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_str_eq(c.name, "one");
  ck_assert_str_eq(c.backend, "container");

  rq.host = "BUILD.Example";
  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_str_eq(c.name, "host");

  rq.host = NULL;
  rq.labels = NULL;
  rq.n_labels = 0;
  rq.profile = "strict";
  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_str_eq(c.name, "strict");
  rq.kind = "javascript";
  sbx_route_choose(routes, 4, &rq, &c);
  ck_assert_str_eq(c.name, "default");
  sbx_route_choose(NULL, 0, &rq, &c);
  ck_assert_str_eq(c.name, "default");
}
END_TEST

int main(int argc, char **argv)
{
  Suite *s = suite_create("sbx_units");
  TCase *tc = tcase_create("all");
  SRunner *sr;
  int failed;

  golden_dir = argc > 1 ? argv[1] : ".";
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, cli_run_options);
  tcase_add_test(tc, cli_run_settings);
  tcase_add_test(tc, cli_add_path);
  tcase_add_test(tc, env_rules);
  tcase_add_test(tc, cli_command_options_are_not_ours);
  tcase_add_test(tc, cli_approvals);
  tcase_add_test(tc, cli_errors);
  tcase_add_test(tc, cli_policy_and_model);
  tcase_add_test(tc, cli_exec_options);
  tcase_add_test(tc, cli_help_lists_every_exit_code);
  tcase_add_test(tc, cli_seconds);
  tcase_add_test(tc, profile_precedence);
  tcase_add_test(tc, profile_unknown_is_an_error);
  tcase_add_test(tc, profile_timeout_only_lowers);
  tcase_add_test(tc, explain_golden);
  tcase_add_test(tc, explain_bytes_exact);
  tcase_add_test(tc, explain_network_rules);
  tcase_add_test(tc, audit_format_schema);
  tcase_add_test(tc, audit_huge_record_is_shortened);
  tcase_add_test(tc, audit_unusable_logs_refused);
  tcase_add_test(tc, audit_concurrent_appends_never_interleave);
  tcase_add_test(tc, audit_rfc3339);
  tcase_add_test(tc, route_first_match_and_default);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
