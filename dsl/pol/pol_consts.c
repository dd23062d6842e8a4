/* pol_consts: see pol_consts.h. */
#include "pol_consts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_consts_headers.h"

struct pol_const {
  const char *name;
  uint64_t value;
};

/* Values are converted through the macro's own type: a negative int
 * becomes its 64-bit two's complement, as a register would hold it. */
#define POL_CONST(n) { #n, (uint64_t)(n) },
/* Sorted by name (pol_consts_gen.sh sorts with LC_ALL=C). */
static const struct pol_const pol_consts[] = {
#include "pol_consts.inc"
};
#undef POL_CONST

/* Constants the headers define as enumerators, which `cc -dM` cannot list:
 * named here, valued by the compiler from <linux/personality.h>. */
static const struct pol_const pol_enum_consts[] = {
  { "ADDR_COMPAT_LAYOUT", ADDR_COMPAT_LAYOUT },
  { "ADDR_LIMIT_32BIT", ADDR_LIMIT_32BIT },
  { "ADDR_LIMIT_3GB", ADDR_LIMIT_3GB },
  { "ADDR_NO_RANDOMIZE", ADDR_NO_RANDOMIZE },
  { "MMAP_PAGE_ZERO", MMAP_PAGE_ZERO },
  { "PER_BSD", PER_BSD },
  { "PER_LINUX", PER_LINUX },
  { "PER_LINUX32", PER_LINUX32 },
  { "PER_LINUX_32BIT", PER_LINUX_32BIT },
  { "PER_MASK", PER_MASK },
  { "READ_IMPLIES_EXEC", READ_IMPLIES_EXEC },
  { "SHORT_INODE", SHORT_INODE },
  { "STICKY_TIMEOUTS", STICKY_TIMEOUTS },
  { "UNAME26", UNAME26 },
  { "WHOLE_SECONDS", WHOLE_SECONDS },
};

/* The language promises these names; a header change that loses one must
 * break the build, not silently weaken a profile. */
_Static_assert(TIOCSTI == 0x5412, "TIOCSTI moved: check asm/ioctls.h");
_Static_assert(TIOCLINUX == 0x541C, "TIOCLINUX moved: check asm/ioctls.h");
_Static_assert(CLONE_NEWUSER == 0x10000000, "CLONE_NEWUSER moved: check linux/sched.h");
_Static_assert(AF_NETLINK == 16, "AF_NETLINK moved");
_Static_assert(IPPROTO_IPV6 == 41 && IPV6_RTHDR == 57 && IPV6_2292RTHDR == 5,
               "IPv6 routing-header options moved: check netinet/in.h");
_Static_assert(IPPROTO_IP == 0 && IP_OPTIONS == 4 && IP_RETOPTS == 7, "IP options moved");
_Static_assert(S_ISUID == 04000 && S_ISGID == 02000 && S_IFMT == 0170000 && S_IFIFO == 010000 &&
                   S_IFSOCK == 0140000,
               "file mode bits moved: check fcntl.h");
_Static_assert(F_SETLEASE == 1024 && F_NOTIFY == 1026, "F_SETLEASE/F_NOTIFY moved: check fcntl.h");

static int pol_const_cmp(const void *key, const void *elem)
{
  return strcmp(key, ((const struct pol_const *)elem)->name);
}

int pol_const_lookup(const char *name, uint64_t *value)
{
  const struct pol_const *c = bsearch(name, pol_consts, sizeof pol_consts / sizeof pol_consts[0],
                                      sizeof pol_consts[0], pol_const_cmp);
  if (!c) {
    for (size_t i = 0; i < sizeof pol_enum_consts / sizeof pol_enum_consts[0]; i++) {
      if (strcmp(pol_enum_consts[i].name, name) == 0) {
        *value = pol_enum_consts[i].value;
        return 0;
      }
    }
    return -ENOENT;
  }
  *value = c->value;
  return 0;
}

/* errno names are the E[A-Z0-9]+ entries; other prefixes that start with E
 * do not exist in the table (see pol_consts_gen.sh). */
static int pol_is_errno_name(const char *name)
{
  if (name[0] != 'E' || !name[1])
    return 0;
  for (const char *p = name + 1; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

int pol_errno_lookup(const char *name, int *value)
{
  uint64_t v;
  if (!pol_is_errno_name(name) || pol_const_lookup(name, &v) != 0 || v > 4095)
    return -ENOENT;
  *value = (int)v;
  return 0;
}

const char *pol_errno_name(int value)
{
  for (size_t i = 0; i < sizeof pol_consts / sizeof pol_consts[0]; i++)
    if (pol_is_errno_name(pol_consts[i].name) && pol_consts[i].value == (uint64_t)value)
      return pol_consts[i].name;
  return NULL;
}

size_t pol_const_count(void)
{
  return sizeof pol_consts / sizeof pol_consts[0] +
         sizeof pol_enum_consts / sizeof pol_enum_consts[0];
}
