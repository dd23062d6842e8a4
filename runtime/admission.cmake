# runtime/admission.cmake: cs_runtime, the admission library (docs/runtime.md).
# Other runtime fragments add their sources with target_sources(cs_runtime ...).
add_library(cs_runtime STATIC
  ${CMAKE_CURRENT_LIST_DIR}/cs_sched.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_shared_sched.c
  ${CMAKE_CURRENT_LIST_DIR}/cs_table_check.c)
target_include_directories(cs_runtime PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(cs_runtime PUBLIC Threads::Threads)
