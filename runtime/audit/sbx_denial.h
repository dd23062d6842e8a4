/* sbx_denial: naming the refusals the kernel made during a run.
 *
 * Two layers refuse on their own during a run and can be named afterwards
 * from the kernel's audit records: seccomp (type 1326, always logged for a
 * filter loaded with SECCOMP_FILTER_FLAG_LOG) and Landlock
 * (AUDIT_LANDLOCK_ACCESS 1423 with AUDIT_LANDLOCK_DOMAIN 1424, Linux 6.15,
 * Landlock ABI 7). Landlock logs only
 *   - while the kernel's audit is enabled (audit_enabled, set by auditd,
 *     `auditctl -e 1` or the boot parameter audit=1): its log function
 *     returns before building a record otherwise. seccomp's records do not
 *     depend on it, which is why they were seen and Landlock's were not;
 *   - and, by default, only until the restricted process calls execve: sbx
 *     restricts its own child right before it executes the command, so
 *     without LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON nothing the command
 *     does is logged.
 * sbx sets the flag (sbx_ll_restrict_flags, runtime/confine) and never changes the audit
 * switch itself: that is machine-wide state owned by the administrator.
 * `sbx check` says whether refusals can be named and how to enable it.
 *
 * The records are read from the audit netlink multicast group (every
 * record, not rate limited; needs CAP_AUDIT_READ in the initial network
 * namespace) or else from /dev/kmsg (printk, rate limited). A Landlock
 * record belongs to the run only when its domain was created by the
 * command's own process: the 1424 record carries that creator's host pid,
 * which the supervisor learnt from the kernel (SCM_CREDENTIALS), and sbx's
 * binary as its exe. A seccomp record belongs to it when it carries the
 * run's audit session (sbx_session.h), which every process of the run has
 * and no other. Nothing the command says is trusted.
 *
 * Errors: functions returning int return 0 or a negative errno (-EPERM,
 * -ECONNREFUSED: not allowed to ask; -EIO: malformed answer; any errno of
 * socket/bind/send/recv). */
#ifndef CS_RUNTIME_SBX_DENIAL_H
#define CS_RUNTIME_SBX_DENIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cs_profile_table.h"
#include "sbx_request.h"

/* Kernel audit record types (linux/audit.h of 6.15). */
#define SBX_AUDIT_SECCOMP 1326
#define SBX_AUDIT_LANDLOCK_ACCESS 1423
#define SBX_AUDIT_LANDLOCK_DOMAIN 1424

/* Kernel seccomp audit records (type=1326) for one pid, read from a
 * /dev/kmsg descriptor positioned at the start of the run. */
struct sbx_kmsg_hit {
  int syscall;
  long sig;
  int count;
};
int sbx_kmsg_open(void);
void sbx_kmsg_scan(int fd, pid_t pid, struct sbx_kmsg_hit *hit);

/* The kernel's audit switch (AUDIT_GET on the audit netlink socket; needs
 * CAP_AUDIT_CONTROL in the initial pid namespace). *enabled: 0 off, 1 on,
 * 2 on and locked. */
int sbx_kaudit_get(int *enabled);
/* AUDIT_SET of the switch. For tests only (they restore the old state):
 * sbx never changes it. Fails with -EPERM when locked (2). */
int sbx_kaudit_set(int enabled);

/* One AUDIT_LANDLOCK_ACCESS record of the run's domain. */
struct sbx_ll_record {
  uint64_t domain;
  char blockers[128]; /* "fs.execute", "fs.make_reg,fs.refer", "net.connect_tcp" */
  char object[384];   /* the fields after blockers: path="/tmp/x" dev="vda" ino=12 */
};

/* One distinct seccomp record of the run (a call number, ABI and the
 * filter's return value; the first process that made it). The record
 * carries no argument of the call. */
struct sbx_sc_record {
  int syscall;
  uint32_t arch; /* AUDIT_ARCH_X86_64 (0xc000003e), AUDIT_ARCH_I386, ... */
  uint32_t code; /* what the filter returned: SECCOMP_RET_ERRNO | EPERM, ... */
  long sig;      /* non-zero: the call killed the process */
  long pid;
};

#define SBX_SCAN_LL_MAX 16
#define SBX_SCAN_SC_MAX 16
struct sbx_kmsg_scan {
  struct sbx_kmsg_hit seccomp; /* refusals only: the count and the last (a kill first) */
  struct sbx_sc_record sc[SBX_SCAN_SC_MAX]; /* distinct refusals, in order */
  int n_sc;
  struct sbx_ll_record ll[SBX_SCAN_LL_MAX]; /* the first ones, in order */
  int n_ll;
  int ll_count;       /* every record of the run's domain */
  bool lost;          /* the source said records were dropped (rate limit, overrun) */
  bool from_netlink;  /* read from the audit multicast group, not /dev/kmsg */
  bool marker_missed; /* sbx_kmsg_collect_until: its marker did not come in time */
};

