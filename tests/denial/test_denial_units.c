/* Unit tests of the naming of refusals (runtime/audit/sbx_denial.h): the audit
 * record parser, the matching of records to the run's Landlock domain and
 * the mapping of a record to the rule of a generated profile
 * (models/profiles.pol). The records are ones this kernel (Linux 6.18,
 * Landlock ABI 7) wrote during sbx runs, captured from the audit netlink
 * multicast group; they are replayed through a datagram socket, which
 * sbx_kmsg_collect reads exactly as the netlink socket (one record per
 * datagram, a netlink header from the kernel, nlmsg_pid 0), and through a
 * packet-mode pipe in the /dev/kmsg format. */
#include <check.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "profiles.h"
#include "sbx_denial.h"
#include "sbx_landlock_rights.h"

#define EXE "/tmp/lldenial/build/runtime/sbx"

/* Captured on this machine (see the file comment). */
static const char rec_exec[] = "audit(1795952769.641:15782): domain=185a52328 blockers=fs.execute "
                               "path=\"/tmp/lldenial/ws/mytrue\" dev=\"vda\" ino=10963391";
static const char dom_exec[] =
    "audit(1795952769.641:15782): domain=185a52328 status=allocated mode=enforcing pid=15347 "
    "uid=0 exe=\"" EXE "\" comm=\"sbx-init\"";
static const char rec_signal[] =
    "audit(1795952769.693:15786): domain=185a5232c blockers=scope.signal opid=15350 "
    "ocomm=\"sbx-init\"";
static const char dom_signal[] =
    "audit(1795952769.693:15786): domain=185a5232c status=allocated mode=enforcing pid=15351 "
    "uid=0 exe=\"" EXE "\" comm=\"sbx-init\"";
static const char rec_hex[] =
    "audit(1795952769.769:15793): domain=185a52338 blockers=fs.execute path=2F746D702F612062 "
    "dev=\"tmpfs\" ino=5";
static const char dom_dealloc[] =
    "audit(1795952769.681:15785): domain=185a52328 status=deallocated denials=1";
static const char rec_seccomp[] =
    "audit(1795952457.273:15755): auid=4294967295 uid=0 gid=0 ses=4294967295 "
    "subj=unconfined pid=15347 comm=\"python3\" exe=\"/usr/bin/python3.11\" sig=0 "
    "arch=c000003e syscall=101 compat=0 ip=0x7f0 code=0x50001";

static int pair[2] = { -1, -1 };

static void feed_setup(void)
{
  ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, pair), 0);
}

static void feed_teardown(void)
{
  close(pair[0]);
  close(pair[1]);
}

static void feed(int type, uint32_t sender, const char *text)
{
  char buf[2048];
  struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf;
  size_t n = strlen(text);
  ck_assert_uint_lt(NLMSG_HDRLEN + n, sizeof buf);
  memset(buf, 0, NLMSG_HDRLEN);
  h->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + n);
  h->nlmsg_type = (uint16_t)type;
  h->nlmsg_pid = sender;
  memcpy(buf + NLMSG_HDRLEN, text, n);
  ck_assert_int_eq(send(pair[1], buf, NLMSG_HDRLEN + n, 0), (ssize_t)(NLMSG_HDRLEN + n));
}

static struct sbx_kmsg_scan scan;

START_TEST(t_value)
{
  char v[64];
  ck_assert(sbx_audit_value(rec_exec, "path", v, sizeof v));
  ck_assert_str_eq(v, "/tmp/lldenial/ws/mytrue");
  ck_assert(sbx_audit_value(rec_exec, "blockers", v, sizeof v));
  ck_assert_str_eq(v, "fs.execute");
  ck_assert(sbx_audit_value(rec_exec, "ino", v, sizeof v));
  ck_assert_str_eq(v, "10963391");
  /* A name with a space comes hex-encoded. */
  ck_assert(sbx_audit_value(rec_hex, "path", v, sizeof v));
  ck_assert_str_eq(v, "/tmp/a b");
  /* "pid" must not be found inside "opid". */
  ck_assert(!sbx_audit_value(rec_signal, "pid", v, sizeof v));
  ck_assert(sbx_audit_value(rec_signal, "opid", v, sizeof v));
  ck_assert_str_eq(v, "15350");
  ck_assert(!sbx_audit_value(rec_exec, "dest", v, sizeof v));
  /* Too long for the buffer: refused, never cut. */
  ck_assert(!sbx_audit_value(rec_exec, "path", v, 8));
}
END_TEST

