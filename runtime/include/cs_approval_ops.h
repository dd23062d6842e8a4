/* cs_approval_ops: the operations the approval workflow guards
 * (docs/approvals.md). One list, used three ways: a request and a command
 * rule name one operation (enum cs_approval_operation), and a profile's
 * table says which ones it offers to approve as a set of bits
 * (struct cs_profile.approval_ops, CS_APPROVE_* = 1 << the operation).
 * Public; included by cs_profile_table.h and cs_cmdrule.h. */
#ifndef CS_RUNTIME_CS_APPROVAL_OPS_H
#define CS_RUNTIME_CS_APPROVAL_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

/* grep tag: CS_APPROVAL_OPERATION (cs_approval_op_names[] in
 * runtime/cmdrule/cs_cmdrule.c follows it). */
enum cs_approval_operation {
  CS_APPROVAL_OP_DELETE = 0,
  CS_APPROVAL_OP_NETWORK = 1,
  CS_APPROVAL_OP_SUDO = 2,
  CS_APPROVAL_OP_GIT_CONFIG = 3,
  CS_APPROVAL_OP_EXEC = 4, /* a command rule with no specific operation */
  CS_APPROVAL_OP_COUNT_
};

/* The bits of struct cs_profile.approval_ops: one per operation a profile
 * can offer to approve (exec has none: a rule for it is the profile's own
 * decision). The generated tables spell these names. */
enum cs_approval_op_bits {
  CS_APPROVE_FILE_DELETE = 1 << CS_APPROVAL_OP_DELETE,
  CS_APPROVE_EXTERNAL_NETWORK = 1 << CS_APPROVAL_OP_NETWORK,
  CS_APPROVE_SUDO = 1 << CS_APPROVAL_OP_SUDO,
  CS_APPROVE_GIT_CONFIG = 1 << CS_APPROVAL_OP_GIT_CONFIG,
};

/* The CS_APPROVE_* bit of an operation; 0 for exec and for a value out of
 * range (so an unknown operation is never taken as approvable). */
#define CS_APPROVAL_OP_BIT(op)                                                                     \
  ((unsigned)(op) < (unsigned)CS_APPROVAL_OP_EXEC ? (1u << (unsigned)(op)) : 0u)

#ifdef __cplusplus
}
#endif

#endif
