/* pol_library: where `include <NAME>;` looks when nobody names the
 * library directory (pnetc and sbx without --library).
 *
 * Installed, the library sits at ${datadir}/commander-sandbox/pol and the
 * executables in ${bindir} or ${libexecdir}/commander-sandbox; the paths
 * between them are fixed at build time as relative ones, so an install
 * under any prefix (or a moved tree) finds its own library, never another
 * install's. An executable still in the build tree has no such directory
 * beside it and uses the source tree's models/, the library the build
 * compiled its own tables from. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pol.h"

#ifndef CS_POL_LIBRARY_FROM_BIN
#error "CS_POL_LIBRARY_FROM_BIN, CS_POL_LIBRARY_FROM_LIBEXEC, CS_POL_LIBRARY_BUILD: set by CMake"
#endif

static char *pol_library_if_dir(const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return NULL;
  return realpath(path, NULL);
}

char *pol_library_default(void)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      static const char *const rel[] = { CS_POL_LIBRARY_FROM_BIN, CS_POL_LIBRARY_FROM_LIBEXEC };
      for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX];
        if (snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]) >= (int)sizeof cand)
          continue;
        char *found = pol_library_if_dir(cand);
        if (found)
          return found;
      }
    }
  }
  return pol_library_if_dir(CS_POL_LIBRARY_BUILD);
}
