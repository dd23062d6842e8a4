/* libFuzzer harness for sbx's reader of git configuration files
 * (runtime/sbx_git_config.h), which sbx runs as root over files of the
 * user's repository before a run: any input is keys or an error, never a
 * crash, an overrun or undefined behaviour. The reader takes a path: the
 * input is handed over in a memfd. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sbx_git_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every key is looked at as the plan would (its strings must be
 * terminated within their arrays). */
static int gitcfg_seen(void *arg, const struct sbx_git_kv *kv)
{
  size_t *total = arg;
  *total += strlen(kv->section) + strlen(kv->key) + (kv->has_value ? strlen(kv->value) : 0);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char path[64];
  size_t total = 0;
  int fd = memfd_create("fuzz-gitcfg", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) == (ssize_t)size) {
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    (void)sbx_git_config_scan(path, gitcfg_seen, &total);
  }
  close(fd);
  return 0;
}
