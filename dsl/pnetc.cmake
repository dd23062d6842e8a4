# dsl/pnetc.cmake: the pnetc driver (docs/pnetc.md).
#
# The net back end needs the front ends (cs_pnet), the analysis
# (cs_analysis) and the emitters (cs_emit); policies need cs_pol and OCI
# profiles cs_bpf. Some of those targets are defined in directories added
# after dsl/, so the optional parts are decided at the end of the top-level
# configure step (cmake_language(DEFER)), when every target is known. A
# back end that is not part of the build is replaced by one that fails with
# "not built" (exit 2): never by one that pretends.
add_executable(pnetc
  ${CMAKE_CURRENT_LIST_DIR}/pnetc.c
  ${CMAKE_CURRENT_LIST_DIR}/pnetc_net.c)
target_compile_definitions(pnetc PRIVATE CS_VERSION="${PROJECT_VERSION}")
target_link_libraries(pnetc PRIVATE cs_pnet cs_analysis cs_emit cs_diag PkgConfig::JANSSON)

# True when target defines the function: a library may exist before the
# back end that belongs in it was written; linking it then would break the
# whole build instead of reporting "not built".
function(cs_pnetc_target_defines target function out)
  set(found FALSE)
  if(TARGET ${target})
    get_target_property(srcs ${target} SOURCES)
    get_target_property(dir ${target} SOURCE_DIR)
    foreach(src IN LISTS srcs)
      if(NOT IS_ABSOLUTE "${src}")
        set(src "${dir}/${src}")
      endif()
      if(src MATCHES "\\.c$" AND EXISTS "${src}")
        file(STRINGS "${src}" hits REGEX "^int ${function}\\(")
        if(hits)
          set(found TRUE)
          break()
        endif()
      endif()
    endforeach()
  endif()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(cs_pnetc_link_optional)
  set(dsl ${CS_SOURCE_ROOT}/dsl)
  cs_pnetc_target_defines(cs_pol pnetc_run_policy have_pol)
  if(have_pol)
    target_link_libraries(pnetc PRIVATE cs_pol)
  else()
    message(STATUS "pnetc: policy compiler (cs_pol) not in this build: .pol input will fail")
    target_sources(pnetc PRIVATE ${dsl}/pnetc_unbuilt_policy.c)
  endif()
  cs_pnetc_target_defines(cs_bpf pnetc_run_oci have_oci)
  if(have_oci)
    target_link_libraries(pnetc PRIVATE cs_bpf)
  else()
    message(STATUS "pnetc: seccomp generator (cs_bpf) not in this build: OCI input will fail")
    target_sources(pnetc PRIVATE ${dsl}/pnetc_unbuilt_oci.c)
  endif()
  if(TARGET cs_emit_promela)
    target_link_libraries(pnetc PRIVATE cs_emit_promela)
    target_compile_definitions(pnetc PRIVATE CS_HAVE_EMIT_PROMELA=1)
  else()
    message(STATUS "pnetc: Promela emitter (cs_emit_promela) not in this build: --emit promela will fail")
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL cs_pnetc_link_optional)
