# cs_confine: runs one command confined by every layer of a security profile
# (namespaces, mount view, Landlock, capabilities, rlimits/cgroup, seccomp).
# API: runtime/sbx_confine.h; docs/confinement.md, docs/threat-model.md.
add_library(cs_confine STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sbx_confine.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_plan.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_plan_git.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_git_config.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_mount.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_memfd.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_landlock.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_privs.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_cgroup.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_kmsg.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_features.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_describe.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_warm.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_serve.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_watch.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_supervise.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_syscall_name.c
  ${CMAKE_CURRENT_BINARY_DIR}/sbx_syscall_names.c)
# The system-call name table, generated from libseccomp's at build time
# (gen/syscall_names.cmake).
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/sbx_syscall_names.c
  COMMAND syscall_names_gen ${CMAKE_CURRENT_BINARY_DIR}/sbx_syscall_names.c
  DEPENDS syscall_names_gen
  COMMENT "syscall_names_gen: x86_64 system-call names from libseccomp"
  VERBATIM)
target_include_directories(cs_confine PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_confine PUBLIC PkgConfig::LIBCAP PkgConfig::SECCOMP)
