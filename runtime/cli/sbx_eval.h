/* sbx_eval: `sbx eval`, JavaScript in the isolated worker (docs/sbx.md,
 * "Evaluating JavaScript", docs/tiers.md).
 *
 *   sbx eval [--input JSON | --input-file FILE] [--timeout SECONDS]
 *            [--memory MIB] [--no-wait] [--wait-timeout SECONDS]
 *            [--audit FILE] (CODE | --code-file FILE)
 *
 * CODE is one function expression; it is called with the input parsed
 * and its result is printed as JSON on stdout. Admitted through the tee
 * tier's slots of the linked model (or --model's), recorded in the audit
 * log like `sbx run`. Exit: 0 a result; 1 the code threw; 124 the time
 * limit; 128+N the worker was killed by signal N (a system call beyond
 * its channel is SIGKILL: 137); 125 sbx refused or failed (usage,
 * admission, no worker, a malformed reply). */
#ifndef CS_RUNTIME_SBX_EVAL_H
#define CS_RUNTIME_SBX_EVAL_H

#include "sbx_run.h"

/* The longest --timeout `sbx eval` takes. */
#define SBX_EVAL_MAX_TIMEOUT_MS 60000u
#define SBX_EVAL_DEFAULT_TIMEOUT_MS 5000u
#define SBX_EVAL_DEFAULT_MEMORY_MIB 64u
#define SBX_EVAL_MAX_MEMORY_MIB 4096u

/* argv from "eval" on. Returns sbx's exit status. */
int sbx_eval_cmd(const struct sbx_tables *t, int argc, char *const argv[]);

#endif
