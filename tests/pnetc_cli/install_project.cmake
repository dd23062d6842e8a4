# install_project.cmake: installs this build into a temporary prefix and
# builds a separate project against it, twice:
#   1. CMake: find_package(CommanderSandbox) + pnetc_add_model + cs_runtime;
#      then edits the model's INCLUDED file and rebuilds: the depfile must
#      make pnetc run again and the new table take effect (Makefiles, and
#      Ninja when installed);
#   2. pkg-config: cflags/libs and the pnetc variable of commander-sandbox.pc.
# Both consumers also link and call libcs_approval (the approval C API).
#   cmake -DBUILD=<build dir> -DSRC=<source root> -DWORK=<scratch dir>
#         -DCC=<compiler> [-DSANITIZE=ON] -P install_project.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_step.cmake)

function(expect_admitted exe n)
  run("run ${exe}" ${exe})
  # approval=ok: the consumer also called the installed libcs_approval.
  if(NOT run_out MATCHES "admitted=${n}\n" OR NOT run_out MATCHES "approval=ok\n")
    message(FATAL_ERROR "FAIL: ${exe} printed '${run_out}', expected admitted=${n}")
  endif()
  message(STATUS "${exe}: ${run_out}")
endfunction()

set(prefix ${WORK}/prefix)
set(proj ${WORK}/consumer)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# The Development component: exactly what building against the project
# needs (the sbx binary and the rest are other components).
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix} --component Development)
foreach(f bin/pnetc include/commander-sandbox/cs_model_table.h include/commander-sandbox/commander.h
         include/commander-sandbox/cs_approval.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "FAIL: ${f} not installed")
  endif()
endforeach()

# The installed policy library: a policy outside any source tree extends
# standard through include <profiles.pol>, and the installed pnetc reads
# the installed copy (its depfile names it), not the source tree's.
foreach(f share/commander-sandbox/pol/profiles.pol share/commander-sandbox/pol/stdlib/syscalls.pol)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "FAIL: ${f} not installed")
  endif()
endforeach()
file(WRITE ${WORK}/agent.pol
     "include <profiles.pol>;\nprofile agent extends standard {\n  summary = \"an agent\";\n}\n")
run("pnetc --check a policy using the installed library" ${prefix}/bin/pnetc --check
    --depfile ${WORK}/agent.d ${WORK}/agent.pol)
file(READ ${WORK}/agent.d agent_deps)
if(NOT agent_deps MATCHES "${prefix}/share/commander-sandbox/pol/profiles.pol")
  message(FATAL_ERROR "FAIL: the installed pnetc did not read the installed library: ${agent_deps}")
endif()

# The consumer's model: a slots place included from another file.
file(COPY ${SRC}/tests/pnetc_cli/consumer/ DESTINATION ${proj})
file(MAKE_DIRECTORY ${proj}/model)
file(WRITE ${proj}/model/slots.pnet
     "net slots;\nplace pending source;\nplace finished sink;\ninclude \"tiers.pnet\";\n"
     "admission admit: pending + slots -> running completion complete;\n"
     "progress complete: running -> finished + slots;\nassert no deadlock;\n")
file(WRITE ${proj}/model/tiers.pnet "place slots capacity 3 initial 3;\nplace running capacity 3;\n")

set(flags)
if(SANITIZE)
  # An instrumented runtime library needs instrumented executables.
  set(flags "-DCMAKE_C_FLAGS=-fsanitize=address,undefined"
            "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined")
endif()
run("configure the consumer" ${CMAKE_COMMAND} -S ${proj} -B ${proj}/build -DCMAKE_C_COMPILER=${CC}
    -DCMAKE_PREFIX_PATH=${prefix} ${flags})
run("build the consumer" ${CMAKE_COMMAND} --build ${proj}/build)
expect_admitted(${proj}/build/consumer 3)

