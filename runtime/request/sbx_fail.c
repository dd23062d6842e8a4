/* sbx_fail: confinement's one failure channel (sbx_fail.h) and the names
 * of the layers it attributes failures to. */
#include <stdarg.h>
#include <stdio.h>

#include "sbx_fail.h"

static const char *const sbx_layer_names[SBX_LAYER_COUNT_] = {
  /* grep tag: SBX_LAYER order */
  [SBX_LAYER_NONE] = "none",
  [SBX_LAYER_REQUEST] = "request",
  [SBX_LAYER_KERNEL] = "kernel",
  [SBX_LAYER_USERNS] = "user namespace",
  [SBX_LAYER_NAMESPACES] = "namespaces",
  [SBX_LAYER_MOUNT] = "mount",
  [SBX_LAYER_CGROUP] = "cgroup",
  [SBX_LAYER_RLIMIT] = "rlimit",
  [SBX_LAYER_SESSION] = "session",
  [SBX_LAYER_ENV] = "env",
  [SBX_LAYER_LANDLOCK] = "landlock",
  [SBX_LAYER_CAPS] = "capabilities",
  [SBX_LAYER_SECCOMP] = "seccomp",
  [SBX_LAYER_EXEC] = "exec",
  [SBX_LAYER_SUPERVISOR] = "supervisor",
  [SBX_LAYER_PROXY] = "proxy",
};
_Static_assert(SBX_LAYER_COUNT_ == 16, "sbx_layer_names must follow enum sbx_layer");

const char *sbx_layer_name(enum sbx_layer layer)
{
  if ((unsigned)layer >= SBX_LAYER_COUNT_ || !sbx_layer_names[layer])
    return "?";
  return sbx_layer_names[layer];
}

void sbx_result_fail(struct sbx_run_result *res, enum sbx_layer layer, int error, const char *text)
{
  res->outcome = SBX_OUTCOME_FAILED;
  res->exit_code = SBX_EXIT_FAILURE;
  res->layer = layer;
  res->error = error;
  snprintf(res->message, sizeof res->message, "%s", text);
}

void sbx_fail_set(struct sbx_fail *f, enum sbx_layer layer, int error, const char *fmt, ...)
{
  va_list ap;
  f->layer = layer;
  f->error = error;
  va_start(ap, fmt);
  vsnprintf(f->text, sizeof f->text, fmt, ap);
  va_end(ap);
}

void sbx_fail_format(const struct sbx_fail *f, char *buf, size_t len)
{
  snprintf(buf, len, "%s: %s", sbx_layer_name(f->layer), f->text);
}

void sbx_result_from_fail(struct sbx_run_result *res, const struct sbx_fail *f)
{
  char text[sizeof res->message];
  sbx_fail_format(f, text, sizeof text);
  sbx_result_fail(res, f->layer, f->error, text);
}