START_TEST(t_flags)
{
  ck_assert_uint_eq(sbx_ll_restrict_flags(6), 0);
  ck_assert_uint_eq(sbx_ll_restrict_flags(7), SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON);
  ck_assert_uint_eq(SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON, 2u);
}
END_TEST

START_TEST(t_collect_ours)
{
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_exec);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_exec);
  /* A later refusal of a domain already logged has no 1424 record. */
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_exec);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_dealloc);
  feed(SBX_AUDIT_SECCOMP, 0, rec_seccomp);
  sbx_kmsg_collect(pair[0], 15347, EXE, &scan);
  ck_assert(scan.from_netlink);
  ck_assert_int_eq(scan.n_ll, 2);
  ck_assert_int_eq(scan.ll_count, 2);
  ck_assert_uint_eq(scan.ll[0].domain, 0x185a52328ull);
  ck_assert_str_eq(scan.ll[0].blockers, "fs.execute");
  ck_assert_ptr_nonnull(strstr(scan.ll[0].object, "path=\"/tmp/lldenial/ws/mytrue\""));
  ck_assert_int_eq(scan.seccomp.syscall, 101);
  ck_assert_int_eq(scan.seccomp.count, 1);
}
END_TEST

START_TEST(t_collect_not_ours)
{
  /* Another process's domain (another sandbox on the machine). */
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_signal);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_signal);
  /* Our pid, but a domain made by another binary: the command's own
   * nested sandbox, not sbx's. */
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_exec);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_exec);
  sbx_kmsg_collect(pair[0], 15347, "/usr/bin/python3.11", &scan);
  ck_assert_int_eq(scan.n_ll, 0);
  ck_assert_int_eq(scan.ll_count, 0);
  ck_assert_int_eq(scan.seccomp.syscall, -1);
}
END_TEST

START_TEST(t_collect_forged)
{
  /* Only the kernel sends to the audit group: a record from a process
   * (nlmsg_pid != 0) is ignored. */
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 4242, rec_exec);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 4242, dom_exec);
  feed(SBX_AUDIT_SECCOMP, 4242, rec_seccomp);
  sbx_kmsg_collect(pair[0], 15347, EXE, &scan);
  ck_assert_int_eq(scan.n_ll, 0);
  ck_assert_int_eq(scan.seccomp.syscall, -1);
}
END_TEST

START_TEST(t_collect_busy)
{
  /* Records of other domains pile up between ours; ours still match. */
  char other[512];
  for (int i = 0; i < 40; i++) {
    snprintf(other, sizeof other,
             "audit(1.0:%d): domain=%x blockers=fs.read_file path=\"/x\" dev=\"vda\" ino=1", i,
             0x1000 + i);
    feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, other);
  }
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_hex);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0,
       "audit(1795952769.769:15793): domain=185a52338 status=allocated mode=enforcing "
       "pid=15362 uid=0 exe=\"" EXE "\" comm=\"sbx-init\"");
  sbx_kmsg_collect(pair[0], 15362, EXE, &scan);
  ck_assert_int_eq(scan.n_ll, 1);
  ck_assert_uint_eq(scan.ll[0].domain, 0x185a52338ull);
}
END_TEST

