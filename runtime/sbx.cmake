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
  # cs_bpfview: explain --bpf prints the filter with the disassembler (not the generator).
  set(CS_SBX_DEPS cs_confine cs_profiles cs_runtime cs_model_default cs_bpfview)
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
    ${dir}/sbx_admit_json.c
    ${dir}/sbx_run_common.c
    ${dir}/sbx_signal.c)
  set_target_properties(sbx PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/runtime)
  target_include_directories(sbx PRIVATE ${dir})
  target_compile_definitions(sbx PRIVATE SBX_VERSION="${PROJECT_VERSION}")
  target_link_libraries(sbx PRIVATE cs_sbxcli ${CS_SBX_DEPS} PkgConfig::JANSSON Threads::Threads)
  # Start-up (issue #4): every `sbx run` pays the dynamic loader for each
  # shared library (mapping, relocations, symbol look-ups). The static
  # archives of libseccomp, libcap and jansson (shipped by the same -dev
  # packages) come after every archive that uses them on the link line,
  # so they resolve all of it, and --as-needed then drops the shared
  # ones: 0.12-0.19 ms less per start here (docs/performance.md). Only the
  # sbx executable; the installed libraries and their CMake/pkg-config
  # packages are unchanged. Off under the sanitizers, or when an archive
  # is missing (then the shared libraries, as before).
  option(CS_SBX_STATIC_DEPS "Link sbx with the static libseccomp, libcap and jansson" ON)
  if(CS_SBX_STATIC_DEPS AND NOT CS_SANITIZE)
    find_library(CS_SECCOMP_STATIC NAMES libseccomp.a)
    find_library(CS_CAP_STATIC NAMES libcap.a)
    find_library(CS_JANSSON_STATIC NAMES libjansson.a)
    if(CS_SECCOMP_STATIC AND CS_CAP_STATIC AND CS_JANSSON_STATIC)
      # The libraries that are otherwise only linked indirectly, named
      # first, so that none of their members is pulled in after the
      # archives (that would leave the shared library needed, and two
      # copies of one library, with separate globals, in the process).
      foreach(dep cs_approval_unotify cs_approval cs_runtime cs_ir)
        if(TARGET ${dep})
          target_link_libraries(sbx PRIVATE ${dep})
        endif()
      endforeach()
      target_link_libraries(sbx PRIVATE ${CS_SECCOMP_STATIC} ${CS_CAP_STATIC} ${CS_JANSSON_STATIC})
      target_link_options(sbx PRIVATE LINKER:--as-needed)
    endif()
  endif()
  # The static front end, which also decides where sbx is installed
  # (runtime/front.cmake).
  cs_front_define()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL cs_sbx_define)

install(FILES ${CS_SOURCE_ROOT}/docs/sbx.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
