# dsl/pnetc.cmake: the pnetc driver (docs/pnetc.md). Every back end is
# part of every build: nets (cs_pnet, cs_analysis, cs_emit,
# cs_emit_promela), policies (cs_pol) and OCI profiles (cs_bpf); some of
# those targets are defined in directories added after dsl/, which
# target_link_libraries resolves at generation time.
add_executable(pnetc
  ${CMAKE_CURRENT_LIST_DIR}/pnetc.c
  ${CMAKE_CURRENT_LIST_DIR}/pnetc_net.c)
target_compile_definitions(pnetc PRIVATE CS_VERSION="${PROJECT_VERSION}")
target_link_libraries(pnetc PRIVATE cs_pnet cs_analysis cs_emit cs_emit_promela cs_pol cs_bpf
                      cs_diag PkgConfig::JANSSON)