START_TEST(t_collect_helper)
{
  /* The approval workflow's helper (pid 15400, forked by sbx: sbx's exe)
   * acted for the command in a domain of its own: claimed when the
   * supervisor names it, not otherwise; a helper of another sbx (15401)
   * never. */
  static const char rec_helper[] =
      "audit(1795952770.100:15800): domain=185a52400 blockers=scope.abstract_unix_socket "
      "path=\"@sbx-test\"";
  static const char dom_helper[] =
      "audit(1795952770.100:15800): domain=185a52400 status=allocated mode=enforcing "
      "pid=15400 uid=0 exe=\"" EXE "\" comm=\"sbx\"";
  static const char rec_other[] =
      "audit(1795952770.200:15801): domain=185a52404 blockers=scope.abstract_unix_socket "
      "path=\"@sbx-test\"";
  static const char dom_other[] =
      "audit(1795952770.200:15801): domain=185a52404 status=allocated mode=enforcing "
      "pid=15401 uid=0 exe=\"" EXE "\" comm=\"sbx\"";
  const pid_t helpers[] = { 15399, 15400 };
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_helper);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_helper);
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_other);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_other);
  sbx_kmsg_collect_until(pair[0], 15347, helpers, 2, 0, EXE, NULL, 0, &scan);
  ck_assert_int_eq(scan.n_ll, 1);
  ck_assert_uint_eq(scan.ll[0].domain, 0x185a52400ull);
  ck_assert_str_eq(scan.ll[0].blockers, "scope.abstract_unix_socket");
  /* Without the helper list the same records are not the run's. */
  feed(SBX_AUDIT_LANDLOCK_ACCESS, 0, rec_helper);
  feed(SBX_AUDIT_LANDLOCK_DOMAIN, 0, dom_helper);
  sbx_kmsg_collect(pair[0], 15347, EXE, &scan);
  ck_assert_int_eq(scan.n_ll, 0);
}
END_TEST

/* /dev/kmsg: one record per read(), "PRI,SEQ,TS,FLAGS;TEXT". A pipe in
 * packet mode (O_DIRECT) returns one write per read the same way. */
static void kmsg_line(int fd, int pri, const char *text)
{
  char line[2048];
  int n = snprintf(line, sizeof line, "%d,100,200,-;%s\n", pri, text);
  ck_assert_int_gt(n, 0);
  ck_assert_int_eq(write(fd, line, (size_t)n), n);
}

START_TEST(t_collect_kmsg)
{
  int p[2];
  char text[1024];
  ck_assert_int_eq(pipe2(p, O_DIRECT | O_NONBLOCK), 0);
  /* A program may write to /dev/kmsg (facility user, pri 14): never a
   * record, whatever it says. */
  snprintf(text, sizeof text, "audit: type=1423 %s", rec_signal);
  kmsg_line(p[1], 14, text);
  snprintf(text, sizeof text, "audit: type=1424 %s", dom_signal);
  kmsg_line(p[1], 14, text);
  kmsg_line(p[1], 4, "kauditd_printk_skb: 3 callbacks suppressed");
  snprintf(text, sizeof text, "audit: type=1423 %s", rec_signal);
  kmsg_line(p[1], 5, text);
  snprintf(text, sizeof text, "audit: type=1424 %s", dom_signal);
  kmsg_line(p[1], 5, text);
  snprintf(text, sizeof text, "audit: type=1326 %s", rec_seccomp);
  kmsg_line(p[1], 5, text);
  close(p[1]);
  sbx_kmsg_collect(p[0], 15351, EXE, &scan);
  close(p[0]);
  ck_assert(!scan.from_netlink);
  ck_assert(scan.lost); /* printk's rate limit dropped records */
  ck_assert_int_eq(scan.n_ll, 1);
  ck_assert_str_eq(scan.ll[0].blockers, "scope.signal");
  ck_assert_int_eq(scan.seccomp.syscall, -1); /* pid 15347's, not ours */
}
END_TEST

static struct sbx_ll_record record(const char *blockers, const char *object)
{
  struct sbx_ll_record r;
  memset(&r, 0, sizeof r);
  r.domain = 1;
  snprintf(r.blockers, sizeof r.blockers, "%s", blockers);
  snprintf(r.object, sizeof r.object, "%s", object);
  return r;
}

