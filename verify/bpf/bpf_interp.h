/* bpf_interp: a userspace classic-BPF interpreter with the kernel's seccomp
 * rules, so generated filters can be run on any input without loading them,
 * and a checker for the kernel's seccomp action cache.
 *
 * bpf_validate accepts exactly what seccomp(2) accepts (bpf_check_classic +
 * seccomp_check_filter in kernel/seccomp.c): 1..BPF_MAXINSNS instructions,
 * only the opcodes seccomp allows, loads of aligned in-range seccomp_data
 * words, forward in-range jumps, a RET last, no scratch-memory read before a
 * write on some path, no division by a constant 0 or shift >= 32.
 *
 * Errors are negative errnos: -EINVAL (message in err). */
#ifndef CS_VERIFY_BPF_INTERP_H
#define CS_VERIFY_BPF_INTERP_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int bpf_validate(const struct sock_filter *f, uint32_t len, char *err, size_t errlen);

struct bpf_run_result {
  uint32_t ret;      /* the SECCOMP_RET_* value */
  uint32_t executed; /* instructions executed, the RET included */
};

/* Runs a validated program. -EINVAL if it misbehaves anyway (a jump off
 * the end); validated programs never do. */
int bpf_run(const struct sock_filter *f, uint32_t len, const struct seccomp_data *sd,
            struct bpf_run_result *res);

/* The kernel's seccomp_is_const_allow: true when, for this (arch, nr), the
 * program reaches RET ALLOW using only instructions whose result cannot
 * depend on arguments or the instruction pointer (LD nr/arch, JEQ/JGE/JGT/
 * JSET K, JA, AND K). Such calls are put in the kernel's allow bitmap at
 * attach time and never run the filter again. */
bool bpf_nr_is_const_allow(const struct sock_filter *f, uint32_t len, uint32_t arch, uint32_t nr);

#endif
