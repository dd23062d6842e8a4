# sbx: the command-line front of the runtime (docs/sbx.md, docs/sbx.1).
#
# cs_sbxcli holds the parts that need nothing but the table layouts
# (command line, profile selection, explain, audit log) so they are unit
# tested on their own. The sbx executable adds confinement (cs_confine),
# the generated profiles (cs_profiles), the admission runtime (cs_runtime)
# and the compiled default model (cs_model_default). Some of those are
# defined in directories configured after this one (models/), so the
# executable is linked in a call deferred to the end of the top directory.
add_library(cs_sbxcli STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sbx_cli.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_profile.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_explain.c
  ${CMAKE_CURRENT_LIST_DIR}/sbx_audit.c)
target_include_directories(cs_sbxcli PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_sbxcli PUBLIC PkgConfig::JANSSON)

function(cs_sbx_define)
  # Runs in the top directory's scope: nothing set in runtime/ is visible.
  # cs_bpf: explain --bpf prints the filter with the generator's disassembler.
  set(CS_SBX_DEPS cs_confine cs_profiles cs_runtime cs_model_default cs_bpf)
  set(missing "")
  foreach(dep IN LISTS CS_SBX_DEPS)
    if(NOT TARGET ${dep})
      list(APPEND missing ${dep})
    endif()
  endforeach()
  # No stand-ins: without the real confinement, profiles and scheduler
  # there is no sbx at all, rather than one that enforces less than it says.
  if(missing)
    message(WARNING "sbx: not built: missing library target(s) ${missing}")
    return()
  endif()
  set(dir ${CS_SOURCE_ROOT}/runtime)
  add_executable(sbx
    ${dir}/sbx_main.c
    ${dir}/sbx_run.c
    ${dir}/sbx_check.c
    ${dir}/sbx_admit.c
    ${dir}/sbx_signal.c)
  set_target_properties(sbx PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/runtime)
  target_include_directories(sbx PRIVATE ${dir})
  target_compile_definitions(sbx PRIVATE SBX_VERSION="${PROJECT_VERSION}")
  target_link_libraries(sbx PRIVATE cs_sbxcli ${CS_SBX_DEPS} PkgConfig::JANSSON Threads::Threads)
  install(TARGETS sbx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL cs_sbx_define)

install(FILES ${CS_SOURCE_ROOT}/docs/sbx.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
