# PnetcFunctions.cmake: compile Commander Sandbox models at build time.
#
# Used by the project's own build (models/models.cmake) and installed with
# the CMake package (find_package(CommanderSandbox)), so in-tree and
# out-of-tree builds compile models exactly the same way.
# Documentation: docs/building-with-pnetc.md.
#
#   pnetc_add_model(<target> <model.pnet|model.pnml> [MAX_STATES <n>]
#                   [WORKING_DIRECTORY <dir>])
#
# Runs `pnetc -q -o <dir> --depfile <dir>/<name>.d <model>` when the model,
# any file it includes, or pnetc itself changes, and adds the generated
# <name>.c / <name>.h (name = the model file name without extension, made a
# C identifier) to <target>. The header declares
#     extern const struct cs_model_table cs_model_<name>;
# and is found through <target>'s include directories (PUBLIC, so targets
# linking <target> see it too). The target is linked with the runtime
# library, whose headers the tables need. A model whose assertions fail
# breaks the build (pnetc exits 1 and writes no table).
# A relative model path is relative to WORKING_DIRECTORY (default: the
# current source directory), where pnetc runs; it is recorded as written in
# the generated files.
include_guard(GLOBAL)

function(pnetc_add_model target model)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "MAX_STATES;WORKING_DIRECTORY" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pnetc_add_model: unexpected arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "pnetc_add_model: '${target}' is not a target")
  endif()

  # Which pnetc and which runtime: this project's own targets when building
  # the project itself, the installed (imported) ones otherwise.
  if(TARGET pnetc)
    set(pnetc_exe $<TARGET_FILE:pnetc>)
    set(pnetc_dep pnetc)
    set(runtime cs_runtime)
  elseif(TARGET CommanderSandbox::pnetc)
    set(pnetc_exe $<TARGET_FILE:CommanderSandbox::pnetc>)
    set(pnetc_dep CommanderSandbox::pnetc)
    set(runtime CommanderSandbox::cs_runtime)
  else()
    message(FATAL_ERROR "pnetc_add_model: no pnetc (neither the pnetc target nor "
                        "CommanderSandbox::pnetc from find_package(CommanderSandbox))")
  endif()

  set(workdir "${CMAKE_CURRENT_SOURCE_DIR}")
  if(arg_WORKING_DIRECTORY)
    get_filename_component(workdir "${arg_WORKING_DIRECTORY}" ABSOLUTE)
  endif()
  get_filename_component(model_abs "${model}" ABSOLUTE BASE_DIR "${workdir}")
  get_filename_component(stem "${model}" NAME_WLE)
  # Same rule as pnetc's emit_model_ident(), so the outputs are known here.
  string(MAKE_C_IDENTIFIER "${stem}" name)
  set(outdir "${CMAKE_CURRENT_BINARY_DIR}/pnetc_${target}")
  set(out_c "${outdir}/${name}.c")
  set(out_h "${outdir}/${name}.h")
  set(depfile "${outdir}/${name}.d")
  file(MAKE_DIRECTORY "${outdir}")

  set(limit)
  if(arg_MAX_STATES)
    set(limit --max-states ${arg_MAX_STATES})
  endif()
  # The model path is given as written (relative to this source directory):
  # it is recorded in the generated banner and table, which must not depend
  # on where the source tree happens to be checked out.
  add_custom_command(
    OUTPUT "${out_c}" "${out_h}"
    COMMAND ${pnetc_exe} -q ${limit} -o "${outdir}" --depfile "${depfile}" "${model}"
    DEPENDS "${model_abs}" ${pnetc_dep}
    DEPFILE "${depfile}"
    WORKING_DIRECTORY "${workdir}"
    COMMENT "pnetc: compiling model ${model}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out_c}" "${out_h}")
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${outdir}>")
  target_link_libraries(${target} PUBLIC ${runtime})
endfunction()
