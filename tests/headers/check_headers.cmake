# check_headers.cmake: see tests/headers/CMakeLists.txt.
#   cmake -DBUILD=<build dir> -DWORK=<scratch> -DCC=<cc> [-DCXX=<c++>]
#         -DVERSION=<project version> -DDIR=<this directory> [-DSANITIZE=ON]
#         -P check_headers.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_step.cmake)

set(prefix ${WORK}/prefix)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix} --component Development)
set(incdir ${prefix}/include/commander-sandbox)
file(GLOB headers RELATIVE ${incdir} ${incdir}/*.h)
if(NOT headers)
  message(FATAL_ERROR "FAIL: no header installed under ${incdir}")
endif()
foreach(required commander.h cs_approval.h cs_cmdrule.h cs_model_table.h cs_profile_table.h
                 cs_version.h)
  if(NOT required IN_LIST headers)
    message(FATAL_ERROR "FAIL: ${required} not installed (installed: ${headers})")
  endif()
endforeach()

set(cflags -std=c99 -pedantic -Wall -Wextra -Werror)
set(cxxflags -std=c++11 -pedantic -Wall -Wextra -Werror)

# One translation unit per header, that header alone: it must bring
# everything it uses itself.
function(compile_alone lang compiler flags dir header out_rc out_err)
  if(lang STREQUAL "C")
    set(tu ${WORK}/alone_${header}.c)
  else()
    set(tu ${WORK}/alone_${header}.cc)
  endif()
  file(WRITE ${tu} "#include \"${header}\"\n")
  execute_process(COMMAND ${compiler} ${flags} -I${dir} -fsyntax-only ${tu}
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_err} "${err}" PARENT_SCOPE)
endfunction()

# Negative control: the same compilation rejects a header that is not
# self-contained, so a pass below means something.
compile_alone(C ${CC} "${cflags}" ${DIR} control_not_alone.h rc err)
if(rc EQUAL 0)
  message(FATAL_ERROR "FAIL: the control header compiled alone: the check cannot fail")
endif()

set(langs C)
if(CXX)
  list(APPEND langs CXX)
else()
  message(STATUS "no C++ compiler: the headers are checked as C only")
endif()
foreach(lang IN LISTS langs)
  if(lang STREQUAL "C")
    set(compiler ${CC})
    set(flags ${cflags})
  else()
    set(compiler ${CXX})
    set(flags ${cxxflags})
  endif()
  foreach(h IN LISTS headers)
    compile_alone(${lang} ${compiler} "${flags}" ${incdir} ${h} rc err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "FAIL: ${h} alone as ${lang} (${flags}):\n${err}")
    endif()
    message(STATUS "ok   ${h} alone as ${lang}")
  endforeach()
endforeach()

# The version: the macros say what the program was compiled against, the
# query what it runs with; both are the project() version.
string(REPLACE "." ";" parts "${VERSION}")
list(GET parts 0 major)
list(GET parts 1 minor)
list(GET parts 2 patch)
math(EXPR number "${major} * 10000 + ${minor} * 100 + ${patch}")
file(WRITE ${WORK}/version.c "#include <stdio.h>
#include <string.h>
#include \"commander.h\"
int main(void)
{
  if (strcmp(cs_version(), CS_VERSION) != 0 || strcmp(CS_VERSION, \"${VERSION}\") != 0 ||
      cs_version_number() != CS_VERSION_NUMBER || CS_VERSION_NUMBER != ${number}L ||
      CS_VERSION_MAJOR != ${major} || CS_VERSION_MINOR != ${minor} || CS_VERSION_PATCH != ${patch}) {
    printf(\"cs_version() %s %ld, headers %s %ld\\n\", cs_version(), cs_version_number(),
           CS_VERSION, (long)CS_VERSION_NUMBER);
    return 1;
  }
  printf(\"version %s\\n\", cs_version());
  return 0;
}
")
set(san)
if(SANITIZE)
  set(san -fsanitize=address,undefined)
endif()
file(GLOB libdirs ${prefix}/lib*/libcs_runtime.a ${prefix}/lib/*/libcs_runtime.a)
list(GET libdirs 0 lib)
run("compile the version check" ${CC} ${san} ${cflags} -I${incdir} ${WORK}/version.c ${lib} -pthread
    -o ${WORK}/version)
run("run the version check" ${WORK}/version)
message(STATUS "ok   ${run_out}")
