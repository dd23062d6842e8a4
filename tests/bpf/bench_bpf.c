/* bench_bpf: seccomp filter quality, ours next to libseccomp's for the same
 * rules (docs/performance.md, "seccomp-BPF"). Counts, not timings: for each
 * filter, the program length, and over the x86_64 system call numbers the
 * rules allow with typical arguments (fd 3, a user pointer, a length), the
 * mean and worst number of BPF instructions the kernel executes, and how
 * many plain allows the kernel's action cache can decide from the number
 * alone (after attach they cost no instruction at all).
 *
 *   bench_bpf PROFILE.json... [POLICY.pol...]
 * prints one Markdown table. Every input's programs are first checked to
 * decide every allowed number the way the rules do. */
#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_gen.h"
#include "bpf_interp.h"
#include "bpf_testlib.h"
#include "emit_oci.h"
#include "oci_import.h"
#include "pol.h"

struct stats {
  uint32_t len;
  double mean;
  uint32_t worst;
  unsigned plain, cached;
  bool ok;
};

static void typical(struct seccomp_data *sd, uint32_t nr)
{
  memset(sd, 0, sizeof *sd);
  sd->nr = (int)nr;
  sd->arch = AUDIT_ARCH_X86_64;
  sd->args[0] = 3;
  sd->args[1] = 0x7ffc12345000ull;
  sd->args[2] = 0x100;
}

static struct stats measure(const struct sc_ruleset *rs, const struct sock_filter *f, uint32_t len)
{
  struct stats s = { .len = len, .ok = true };
  unsigned n = 0;
  double total = 0;
  for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++) {
    struct seccomp_data sd;
    typical(&sd, nr);
    uint32_t want = sc_ruleset_eval(rs, &sd);
    struct bpf_run_result r;
    if (bpf_run(f, len, &sd, &r) != 0 || r.ret != want)
      s.ok = false;
    if (tl_plain_allow(rs, nr)) {
      s.plain++;
      s.cached += bpf_nr_is_const_allow(f, len, AUDIT_ARCH_X86_64, nr);
    }
    if (want != SECCOMP_RET_ALLOW)
      continue;
    n++;
    total += r.executed;
    if (r.executed > s.worst)
      s.worst = r.executed;
  }
  s.mean = n ? total / n : 0;
  return s;
}

static unsigned allowed_count(const struct sc_ruleset *rs)
{
  unsigned n = 0;
  for (uint32_t nr = 0; nr <= TL_MAX_NR; nr++) {
    struct seccomp_data sd;
    typical(&sd, nr);
    n += sc_ruleset_eval(rs, &sd) == SECCOMP_RET_ALLOW;
  }
  return n;
}

static void row(const char *input, const char *gen, struct stats s)
{
  printf("| %s | %s | %u | %.2f | %u | %u/%u%s |\n", input, gen, s.len, s.mean, s.worst, s.cached,
         s.plain, s.ok ? "" : " (WRONG DECISIONS)");
}

static int via_export(const struct sc_ruleset *rs, int level, struct sock_filter **f, uint32_t *len)
{
  char tmp[] = "/tmp/bench_bpf_XXXXXX.json";
  int fd = mkstemps(tmp, 5);
  if (fd < 0)
    return -errno;
  FILE *out = fdopen(fd, "w");
  int rc = oci_export_ruleset(out, rs);
  if (fclose(out) != 0 && rc == 0)
    rc = -EIO;
  if (rc == 0)
    rc = tl_runc_filter_opt(tmp, level, f, len);
  unlink(tmp);
  return rc;
}

static int bench_ruleset(const char *label, const struct sc_ruleset *rs)
{
  struct bpf_program_out p;
  int rc = bpf_compile(rs, &p);
  if (rc) {
    fprintf(stderr, "%s: bpf_compile failed (%d)\n", label, rc);
    return 1;
  }
  char lab[256];
  snprintf(lab, sizeof lab, "%s (%u allowed)", label, allowed_count(rs));
  struct stats mine = measure(rs, p.insns, p.len);
  row(lab, "pnetc", mine);
  for (int level = 1; level <= 2; level++) {
    struct sock_filter *f = NULL;
    uint32_t len = 0;
    char gen[64];
    snprintf(gen, sizeof gen, "libseccomp %u.%u.%u optimize=%d", seccomp_version()->major,
             seccomp_version()->minor, seccomp_version()->micro, level);
    rc = tl_libseccomp_filter(rs, level, &f, &len);
    if (rc == -ENOTSUP) {
      /* The rules need first-match order: give libseccomp the order-free
       * profile --emit oci writes (tested to decide identically), loaded
       * the way runc loads it. */
      rc = via_export(rs, level, &f, &len);
      snprintf(gen, sizeof gen, "libseccomp %u.%u.%u optimize=%d (via --emit oci)",
               seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro, level);
    }
    if (rc) {
      printf("| %s | %s | n/a (%s) | | | |\n", lab, gen, strerror(-rc));
      continue;
    }
    row(lab, gen, measure(rs, f, len));
    free(f);
  }
  bpf_program_out_free(&p);
  return mine.ok ? 0 : 1;
}

static bool ends_with(const char *s, const char *suf)
{
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

int main(int argc, char **argv)
{
  int bad = 0;
  printf("| rule set | generator | instructions | mean insns / allowed call | worst | "
         "plain allows cacheable |\n|---|---|---|---|---|---|\n");
  for (int i = 1; i < argc; i++) {
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    if (ends_with(argv[i], ".json")) {
      struct diag_source *src = NULL;
      struct sc_ruleset rs;
      struct oci_import_report rep;
      if (oci_import_file(argv[i], &src, &rs, &rep) != 0) {
        bad = 1;
        continue;
      }
      bad |= bench_ruleset(base, &rs);
      sc_ruleset_free(&rs);
      oci_import_report_free(&rep);
      diag_source_free(src);
    } else if (ends_with(argv[i], ".pol")) {
      struct pol_policy *pol = NULL;
      if (pol_load(argv[i], &pol) != 0) {
        bad = 1;
        continue;
      }
      for (size_t k = 0; k < pol_profile_count(pol); k++) {
        const struct pol_profile *pp = pol_profile_at(pol, k);
        struct sc_ruleset rs;
        char lab[256];
        if (pol_lower(pp, &rs) != 0) {
          sc_ruleset_free(&rs);
          bad = 1;
          continue;
        }
        snprintf(lab, sizeof lab, "%s: %s", base, pp->name);
        bad |= bench_ruleset(lab, &rs);
        sc_ruleset_free(&rs);
      }
      pol_policy_free(pol);
    }
  }
  return bad;
}
