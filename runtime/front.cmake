# runtime/front.cmake: sbx's static front end (docs/sbx.md, "Front end").
#
# runtime/sbx_front.c and the steps of a warm run it shares with the full
# sbx, compiled with musl-gcc (Debian's musl-tools; docs/dependencies.md)
# and linked statically, into <build>/runtime/sbx, installed as `sbx`. The
# full executable (target sbx) is then named sbx-core and installed under
# libexec/commander-sandbox/; the front end execs it for everything it
# does not do itself. Why: a glibc process spends ~0.45 ms of its start
# probing the CPU under a hypervisor (docs/performance.md); musl asks
# nothing. Without musl-gcc, under the sanitizers (musl has no ASan
# runtime), or with -DCS_SBX_FRONT=OFF there is no front end: the full
# executable is `sbx`, as before, and behaves the same, only slower to
# start.
#
# Every test that runs `sbx` uses the global property CS_SBX_CLI: the
# front end when it is built, else the full sbx.
option(CS_SBX_FRONT "Build sbx's static front end with musl-gcc" ON)
find_program(CS_MUSL_GCC musl-gcc)

# Called at the end of cs_sbx_define (runtime/sbx.cmake), in the top
# directory's scope, once the sbx target and the generated tables exist.
function(cs_front_define)
  set_property(GLOBAL PROPERTY CS_SBX_CLI $<TARGET_FILE:sbx>)
  if(NOT CS_SBX_FRONT OR CS_SANITIZE OR NOT CS_MUSL_GCC)
    message(STATUS "sbx: no static front end (CS_SBX_FRONT=${CS_SBX_FRONT}, "
                   "CS_SANITIZE=${CS_SANITIZE}, musl-gcc: ${CS_MUSL_GCC})")
    install(TARGETS sbx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    return()
  endif()
  set(rt ${CS_SOURCE_ROOT}/runtime)
  set(out ${CMAKE_BINARY_DIR}/runtime)
  set(obj ${CMAKE_BINARY_DIR}/runtime/front)
  set(core ${CMAKE_INSTALL_FULL_LIBEXECDIR}/commander-sandbox/sbx-core)
  # The same from the installed front end's own directory, so that an
  # install under another prefix (cmake --install --prefix, DESTDIR, a
  # moved tree) still finds its sbx-core.
  file(RELATIVE_PATH core_rel ${CMAKE_INSTALL_FULL_BINDIR} ${core})
  set_target_properties(sbx PROPERTIES OUTPUT_NAME sbx-core)
  install(TARGETS sbx RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/commander-sandbox)

  # musl-gcc sees only musl's headers: the kernel's (linux/, asm/,
  # asm-generic/, from linux-libc-dev) are added as links in one directory.
  file(MAKE_DIRECTORY ${obj}/include)
  foreach(pair "linux=/usr/include/linux" "asm-generic=/usr/include/asm-generic"
               "asm=/usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/asm")
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 name)
    list(GET pair 1 target)
    if(NOT EXISTS ${target})
      message(FATAL_ERROR "sbx front end: ${target} missing (install linux-libc-dev), "
                          "or configure with -DCS_SBX_FRONT=OFF")
    endif()
    file(CREATE_LINK ${target} ${obj}/include/${name} SYMBOLIC)
  endforeach()

  get_target_property(profiles_src cs_profiles SOURCES)
  get_target_property(model_src cs_model_default SOURCES)
  list(FILTER profiles_src INCLUDE REGEX "\\.c$")
  list(FILTER model_src INCLUDE REGEX "\\.c$")
  get_filename_component(profiles_dir "${profiles_src}" DIRECTORY)
  get_filename_component(model_dir "${model_src}" DIRECTORY)
  set(sources
    ${rt}/sbx_front.c ${rt}/sbx_run_common.c ${rt}/sbx_cli.c ${rt}/sbx_profile.c
    ${rt}/sbx_admit.c ${rt}/sbx_signal.c ${rt}/sbx_warm.c ${rt}/sbx_supervise.c
    ${rt}/sbx_kmsg.c ${rt}/sbx_denial.c ${rt}/sbx_cgroup.c ${rt}/sbx_plan.c ${rt}/sbx_plan_git.c
    ${rt}/sbx_git_config.c
    ${rt}/cs_shared_sched.c ${rt}/cs_sched.c ${rt}/cs_table_check.c
    ${rt}/cs_approval_rules.c ${rt}/sbx_syscall_name.c ${out}/sbx_syscall_names.c
    ${profiles_src} ${model_src})
  set(flags -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes
            -Wmissing-prototypes -Wformat=2 -Wvla -fno-common)
  if(CS_WERROR)
    list(APPEND flags -Werror)
  endif()
  list(APPEND flags -isystem ${obj}/include -I${rt} -I${CS_SOURCE_ROOT}/gen -I${profiles_dir}
                    -I${model_dir} "-DSBX_VERSION=\"${PROJECT_VERSION}\""
                    "-DSBX_CORE_INSTALLED=\"${core}\"" "-DSBX_CORE_RELATIVE=\"${core_rel}\"")
  set(objects "")
  foreach(src IN LISTS sources)
    get_filename_component(name ${src} NAME_WE)
    set(o ${obj}/${name}.o)
    add_custom_command(
      OUTPUT ${o}
      COMMAND ${CS_MUSL_GCC} ${flags} -MD -MF ${o}.d -c ${src} -o ${o}
      DEPENDS ${src}
      DEPFILE ${o}.d
      COMMENT "musl-gcc: ${name}.c (sbx front end)"
      VERBATIM)
    list(APPEND objects ${o})
  endforeach()
  # Linked to a temporary name and renamed: never a half-written sbx.
  # (The file rule is on runtime/front/sbx; a DEPENDS naming the path
  # runtime/sbx would be taken for the sbx target, which CMake resolves.)
  add_custom_command(
    OUTPUT ${obj}/sbx
    COMMAND ${CS_MUSL_GCC} -static -o ${obj}/sbx.tmp ${objects}
    COMMAND ${CMAKE_COMMAND} -E rename ${obj}/sbx.tmp ${obj}/sbx
    COMMAND ${CMAKE_COMMAND} -E copy ${obj}/sbx ${out}/sbx.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${out}/sbx.tmp ${out}/sbx
    DEPENDS ${objects}
    COMMENT "musl-gcc: linking the static sbx front end"
    VERBATIM)
  # Built with sbx-core: the front end execs it.
  add_custom_target(sbx_front ALL DEPENDS ${obj}/sbx)
  add_dependencies(sbx_front sbx)
  # The generated tables come from other directories' custom commands:
  # their targets first.
  add_dependencies(sbx_front cs_profiles cs_model_default cs_confine)
  install(PROGRAMS ${out}/sbx DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL PROPERTY CS_SBX_CLI ${out}/sbx)
endfunction()
