/* consumer: admits work through the generated table until the runtime
 * refuses, and prints how many runs were admitted at once; then asks the
 * approval library (libcs_approval) twice: with no approver (must be
 * denied: fail closed) and with an approver of its own (allowed), and
 * prints approval=ok when both came out right. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commander.h"
#include "slots.h"

static int say_yes(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                   struct cs_approval_decision *out)
{
  (void)ctx;
  (void)timeout_ms;
  out->allow = req->operation == CS_APPROVAL_OP_GIT_CONFIG;
  out->scope = CS_APPROVAL_ONCE;
  snprintf(out->reason, sizeof out->reason, "consumer says yes");
  return 0;
}

static int approvals(void)
{
  const char *argv[] = { "git", "config", "user.name", "x", NULL };
  struct cs_approval_request req = { .operation = CS_APPROVAL_OP_GIT_CONFIG,
                                     .argv = argv,
                                     .profile = "consumer",
                                     .layer = "command",
                                     .rule = "test" };
  struct cs_approval_decision d;
  struct cs_approval_opts o;
  struct cs_approval_mgr *m = NULL;
  enum cs_approval_operation op;
  int denied, allowed;

  if (cs_approval_op_parse("git-config", &op) != 0 || op != CS_APPROVAL_OP_GIT_CONFIG)
    return 1;
  memset(&o, 0, sizeof o);
  if (cs_approval_create(&o, &m) != 0)
    return 1;
  denied = cs_approval_ask(m, &req, &d);
  cs_approval_destroy(m);
  memset(&o, 0, sizeof o);
  o.approver = (struct cs_approver){ "consumer", say_yes, NULL, NULL };
  if (cs_approval_create(&o, &m) != 0)
    return 1;
  allowed = cs_approval_ask(m, &req, &d);
  cs_approval_destroy(m);
  printf("approval no-approver=%d own=%d\n", denied, allowed);
  return denied == -EPERM && allowed == 0 ? 0 : 1;
}

int main(void)
{
  struct cs_sched *sched = NULL;
  struct cs_ticket tickets[64];
  int rc = cs_sched_create(&cs_model_slots, NULL, &sched);
  if (rc != 0) {
    fprintf(stderr, "cs_sched_create: %s\n", cs_strerror(rc));
    return 1;
  }
  int admit = cs_sched_lookup_admission(sched, "admit");
  if (admit < 0)
    return 1;
  unsigned n = 0;
  while (n < 64 && cs_try_admit(sched, (uint32_t)admit, &tickets[n]) == 0)
    n++;
  printf("states=%u admitted=%u\n", (unsigned)cs_model_slots.n_states, n);
  for (unsigned i = 0; i < n; i++)
    if (cs_complete(sched, &tickets[i]) != 0)
      return 1;
  if (cs_sched_destroy(sched) != 0)
    return 1;
  if (approvals() != 0)
    return 1;
  printf("approval=ok\n");
  return 0;
}
