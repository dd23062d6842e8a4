/* sbx_admit: admission of one `sbx run` through the compiled scheduler.
 *
 * Every sbx on the machine (or sharing SBX_STATE_DIR) opens the same
 * cross-process admission state for the compiled default model
 * (cs_shared_*, runtime/include/commander.h): <dir>/<model>.state. A run asks for
 * the admission transition "admit_<lane>_<tier>" of a model with lanes (a
 * place "<lane>_lane" per lane, docs/pnet-language.md "Lanes"), or
 * "admit_<tier>" of one without; when the table refuses it (the
 * firing would leave the safe set), the run waits in FIFO order, or with
 * --no-wait fails at once naming the model, the admission and the marking.
 * The ticket is completed when the command is gone; if sbx dies first
 * (even by SIGKILL) its holder record is found dead by the next admission
 * and the slot returns (commander.h, section 3).
 *
 * Returns: 0, or a negative errno from commander.h's list (-EAGAIN
 * refused with no_wait, -ENOENT unknown lane or tier, -ESTALE state file of another
 * model, ...) or from mkdir(2)/open(2), after a message on `err`. */
#ifndef CS_RUNTIME_SBX_ADMIT_H
#define CS_RUNTIME_SBX_ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "commander.h"

#define SBX_STATE_DIR_ENV "SBX_STATE_DIR"
#define SBX_STATE_DIR_ROOT "/run/commander-sandbox"
/* Whether the model has lane `lane` (a place "<lane>_lane"). */
bool sbx_admit_lane_known(const struct cs_model_table *t, const char *lane);

/* The lane of a run that names none: the agent's own tool calls. */
#define SBX_DEFAULT_LANE "interactive"

struct sbx_admit {
  const struct cs_model_table *table;
  struct cs_shared_sched *sh;
  struct cs_shared_ticket ticket;
  bool held;
  uint64_t wait_ms; /* how long the admission waited */
  char path[4096];  /* the shared state file */
  /* The wait made visible (docs/sbx.md, "Admission"): */
  const char *tier;    /* the tier asked for */
  const char *lane;    /* the lane asked for; NULL: the model has no lanes */
  uint32_t admission;  /* its transition */
  bool wait_noticed;   /* the one-line notice was written on err */
  bool wait_timed_out; /* --wait-timeout passed before a slot was free */
  FILE *err;           /* where the notice goes */
};

/* A run still waiting after this long says so, once, on err. */
#define SBX_ADMIT_NOTICE_MS 1000u

/* Opens (creating) the shared state for `table`. */
int sbx_admit_open(struct sbx_admit *a, const struct cs_model_table *table, FILE *err);
/* The same with the state file <dir>/<state_name>.state: a user's model
 * (--model) gets a name of its own, so no other model shares its state. */
int sbx_admit_open_named(struct sbx_admit *a, const struct cs_model_table *table,
                         const char *state_name, FILE *err);
/* Admits (lane, tier): admit_<lane>_<tier>, or admit_<tier> when the
 * model has no lanes (lane NULL or SBX_DEFAULT_LANE). lane NULL means
 * SBX_DEFAULT_LANE; a lane the model does not have is -ENOENT, never a
 * fallback. Waits in FIFO order unless no_wait, at most wait_timeout_ms
 * when non-zero (-ETIMEDOUT then, after a message naming the lane, the
 * tier and what is short). A wait longer than SBX_ADMIT_NOTICE_MS is
 * announced once on err: what the run waits for (a lane slot, a tier
 * slot or earlier runs), with the slots in use. a->lane is the lane taken
 * (NULL for a model without lanes). */
int sbx_admit_acquire(struct sbx_admit *a, const char *lane, const char *tier, bool no_wait,
                      uint64_t wait_timeout_ms, FILE *err);
/* Whether the model has lanes: a place named "<lane>_lane". */
bool sbx_admit_has_lanes(const struct cs_model_table *t);
/* Ties the held slot to the run's pid 1 (cs_shared_guard): a SIGKILLed
 * sbx's slot then returns only once its sandbox is gone. 0 when nothing is
 * held. */
int sbx_admit_guard(struct sbx_admit *a, pid_t init, FILE *err);
/* The same as a struct sbx_run_request on_init callback (admit: the
 * struct sbx_admit; messages on stderr). */
int sbx_admit_on_init(void *admit, pid_t init);
/* Completes the ticket if one is held. */
int sbx_admit_release(struct sbx_admit *a, FILE *err);
void sbx_admit_close(struct sbx_admit *a);

/* For `sbx check`: the state file, the model's tiers with how many runs
 * each admits at once from the initial marking, and, when the state file
 * exists (it is never created here), its current holders and waiters. */
void sbx_admit_describe(FILE *out, const struct cs_model_table *table);
/* How many admissions of `adm` fire one after the other from the initial
 * marking: the tier's slots as the compiled table sees them. */
uint32_t sbx_admit_capacity(const struct cs_model_table *t, uint32_t adm);
/* The same as a JSON object (jansson json_t *, NULL on -ENOMEM): model,
 * source, tiers [{name, slots}], state {path, exists, usable, error,
 * state, holders, waiters}. */
struct json_t;
struct json_t *sbx_admit_describe_json(const struct cs_model_table *table);

/* The directory of the shared state: $SBX_STATE_DIR, else
 * /run/commander-sandbox for root, else $XDG_RUNTIME_DIR/commander-sandbox.
 * 0 or -ENOENT (no usable location) / -ENAMETOOLONG. */
int sbx_admit_state_dir(char *buf, size_t size);

#endif
