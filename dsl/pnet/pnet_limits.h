/* pnet_limits: resource limits of the .pnet front end.
 *
 * Why limits at all: pnetc runs in build systems on models that may come
 * from anyone who can open a pull request. Every construct that can make the
 * compiler use memory or stack out of proportion to the input is bounded, and
 * exceeding a bound is an ordinary diagnostic (docs/pnet-language.md,
 * "Limits"), never a crash. The analysis has its own state-space limit. */
#ifndef CS_DSL_PNET_LIMITS_H
#define CS_DSL_PNET_LIMITS_H

#define PNET_MAX_FILE_BYTES (4L * 1024 * 1024) /* one source file */
#define PNET_MAX_NAME_LEN 128                  /* identifier, before and after ${} expansion */
#define PNET_MAX_PATH_LEN 1024                 /* include "..." string */
#define PNET_MAX_NESTING 32                    /* open ( and { at any point */
#define PNET_MAX_EXPR_DEPTH 64                 /* operator nesting in one expression */
#define PNET_MAX_FOR_DEPTH 4                   /* for inside for inside ... */
#define PNET_MAX_FAMILY_ITEMS 1024             /* entries in one { a: 1, b: 2 } list or range */
#define PNET_MAX_BINDINGS 256                  /* loop, sum and let variables in scope at once */
#define PNET_MAX_INCLUDE_DEPTH 16              /* include chain length */
#define PNET_MAX_SOURCES 64                    /* files read for one model */
#define PNET_MAX_PLACES 4096
#define PNET_MAX_TRANSITIONS 4096
#define PNET_MAX_ASSERTIONS 1024
#define PNET_MAX_CONSTANTS 4096
#define PNET_MAX_CONSTRAINTS 64   /* linear constraints joined by 'and' */
#define PNET_MAX_ITERATIONS 65536 /* family loop iterations in one model, nested loops included */
#define PNET_MAX_ERRORS 20        /* then the front end stops */

#endif
