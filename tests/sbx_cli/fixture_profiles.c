/* The fixed profile table of the unit tests (see fixture_profiles.h). */
#include "fixture_profiles.h"

#include <stddef.h>

static const struct cs_path_rule strict_allowed[] = {
  { "${WORKSPACE}", CS_PATH_READ, "fixture.pol:4:5" },
  { "/usr", CS_PATH_READ | CS_PATH_EXEC, "fixture.pol:5:5" },
};
static const struct cs_path_rule strict_denied[] = {
  { "~/.ssh", CS_PATH_READ | CS_PATH_WRITE | CS_PATH_EXEC, "fixture.pol:7:5" },
};
static const struct cs_syscall_note strict_notes[] = {
  { 0, "read", "allow", "fixture.pol:10:5", 0x7fff0000u },
  { 101, "ptrace", "kill-process", "fixture.pol:11:5", 0x80000000u },
};
static const struct cs_command_rule std_rules[] = {
  { "force-push", "git", "push --force", 1, 1, "fixture.pol:22:5 (profile standard)" },
  { "no-dd", "dd", "", 2, 0, "fixture.pol:23:5 (profile standard)" },
};
static const struct cs_path_rule std_allowed[] = {
  { "${WORKSPACE}", CS_PATH_READ | CS_PATH_WRITE, "fixture.pol:20:5" },
};

const struct cs_profile sbx_fixture_profiles[SBX_FIXTURE_N] = {
  {
      .name = "strict",
      .alias = "READ_ONLY",
      .summary = "Reads the workspace; writes nothing; no network.",
      .origin = "fixture.pol:2:1",
      .shell = CS_SHELL_NONE,
      .allowed_paths = strict_allowed,
      .n_allowed_paths = 2,
      .denied_paths = strict_denied,
      .n_denied_paths = 1,
      .limits = { .max_execution_ms = 30000,
                  .max_memory_bytes = 512ull << 20,
                  .max_cpu_seconds = 30,
                  .max_processes = 32,
                  .max_open_files = 256,
                  .max_file_size = 1000 },
      .approval_ops = CS_APPROVE_SUDO | CS_APPROVE_EXTERNAL_NETWORK,
      .default_tier = "v8",
      .filter = NULL,
      .filter_len = 42,
      .syscall_notes = strict_notes,
      .n_syscall_notes = 2,
      .default_action = "errno(EPERM)",
      .default_ret = 0x00050001u,
      .rets_known = true,
  },
  {
      .name = "standard",
      .alias = "WORKSPACE_WRITE",
      .extends = "strict",
      .summary = "Writes the workspace.",
      .origin = "fixture.pol:18:1",
      .shell = CS_SHELL_SANDBOXED,
      .allow_file_write = true,
      .allowed_paths = std_allowed,
      .n_allowed_paths = 1,
      .limits = { .max_execution_ms = 1500 },
      .default_tier = "batch",
      .approval_ops = CS_APPROVE_EXTERNAL_NETWORK,
      .command_rules = std_rules,
      .n_command_rules = 2,
      .default_action = "kill-process",
      .default_ret = 0x80000000u,
      .rets_known = true,
  },
};