# Only the included file changes: the depfile is what makes this rebuild.
file(WRITE ${proj}/model/tiers.pnet "place slots capacity 2 initial 2;\nplace running capacity 2;\n")
run("rebuild after editing the included file" ${CMAKE_COMMAND} --build ${proj}/build)
if(NOT run_out MATCHES "pnetc: compiling model model/slots.pnet")
  message(FATAL_ERROR "FAIL: editing the included file did not rerun pnetc:\n${run_out}")
endif()
expect_admitted(${proj}/build/consumer 2)
run("null build" ${CMAKE_COMMAND} --build ${proj}/build)
if(run_out MATCHES "pnetc: compiling model")
  message(FATAL_ERROR "FAIL: a build with nothing changed reran pnetc:\n${run_out}")
endif()

# The same with Ninja, which reads depfiles itself: the include edit must
# regenerate, and a build with nothing changed must not rerun pnetc.
find_program(NINJA ninja)
if(NINJA)
  run("configure the consumer (Ninja)" ${CMAKE_COMMAND} -G Ninja -S ${proj} -B ${proj}/build-ninja
      -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${prefix} ${flags})
  run("build the consumer (Ninja)" ${CMAKE_COMMAND} --build ${proj}/build-ninja)
  expect_admitted(${proj}/build-ninja/consumer 2)
  file(WRITE ${proj}/model/tiers.pnet "place slots capacity 3 initial 3;\nplace running capacity 3;\n")
  run("rebuild after editing the included file (Ninja)" ${CMAKE_COMMAND} --build ${proj}/build-ninja)
  expect_admitted(${proj}/build-ninja/consumer 3)
  run("null build (Ninja)" ${CMAKE_COMMAND} --build ${proj}/build-ninja)
  if(NOT run_out MATCHES "no work to do")
    message(FATAL_ERROR "FAIL: a build with nothing changed did work:\n${run_out}")
  endif()
  file(WRITE ${proj}/model/tiers.pnet "place slots capacity 2 initial 2;\nplace running capacity 2;\n")
else()
  message(STATUS "ninja not found: Ninja part skipped")
endif()

find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
  message(STATUS "pkg-config not found: pkg-config part skipped")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} "")
# Our prefix first, then the system's own directories: commander-sandbox.pc
# requires jansson (libcs_approval is static), which comes from the system.
run("pkg-config pc_path" ${PKG_CONFIG} --variable=pc_path pkg-config)
string(STRIP "${run_out}" sys_pc_path)
file(GLOB pcdirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
list(JOIN pcdirs ":" pcdirs)
set(ENV{PKG_CONFIG_LIBDIR} "${pcdirs}:${sys_pc_path}")
run("pkg-config --cflags --libs" ${PKG_CONFIG} --cflags --libs commander-sandbox)
separate_arguments(pc_flags UNIX_COMMAND "${run_out}")
run("pkg-config --variable=pnetc" ${PKG_CONFIG} --variable=pnetc commander-sandbox)
string(STRIP "${run_out}" pc_pnetc)
file(REAL_PATH "${pc_pnetc}" pc_pnetc_real)
file(REAL_PATH "${prefix}/bin/pnetc" installed_pnetc)
if(NOT pc_pnetc_real STREQUAL installed_pnetc)
  message(FATAL_ERROR "FAIL: pkg-config pnetc=${pc_pnetc}, expected ${installed_pnetc}")
endif()
set(pcb ${WORK}/pkgconfig_build)
file(MAKE_DIRECTORY ${pcb})
execute_process(COMMAND ${pc_pnetc} -q -o ${pcb} model/slots.pnet WORKING_DIRECTORY ${proj}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "FAIL: installed pnetc exited ${rc}\n${err}")
endif()
set(san)
if(SANITIZE)
  set(san -fsanitize=address,undefined)
endif()
run("compile with pkg-config flags" ${CC} ${san} -std=c11 -I${pcb} ${proj}/main.c ${pcb}/slots.c
    -o ${pcb}/consumer ${pc_flags})
expect_admitted(${pcb}/consumer 2)
