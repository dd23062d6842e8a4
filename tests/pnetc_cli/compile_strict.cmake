# compile_strict.cmake: the generated tables must compile with exactly
#   -std=c11 -Wall -Wextra -Werror -pedantic
# (the contract of docs/table-format.md), header and source both, and the
# header alone must be self-contained.
#   cmake -DPNETC=<exe> -DCC=<compiler> -DSRC=<source root> -DOUTDIR=<dir>
#         -DMODELS=<m1@@m2> -P compile_strict.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "@@" ";" MODELS "${MODELS}")
set(flags -std=c11 -Wall -Wextra -Werror -pedantic)
file(REMOVE_RECURSE "${OUTDIR}")
file(MAKE_DIRECTORY "${OUTDIR}")
foreach(model IN LISTS MODELS)
  get_filename_component(stem "${model}" NAME_WE)
  execute_process(COMMAND ${PNETC} -q -o "${OUTDIR}" "${model}" WORKING_DIRECTORY "${SRC}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: pnetc ${model} exited ${rc}\n${err}")
  endif()
  execute_process(COMMAND ${CC} ${flags} -I "${SRC}/runtime/include" -I "${OUTDIR}" -c "${OUTDIR}/${stem}.c"
                          -o "${OUTDIR}/${stem}.o"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${stem}.c does not compile with ${flags}\n${out}${err}")
  endif()
  file(WRITE "${OUTDIR}/use_${stem}.c"
       "#include \"${stem}.h\"\nconst struct cs_model_table *use_${stem}(void);\n"
       "const struct cs_model_table *use_${stem}(void) { return &cs_model_${stem}; }\n")
  execute_process(COMMAND ${CC} ${flags} -I "${SRC}/runtime/include" -I "${OUTDIR}" -c "${OUTDIR}/use_${stem}.c"
                          -o "${OUTDIR}/use_${stem}.o"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${stem}.h is not self-contained under ${flags}\n${out}${err}")
  endif()
  message(STATUS "${model}: compiles with ${flags}")
endforeach()
