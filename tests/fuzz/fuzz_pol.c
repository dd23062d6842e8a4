/* libFuzzer harness for the .pol front end (and what follows it).
 *
 * Every input must be either refused with diagnostics or compile to a
 * filter the kernel would accept and that decides like its rule set: a
 * policy the front end accepts but the generator cannot turn into a
 * faithful filter is a bug, and the harness aborts on it. Includes are
 * refused for buffers, so the fuzzer never reads files. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/audit.h>
#include <linux/seccomp.h>

#include "bpf_gen.h"
#include "bpf_interp.h"
#include "pol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_pol_check_profile(const struct pol_profile *p)
{
  struct sc_ruleset rs;
  struct bpf_program_out prog = { 0 };
  char err[256];
  if (pol_lower(p, &rs) != 0)
    abort(); /* lowering a checked profile cannot fail but for memory */
  int rc = bpf_compile(&rs, &prog);
  if (rc == 0) {
    if (bpf_validate(prog.insns, prog.len, err, sizeof err) != 0)
      abort();
    /* The numbers the rules name, their neighbours, and a few arguments. */
    for (uint32_t r = 0; r < rs.nrules; r++) {
      for (int d = -1; d <= 1; d++) {
        struct seccomp_data sd = { .nr = rs.rules[r].nr + d, .arch = AUDIT_ARCH_X86_64 };
        for (int a = 0; a < 3; a++) {
          for (int k = 0; k < 6; k++)
            sd.args[k] = a == 0 ? 0 : a == 1 ? UINT64_MAX : (uint64_t)r * 0x10001u;
          struct bpf_run_result res;
          if (bpf_run(prog.insns, prog.len, &sd, &res) != 0)
            abort();
          if (res.ret != sc_ruleset_eval(&rs, &sd))
            abort();
        }
      }
    }
  } else if (rc != -E2BIG && rc != -ENOMEM) {
    abort();
  }
  bpf_program_out_free(&prog);
  sc_ruleset_free(&rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  diag_set_quiet(true);
  struct pol_policy *pol = NULL;
  if (pol_load_memory("fuzz.pol", (const char *)data, size, &pol) == 0) {
    for (size_t i = 0; i < pol_profile_count(pol); i++)
      fuzz_pol_check_profile(pol_profile_at(pol, i));
    pol_policy_free(pol);
  }
  diag_reset();
  return 0;
}