static const struct cs_profile *profile(const char *name)
{
  const struct cs_profile *p = cs_profile_find(name);
  ck_assert_ptr_nonnull(p);
  return p;
}

/* The rule text names the profile and the .pol position of the rules. */
START_TEST(t_explain_exec)
{
  struct sbx_denial d;
  struct sbx_ll_record r = record("fs.execute", "path=\"/tmp/x\" dev=\"tmpfs\" ino=5");
  sbx_denial_explain(profile("strict"), "/work/ws", "/root", &r, &d);
  ck_assert_str_eq(d.what, "fs.execute /tmp/x");
  ck_assert_str_eq(d.action, "errno(EACCES)");
  ck_assert_ptr_nonnull(strstr(d.rule, "no execute rule covers the path"));
  ck_assert_ptr_nonnull(strstr(d.rule, "execute is granted only under /usr (profiles.pol:"));
  ck_assert_ptr_nonnull(strstr(d.rule, "(profile strict, profiles.pol:"));
  /* No shell: a shell under /usr/bin has no per-file grant. */
  r = record("fs.execute", "path=\"/usr/bin/bash\" dev=\"vda\" ino=7");
  sbx_denial_explain(profile("strict"), "/work/ws", "/root", &r, &d);
  ck_assert_ptr_nonnull(strstr(d.rule, "allowShell = none"));
}
END_TEST

START_TEST(t_explain_isatty_probe)
{
  struct sbx_denial d;
  /* Captured on this machine: python's isatty() of /dev/null. */
  struct sbx_ll_record r =
      record("fs.ioctl_dev", "path=\"/dev/null\" dev=\"devtmpfs\" ino=3 ioctlcmd=0x5401");
  sbx_denial_explain(profile("standard"), "/work/ws", "/root", &r, &d);
  ck_assert(d.expected);
  ck_assert_str_eq(d.what, "fs.ioctl_dev /dev/null");
  /* A terminal: the refusal changes what the command sees. */
  r = record("fs.ioctl_dev", "path=\"/dev/tty\" dev=\"devtmpfs\" ino=9 ioctlcmd=0x5401");
  sbx_denial_explain(profile("standard"), "/work/ws", "/root", &r, &d);
  ck_assert(!d.expected);
  /* Another ioctl of /dev/null is a refusal like any other. */
  r = record("fs.ioctl_dev", "path=\"/dev/null\" dev=\"devtmpfs\" ino=3 ioctlcmd=0x5413");
  sbx_denial_explain(profile("standard"), "/work/ws", "/root", &r, &d);
  ck_assert(!d.expected);
}
END_TEST

START_TEST(t_explain_write_delete)
{
  struct sbx_denial d;
  struct sbx_ll_record r = record("fs.make_reg", "path=\"/dev/shm\" dev=\"tmpfs\" ino=2");
  sbx_denial_explain(profile("strict"), "/work/ws", "/root", &r, &d);
  ck_assert_str_eq(d.what, "fs.make_reg in /dev/shm"); /* the directory */
  ck_assert_ptr_nonnull(strstr(d.rule, "allowFileWrite = false"));
  ck_assert_ptr_nonnull(strstr(d.rule, "write is granted only under /dev/null"));
  r = record("fs.remove_file", "path=\"/work/ws\" dev=\"vda\" ino=2");
  sbx_denial_explain(profile("strict"), "/work/ws", "/root", &r, &d);
  ck_assert_ptr_nonnull(strstr(d.rule, "allowFileDelete = false"));
  /* Denied paths win and are named as such. */
  r = record("fs.read_file", "path=\"/root/.ssh/id_ed25519\" dev=\"vda\" ino=9");
  sbx_denial_explain(profile("standard"), "/work/ws", "/root", &r, &d);
  ck_assert_ptr_nonnull(strstr(d.rule, "denied path ~/.ssh (profiles.pol:"));
  ck_assert_ptr_nonnull(strstr(d.rule, "profile standard"));
}
END_TEST

