# dsl/pol.cmake: the .pol security-policy front end and its C back end
# (docs/pol-language.md). Library cs_pol: lexer + parser, resolution,
# lowering to gen/sc_rules.h rule sets, the profiles.c/.h emitter
# (gen/emit_c_pol.c) and pnetc_run_policy (dsl/pnetc_pol.c).
set(pol_gen ${CMAKE_CURRENT_BINARY_DIR}/pol)
file(MAKE_DIRECTORY ${pol_gen})

FLEX_TARGET(pol_lexer ${CMAKE_CURRENT_LIST_DIR}/pol_lex.l ${pol_gen}/pol_lex.c
            DEFINES_FILE ${pol_gen}/pol_lex.h)
BISON_TARGET(pol_parser ${CMAKE_CURRENT_LIST_DIR}/pol_parse.y ${pol_gen}/pol_parse.c
             DEFINES_FILE ${pol_gen}/pol_parse.h
             COMPILE_FLAGS "-Wall -Werror=conflicts-sr -Werror=conflicts-rr")
ADD_FLEX_BISON_DEPENDENCY(pol_lexer pol_parser)

# Named constants: the macro names come from the headers through the C
# preprocessor at build time, their values through the compiler
# (dsl/pol_consts_gen.sh, dsl/pol_consts.c).
add_custom_command(
  OUTPUT ${pol_gen}/pol_consts.inc
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/pol_consts_gen.sh ${CMAKE_C_COMPILER}
          ${CMAKE_CURRENT_LIST_DIR}/pol_consts_headers.h ${pol_gen}/pol_consts.inc
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/pol_consts_gen.sh ${CMAKE_CURRENT_LIST_DIR}/pol_consts_headers.h
  COMMENT "Generating the .pol constant table from the kernel headers"
  VERBATIM)

set(cs_pol_sources
  ${CMAKE_CURRENT_LIST_DIR}/pol_ast.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_load.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_resolve.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_settings.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_stmt.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_inherit.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_cond.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_lower.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_consts.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_sysargs.c
  ${CMAKE_CURRENT_LIST_DIR}/pol_cmdrule.c
  ${pol_gen}/pol_consts.inc
  ${FLEX_pol_lexer_OUTPUTS}
  ${BISON_pol_parser_OUTPUTS})
foreach(optional ${CS_SOURCE_ROOT}/gen/emit_c_pol.c ${CMAKE_CURRENT_LIST_DIR}/pnetc_pol.c)
  if(EXISTS ${optional})
    list(APPEND cs_pol_sources ${optional})
  endif()
endforeach()
add_library(cs_pol STATIC ${cs_pol_sources})
target_include_directories(cs_pol PUBLIC ${CMAKE_CURRENT_LIST_DIR} ${pol_gen} ${CS_SOURCE_ROOT}/gen)
# The table layouts (runtime/include).
target_link_libraries(cs_pol PUBLIC cs_public_headers)
# Generated scanner code is not ours to restyle; keep its warnings quiet.
set_source_files_properties(${FLEX_pol_lexer_OUTPUTS} PROPERTIES COMPILE_OPTIONS
                            "-Wno-unused-function;-Wno-missing-prototypes;-Wno-sign-compare")
# cs_bpf: bpf_compile and the OCI exporter; cs_emit: gen/out_file.c (all or
# nothing output files). Both are defined in gen/, after this directory.
target_link_libraries(cs_pol PUBLIC cs_diag cs_bpf cs_emit PkgConfig::SECCOMP)
# cs_cmdrule (runtime/cmdrule): the command-rule matcher, so pnetc checks a
# rule's examples with the very code sbx matches commands with (libc only:
# not the approval workflow's approvers, store, jansson or threads).
target_link_libraries(cs_pol PUBLIC cs_cmdrule)
target_compile_definitions(cs_pol PRIVATE CS_VERSION="${PROJECT_VERSION}")
