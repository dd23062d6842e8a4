# gen/emit.cmake: the net emitters (C tables, JSON report, DOT) and the
# all-or-nothing output file helper shared by every pnetc back end.
add_library(cs_emit STATIC
  ${CMAKE_CURRENT_LIST_DIR}/emit_c_net.c
  ${CMAKE_CURRENT_LIST_DIR}/emit_json.c
  ${CMAKE_CURRENT_LIST_DIR}/emit_dot.c
  ${CMAKE_CURRENT_LIST_DIR}/emit_util.c
  ${CMAKE_CURRENT_LIST_DIR}/out_file.c)
target_include_directories(cs_emit PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# cs_analysis only for its header here (the emitters read a finished
# analysis); the driver links the library itself.
target_include_directories(cs_emit PRIVATE ${CS_SOURCE_ROOT}/verify)
target_link_libraries(cs_emit PRIVATE cs_public_headers)
target_link_libraries(cs_emit PUBLIC cs_diag PkgConfig::JANSSON)
