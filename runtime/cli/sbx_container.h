/* sbx_container: the container backend of `sbx run` (docs/sbx.md,
 * "The container backend"). The command runs in podman (or docker when
 * podman is missing) with the profile's confinement expressed as the
 * engine's options: its OCI seccomp profile (the pnetc export), no
 * network unless the profile reaches it directly, a read-only root, no
 * capabilities, no-new-privileges, the profile's memory, process and
 * time limits, the workspace and allowed paths mounted as the profile
 * says and its denied paths masked. Whatever the engine cannot be made to
 * enforce here fails the run before the command starts (exit 125). */
#ifndef SBX_CONTAINER_H
#define SBX_CONTAINER_H

#include <stdio.h>

#include "cs_profile_table.h"
#include "sbx_request.h"

/* The image when no --image is given. */
#define SBX_CONTAINER_IMAGE_ENV "SBX_CONTAINER_IMAGE"
/* The directory of the OCI seccomp profiles, one PROFILE.json each
 * (pnetc --emit oci --profile PROFILE). */
#define SBX_CONTAINER_SECCOMP_ENV "SBX_CONTAINER_SECCOMP_DIR"
/* podman or docker by path; unset: podman, else docker, from PATH. */
#define SBX_CONTAINER_ENGINE_ENV "SBX_CONTAINER_ENGINE"

struct sbx_container_request {
  const struct cs_profile *profile;
  const char *workspace; /* resolved; mounted at the same path */
  const char *cwd;       /* resolved, inside the workspace */
  char *const *argv;
  const char *image;           /* NULL: $SBX_CONTAINER_IMAGE */
  uint64_t timeout_ms;         /* the limit applied (the profile's or lower) */
  const char *const *set_env;  /* NAME=VALUE, NULL-terminated; may be NULL */
  const char *const *pass_env; /* NAME, NULL-terminated; may be NULL */
};

/* Runs the command; fills *res as sbx_confine_run does (outcome, exit
 * code, status, layer and message of a refusal, elapsed time). *image is
 * set to the image used (for the record), NULL when none was named.
 * 0 when the run's outcome is in *res, even a refused one. */
int sbx_container_run(const struct sbx_container_request *rq, struct sbx_run_result *res,
                      const char **image);

#endif
