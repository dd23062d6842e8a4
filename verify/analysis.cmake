# cs_analysis: explicit-state analysis of Petri nets (docs/analysis.md).
add_library(cs_analysis STATIC
  ${CMAKE_CURRENT_LIST_DIR}/pn_par.c
  ${CMAKE_CURRENT_LIST_DIR}/pn_reach.c
  ${CMAKE_CURRENT_LIST_DIR}/pn_safe.c
  ${CMAKE_CURRENT_LIST_DIR}/pn_semiflow.c
  ${CMAKE_CURRENT_LIST_DIR}/pn_trace.c)
target_include_directories(cs_analysis PUBLIC ${CMAKE_CURRENT_LIST_DIR})
find_package(Threads REQUIRED)
target_link_libraries(cs_analysis PUBLIC cs_diag Threads::Threads)
