/* sbx_session: the run's own audit session (sbx_session.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx_session.h"

/* The kernel's "no loginuid" and "no session" (AUDIT_UID_UNSET,
 * AUDIT_SID_UNSET). */
#define SBX_AUDIT_UNSET 4294967295ul

static unsigned sbx_session_id;

/* The unsigned number in /proc/self/<name>, or SBX_AUDIT_UNSET. */
static unsigned long sbx_proc_number(const char *path)
{
  char buf[32];
  char *end;
  unsigned long v;
  ssize_t n;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return SBX_AUDIT_UNSET;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return SBX_AUDIT_UNSET;
  buf[n] = '\0';
  v = strtoul(buf, &end, 10);
  return end == buf ? SBX_AUDIT_UNSET : v;
}

unsigned sbx_run_session_begin(void)
{
  unsigned long login = sbx_proc_number("/proc/self/loginuid"), ses;
  char buf[32];
  int fd, len;
  ssize_t n;

  sbx_session_id = 0;
  /* Keep the loginuid the run was started under (the person who logged
   * in); outside any login the command's own uid is the most honest
   * owner of the session. */
  if (login == SBX_AUDIT_UNSET)
    login = (unsigned long)getuid();
  fd = open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  len = snprintf(buf, sizeof buf, "%lu", login);
  n = write(fd, buf, (size_t)len);
  close(fd);
  if (n != len)
    return 0;
  /* The write made a new session; a value not read back (or the unset
   * one) is no session at all: sbx falls back to the command's pid. */
  ses = sbx_proc_number("/proc/self/sessionid");
  if (ses == 0 || ses >= SBX_AUDIT_UNSET)
    return 0;
  sbx_session_id = (unsigned)ses;
  return sbx_session_id;
}

unsigned sbx_run_session(void)
{
  return sbx_session_id;
}
