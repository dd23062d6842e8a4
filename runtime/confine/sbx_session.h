/* sbx_session: the run's own audit session, so that the kernel's records
 * of every process of the run, and of no other, can be told apart
 * (docs/confinement.md, "Every process of the run").
 *
 * A seccomp audit record names the process by its host pid only, and the
 * command's children have pids sbx never learns; a pid seen after its
 * process is gone may already be another's. The record also carries the
 * process's audit session (ses=), which the kernel hands out afresh,
 * unique until reboot, whenever a process sets its loginuid, and which
 * every process it starts inherits. Setting it again takes
 * CAP_AUDIT_CONTROL (once a loginuid is set), which the command never has:
 * nothing inside can leave the run's session or join another's.
 *
 * sbx_run_session_begin runs in the command's process before Landlock
 * (which would refuse writing /proc/self/loginuid) and before its
 * capabilities go: it writes the loginuid the process already has, or its
 * uid when none is set (a run started outside any login), and returns the
 * new session id; 0 when there is none to be had (no /proc, a kernel
 * without audit, a loginuid set and no CAP_AUDIT_CONTROL): sbx then counts
 * the command's own pid only, as it says. sbx_run_session returns the same
 * id later in that process (READY carries it to the supervisor). */
#ifndef CS_RUNTIME_SBX_SESSION_H
#define CS_RUNTIME_SBX_SESSION_H

unsigned sbx_run_session_begin(void);
unsigned sbx_run_session(void);

#endif
