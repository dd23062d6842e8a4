# Naming the refusals of a run: Landlock's audit records mapped to the
# profile's rules (runtime/sbx_denial.h, docs/confinement.md "Naming
# refusals"). Part of cs_confine, defined in confine.cmake.
target_sources(cs_confine PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sbx_denial.c)
