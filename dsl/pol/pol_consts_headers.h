/* The headers the .pol constant table is taken from. Included both by the
 * generator (through `cc -E -dM`, to list the macro names) and by
 * pol_consts.c (to give every name its value), so the two always agree.
 * <linux/...> variants are used where libc's would clash with them. */
#include <asm/ioctls.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/personality.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
