# cs_emit_promela: the Promela emitter (Spin cross-checks, docs/analysis.md).
add_library(cs_emit_promela STATIC ${CMAKE_CURRENT_LIST_DIR}/emit_promela.c)
target_include_directories(cs_emit_promela PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_emit_promela PUBLIC cs_diag)
