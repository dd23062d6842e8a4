/* sbx_signal: what SIGINT, SIGTERM and SIGHUP do to `sbx run`.
 *
 * While the command runs, such a signal ends the sandbox (SIGKILL to sbx's
 * children: the sandbox's init, whose death kills everything in its pid
 * namespace), and sbx then completes the ticket, writes the audit record
 * ("interrupted by SIGTERM") and exits 128+N. So Ctrl-C or a service
 * manager's stop never leaves a run without its record or a slot taken
 * until reclamation. Outside a run (e.g. while waiting for admission) the
 * signal keeps its default action: nothing ran, and the dead waiter is
 * dropped by the next admission. */
#ifndef CS_RUNTIME_SBX_SIGNAL_H
#define CS_RUNTIME_SBX_SIGNAL_H

/* Installs the handlers; 0 or -errno. */
int sbx_signal_install(void);
/* Marks the span in which a signal ends the sandbox instead of sbx. */
void sbx_signal_running(int running);
/* The first terminating signal received during a run, or 0. */
int sbx_signal_received(void);
/* "INT", "TERM" or "HUP" for the signals above, "?" for any other (what
 * glibc's sigabbrev_np says, which musl, the front end's C library, lacks). */
const char *sbx_signal_name(int sig);

#endif