START_TEST(t_explain_net_scope)
{
  struct sbx_denial d;
  struct sbx_ll_record r = record("net.connect_tcp", "daddr=127.0.0.1 dest=443");
  sbx_denial_explain(profile("strict"), "/work/ws", NULL, &r, &d);
  ck_assert_str_eq(d.what, "net.connect_tcp to 127.0.0.1 port 443");
  ck_assert_ptr_nonnull(strstr(d.rule, "allowNetwork = false"));
  ck_assert_str_eq(d.action, "errno(EACCES)");
  r = record("scope.signal", "opid=15350 ocomm=\"sbx-init\"");
  sbx_denial_explain(profile("standard"), "/work/ws", NULL, &r, &d);
  ck_assert_str_eq(d.what, "scope.signal to pid 15350 (sbx-init)");
  ck_assert_ptr_nonnull(strstr(d.rule, "signal scoping"));
  ck_assert_str_eq(d.action, "errno(EPERM)");
  /* An abstract socket's name starts with NUL: shown with '@'. */
  r = record("scope.abstract_unix_socket", "path=00782D736F636B");
  sbx_denial_explain(profile("standard"), "/work/ws", NULL, &r, &d);
  ck_assert_str_eq(d.what, "scope.abstract_unix_socket @x-sock");
  ck_assert_ptr_nonnull(strstr(d.rule, "abstract unix socket scoping"));
  r = record("ptrace", "opid=1 ocomm=\"sbx-init\"");
  sbx_denial_explain(profile("strict"), "/work/ws", NULL, &r, &d);
  ck_assert_str_eq(d.what, "ptrace to pid 1 (sbx-init)");
  ck_assert_ptr_nonnull(strstr(d.rule, "no tracing of a process outside the sandbox"));
  ck_assert_str_eq(d.action, "errno(EPERM)");
  r = record("fs.refer", "path=\"/work/ws/a\" dev=\"vda\" ino=3");
  sbx_denial_explain(profile("standard"), "/work/ws", NULL, &r, &d);
  ck_assert_str_eq(d.what, "fs.refer in /work/ws/a");
  ck_assert_str_eq(d.action, "errno(EXDEV)");
}
END_TEST

/* Records this kernel (6.18) wrote for a run with its own audit session
 * (ses=6): the errno's value is not logged (code=0x50000). */
static const char rec_sc_child[] =
    "audit(1796181373.619:68803): auid=0 uid=0 gid=0 ses=6 pid=17490 comm=\"python3\" "
    "exe=\"/usr/bin/python3.11\" sig=0 arch=c000003e syscall=101 compat=0 ip=0x7f249f61234a "
    "code=0x50000";
static const char rec_sc_clone3[] =
    "audit(1796181373.619:68802): auid=0 uid=0 gid=0 ses=6 pid=17488 comm=\"python3\" "
    "exe=\"/usr/bin/python3.11\" sig=0 arch=c000003e syscall=435 compat=0 ip=0x7f249f614829 "
    "code=0x50000";
/* Another run's (ses=9), made by a process that has the command's pid. */
static const char rec_sc_other[] =
    "audit(1796181373.700:68810): auid=0 uid=0 gid=0 ses=9 pid=17488 comm=\"python3\" "
    "exe=\"/usr/bin/python3.11\" sig=0 arch=c000003e syscall=62 compat=0 ip=0x7f24 "
    "code=0x50000";
/* The approvals' notify filter: the supervisor answers, not a refusal. */
static const char rec_sc_notify[] =
    "audit(1796181373.701:68811): auid=0 uid=0 gid=0 ses=6 pid=17490 comm=\"rm\" "
    "exe=\"/usr/bin/rm\" sig=0 arch=c000003e syscall=263 compat=0 ip=0x7f24 code=0x7fc00000";