/* Records reach their readers through the kernel's kauditd thread: one
 * made just before the command ended may still wait in its queue when the
 * run is over. Waits (at most 50 ms) until that queue is empty and sets
 * *enabled to the audit switch; returns 0, or a negative errno without
 * waiting when the kernel cannot be asked (not root). One AUDIT_GET costs
 * ~80 us (the kernel starts a thread to reply). */
int sbx_kmsg_settle(int *enabled);

/* Reads every record that arrived on fd (sbx_kmsg_open, positioned at the
 * start of the run) and keeps seccomp's records of `pid` and Landlock's of
 * the domain `pid` created (its exe must be `exe` unless exe is NULL). */
void sbx_kmsg_collect(int fd, pid_t pid, const char *exe, struct sbx_kmsg_scan *out);

/* A queue found empty (sbx_kmsg_settle) does not mean delivered: kauditd
 * may still be handing the last record it took to the multicast group.
 * sbx_kmsg_mark sends an AUDIT_USER record whose text carries a token it
 * writes to token[len] ("sbx-sync ..."): it goes through the same queue
 * and thread, after every record the run's processes made, so once it is
 * read, all of theirs were. Needs CAP_AUDIT_WRITE; returns 0 or a negative
 * errno. sbx_kmsg_collect_until reads like sbx_kmsg_collect, but when
 * `marker` is not NULL it waits (at most ms) until the record carrying it
 * arrived. */
int sbx_kmsg_mark(char *token, size_t len);
/* fd reads the audit multicast group (not /dev/kmsg). */
bool sbx_kmsg_is_netlink(int fd);
#define SBX_KMSG_MARK_MS 500
/* `others` (n_others of them, may be NULL): more processes of the run whose
 * Landlock domains are the run's too (the approval workflow's helpers,
 * which act for the command in a domain of their own). `session`: the
 * run's audit session (sbx_session.h), 0 for none: a seccomp
 * record whose ses= is the run's belongs to the run whichever of its
 * processes made it; without one only `pid`'s and the others' count. */
void sbx_kmsg_collect_until(int fd, pid_t pid, const pid_t *others, size_t n_others,
                            unsigned session, const char *exe, const char *marker, int ms,
                            struct sbx_kmsg_scan *out);

/* Names the rule of profile p (the profile that ran) behind seccomp record
 * r: of the call's rules, those the filter may have reached whose return
 * value is the record's (never an allow rule, never another profile's),
 * "one of" when several; the default action when it is reachable and
 * returns that. `first_rule` (test knob SBX_DENIAL_OLD_ENV, the
 * naming before this fix): the call's first note whatever it says. */
void sbx_seccomp_explain(const struct cs_profile *p, const struct sbx_sc_record *r, bool first_rule,
                         struct sbx_sc_denial *d);
/* Test knob: name refusals as sbx did before the deciding rule was named
 * (the first note of the call; the command's pid only; fallbacks reported),
 * so tests can show they would catch that naming. */
#define SBX_DENIAL_OLD_ENV "SBX_TEST_DENIAL_OLD"

/* Splits `text` (a record's text after "audit(...): ") into the value of
 * `key` ("path", "blockers"), unquoting "..." and decoding the hex form
 * audit uses for strings with spaces or control characters. Returns false
 * when absent or too long for out. For tests too. */
bool sbx_audit_value(const char *text, const char *key, char *out, size_t out_len);

/* Fills *d with what was refused and the rule of profile p behind it.
 * workspace is the resolved workspace (for ${WORKSPACE} rules), home the
 * home directory used for "~" (may be NULL). */
void sbx_denial_explain(const struct cs_profile *p, const char *workspace, const char *home,
                        const struct sbx_ll_record *r, struct sbx_denial *d);

/* Whether refusals by Landlock can be named on this machine now, for
 * `sbx check`: the first obstacle (NO_LOG, OLD_ABI, AUDIT_DISABLED) or OK;
 * `source` gets where records would be read from ("the audit netlink
 * group", "/dev/kmsg (rate limited)", or "none"). */
enum sbx_naming sbx_naming_probe(char *source, size_t source_len);

/* Appends printf-style text to the NUL-terminated msg of size len, cut at
 * its end (a result's message stays one line and never overflows). */
void sbx_msg_append(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Words for enum sbx_naming ("kernel audit disabled"). */
const char *sbx_naming_text(enum sbx_naming n);

#endif
