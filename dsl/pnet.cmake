# cs_pnet: the .pnet language front end (docs/pnet-language.md). The PNML
# reader adds its sources to the same target from pnml.cmake.
set(CS_PNET_GEN ${CMAKE_CURRENT_BINARY_DIR}/pnet_gen)
file(MAKE_DIRECTORY ${CS_PNET_GEN})
BISON_TARGET(pnet_parser ${CMAKE_CURRENT_SOURCE_DIR}/pnet_parser.y ${CS_PNET_GEN}/pnet_parser.c
             DEFINES_FILE ${CS_PNET_GEN}/pnet_parser.h
             COMPILE_FLAGS "-Wall -Wno-yacc -Werror")
FLEX_TARGET(pnet_lexer ${CMAKE_CURRENT_SOURCE_DIR}/pnet_lexer.l ${CS_PNET_GEN}/pnet_lexer.c
            COMPILE_FLAGS "--warn")
ADD_FLEX_BISON_DEPENDENCY(pnet_lexer pnet_parser)

add_library(cs_pnet STATIC
  pnet.c
  pnet_ast.c
  pnet_lower.c
  pnet_parse.c
  pnet_sym.c
  pn_net.c
  ${BISON_pnet_parser_OUTPUTS}
  ${FLEX_pnet_lexer_OUTPUTS})
target_include_directories(cs_pnet PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} PRIVATE ${CS_PNET_GEN})
target_link_libraries(cs_pnet PUBLIC cs_diag)
# flex's skeleton compares signed and unsigned sizes and defines helpers
# without prototypes; those warnings are about generated code we do not edit.
set_source_files_properties(${FLEX_pnet_lexer_OUTPUTS} PROPERTIES
  COMPILE_OPTIONS "-Wno-sign-compare;-Wno-unused-function;-Wno-missing-prototypes;-Wno-unused-parameter")

if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/pnml.cmake)
  include(${CMAKE_CURRENT_SOURCE_DIR}/pnml.cmake)
endif()