START_TEST(t_collect_session)
{
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_clone3);
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_child);
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_child); /* repeated: kept once */
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_other);
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_notify);
  sbx_kmsg_collect_until(pair[0], 17488, NULL, 0, 6, NULL, NULL, 0, &scan);
  /* Every process of session 6, the child too; not ses 9's, though it has
   * the command's pid; not the notify record. */
  ck_assert_int_eq(scan.seccomp.count, 3);
  ck_assert_int_eq(scan.n_sc, 2);
  ck_assert_int_eq(scan.sc[0].syscall, 435);
  ck_assert_int_eq(scan.sc[1].syscall, 101);
  ck_assert_int_eq(scan.sc[1].pid, 17490);
  ck_assert_uint_eq(scan.sc[1].code, 0x50000u);
  ck_assert_uint_eq(scan.sc[1].arch, 0xc000003eu);
}
END_TEST

START_TEST(t_collect_no_session)
{
  /* Without a session only the command's pid counts (the child is missed:
   * that is the naming sbx falls back to, and says so in the docs). */
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_clone3);
  feed(SBX_AUDIT_SECCOMP, 0, rec_sc_child);
  sbx_kmsg_collect_until(pair[0], 17488, NULL, 0, 0, NULL, NULL, 0, &scan);
  ck_assert_int_eq(scan.n_sc, 1);
  ck_assert_int_eq(scan.sc[0].syscall, 435);
}
END_TEST

static struct sbx_sc_denial den;

static void explain(const char *profile, int nr, uint32_t arch, uint32_t code, bool first)
{
  const struct cs_profile *p = cs_profile_find(profile);
  struct sbx_sc_record r = { .syscall = nr, .arch = arch, .code = code, .pid = 4711 };
  ck_assert_ptr_nonnull(p);
  sbx_seccomp_explain(p, &r, first, &den);
}

START_TEST(t_explain_seccomp_conditions)
{
  /* hardened ioctl: allow-if (323), errno-if (327), errno (322). */
  explain("hardened", 16, 0xc000003e, 0x50000, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "one of profiles.pol:390:5 (profile hardened), "
                                         "profiles.pol:385:5 (profile hardened)"));
  ck_assert_ptr_null(strstr(den.rule, ":323:"));
  ck_assert_str_eq(den.action, "errno(EPERM)");
  ck_assert_ptr_null(den.note);
  ck_assert(!den.expected);
  ck_assert_str_eq(den.what, "ioctl (nr 16) in pid 4711");
  /* The naming before (test knob): the first rule, an allow rule. */
  explain("hardened", 16, 0xc000003e, 0x50000, true);
  ck_assert_ptr_nonnull(strstr(den.rule, "profiles.pol:386:5"));
  /* strict ioctl: errno-if TIOCSTI, then allow: only the first refuses. */
  explain("strict", 16, 0xc000003e, 0x50000, false);
  ck_assert_str_eq(den.rule, "profiles.pol:102:5 (profile strict)");
  ck_assert_ptr_nonnull(den.note);
  ck_assert_int_eq(den.note->nr, 16);
}
END_TEST

START_TEST(t_explain_seccomp_profile)
{
  /* An inherited rule says who wrote it and which profile ran. */
  explain("standard", 101, 0xc000003e, 0x50000, false);
  ck_assert_str_eq(den.rule, "profiles.pol:142:5 (profile strict) inherited by profile standard");
  /* A call no rule lists: the default action of the profile that ran. */
  explain("standard", 169, 0xc000003e, 0x50000, false); /* reboot is listed ... */
  ck_assert_ptr_null(strstr(den.rule, "default"));
  explain("strict", 999, 0xc000003e, 0x50000, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "default action (profile strict"));
  ck_assert_str_eq(den.action, "errno(EPERM)");
  /* A kill no rule of permissive returns (its default allows): not ours. */
  explain("permissive", 999, 0xc000003e, 0x80000000u, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "another seccomp filter"));
  ck_assert(!den.expected);
  /* Another ABI: never looked up in the x86_64 table. */
  explain("strict", 11, 0x40000003u, 0x80000000u, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "ABI check"));
  ck_assert_ptr_null(den.note);
  /* x32's numbers: killed by the same check, whatever the default. */
  explain("permissive", 0x40000000 | 246, 0xc000003e, 0x80000000u, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "ABI check"));
  ck_assert_str_eq(den.what, "x32 call 246 in pid 4711");
  /* Refused, not killed: not our ABI check's doing. */
  explain("strict", 0x40000000 | 39, 0xc000003e, 0x50000u, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "another seccomp filter"));
}
END_TEST

