# runtime/approval.cmake: cs_approval, the approval workflow (docs/approvals.md).
# The manager, the built-in approvers (tty, exec:, socket:), the store of
# standing grants and the command-rule engine; no dependency on sbx, so
# embedders link it alone. The system-call layer (sbx_unotify*.c) needs
# libseccomp and the confinement plan and lives in cs_approval_unotify.
add_library(cs_approval STATIC
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_json.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_exec.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_socket.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_tty.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_store.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_approval_rules.c)
target_include_directories(cs_approval PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_approval PUBLIC PkgConfig::JANSSON Threads::Threads)

# The system-call layer: the notify filter and the supervisor's handler
# (runtime/sbx_unotify.h). Linked by sbx and by the approval tests.
add_library(cs_approval_unotify STATIC ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify.c)
target_include_directories(cs_approval_unotify PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_approval_unotify PUBLIC cs_approval PkgConfig::SECCOMP)
