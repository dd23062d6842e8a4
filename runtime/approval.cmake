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
add_library(cs_approval_unotify STATIC ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify.c
            ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify_op.c ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify_open.c
            ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify_msg.c
            ${CMAKE_CURRENT_LIST_DIR}/sbx_unotify_carry.c)
target_include_directories(cs_approval_unotify PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_approval_unotify PUBLIC cs_approval PkgConfig::SECCOMP)

# The hooks confinement and the CLI call (sbx_unotify_sbx.c into cs_confine,
# sbx_approve.c into sbx). Those targets are defined by fragments included
# after this one (confine.cmake) and by a call deferred to the end of the
# top directory (sbx.cmake), so the sources are added from deferred calls
# registered after theirs.
function(cs_approval_attach_sbx)
  if(TARGET sbx)
    target_sources(sbx PRIVATE ${CS_SOURCE_ROOT}/runtime/sbx_approve.c)
    target_link_libraries(sbx PRIVATE cs_approval_unotify)
  endif()
endfunction()
function(cs_approval_attach)
  if(TARGET cs_confine)
    target_sources(cs_confine PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/sbx_unotify_sbx.c)
    target_link_libraries(cs_confine PUBLIC cs_approval_unotify)
  endif()
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL cs_approval_attach_sbx)
endfunction()
cmake_language(DEFER CALL cs_approval_attach)