START_TEST(t_explain_seccomp_by_text)
{
  /* A profile without return values (written by hand): its refusing rules
   * by their text, still never an allow rule; a default that allows is no
   * candidate. */
  struct cs_profile p = *cs_profile_find("hardened");
  struct sbx_sc_record r = { .syscall = 16, .arch = 0xc000003e, .code = 0x50000, .pid = 1 };
  p.rets_known = false;
  sbx_seccomp_explain(&p, &r, false, &den);
  ck_assert_ptr_nonnull(strstr(den.rule, "one of profiles.pol:390:5"));
  ck_assert_ptr_null(strstr(den.rule, ":323:"));
  ck_assert(!den.expected);
  p.syscall_notes = NULL;
  p.n_syscall_notes = 0;
  p.default_action = "allow";
  sbx_seccomp_explain(&p, &r, false, &den);
  ck_assert_ptr_nonnull(strstr(den.rule, "another seccomp filter"));
}
END_TEST

START_TEST(t_explain_seccomp_fallback)
{
  /* clone3 and io_uring: errno(ENOSYS) rules, the documented fallback. */
  explain("standard", 435, 0xc000003e, 0x50000, false);
  ck_assert(den.expected);
  ck_assert_str_eq(den.action, "errno(ENOSYS)");
  explain("strict", 425, 0xc000003e, 0x50000, false);
  ck_assert(den.expected);
  /* A kernel that logs the errno: EPERM for clone3 is no rule of ours,
   * and never expected. */
  explain("standard", 435, 0xc000003e, 0x50001, false);
  ck_assert(!den.expected);
  ck_assert_ptr_nonnull(strstr(den.rule, "another seccomp filter"));
  /* The same with the data: ioctl EPERM still both errno rules. */
  explain("hardened", 16, 0xc000003e, 0x50001, false);
  ck_assert_ptr_nonnull(strstr(den.rule, "one of"));
  /* The default action is never an expected fallback; a kill never is. */
  explain("strict", 435, 0xc000003e, 0x80000000u, false);
  ck_assert(!den.expected);
}
END_TEST

START_TEST(t_naming_text)
{
  ck_assert_ptr_nonnull(
      strstr(sbx_naming_text(SBX_NAMING_AUDIT_DISABLED), "kernel audit disabled"));
  ck_assert_str_eq(sbx_naming_text(SBX_NAMING_COUNT_), "?");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("denial");
  TCase *tc = tcase_create("parse");
  TCase *tf = tcase_create("collect");
  TCase *te = tcase_create("explain");
  SRunner *sr;
  int failed;
  tcase_add_test(tc, t_value);
  tcase_add_test(tc, t_flags);
  tcase_add_test(tc, t_naming_text);
  tcase_add_checked_fixture(tf, feed_setup, feed_teardown);
  tcase_add_test(tf, t_collect_ours);
  tcase_add_test(tf, t_collect_not_ours);
  tcase_add_test(tf, t_collect_forged);
  tcase_add_test(tf, t_collect_busy);
  tcase_add_test(tf, t_collect_helper);
  tcase_add_test(tf, t_collect_kmsg);
  tcase_add_test(tf, t_collect_session);
  tcase_add_test(tf, t_collect_no_session);
  tcase_add_test(te, t_explain_exec);
  tcase_add_test(te, t_explain_write_delete);
  tcase_add_test(te, t_explain_isatty_probe);
  tcase_add_test(te, t_explain_net_scope);
  tcase_add_test(te, t_explain_seccomp_conditions);
  tcase_add_test(te, t_explain_seccomp_profile);
  tcase_add_test(te, t_explain_seccomp_fallback);
  tcase_add_test(te, t_explain_seccomp_by_text);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, tf);
  suite_add_tcase(s, te);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
