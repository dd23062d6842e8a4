# runtime/install.cmake: install rules and the packages other builds use
# (docs/building-with-pnetc.md). Included by runtime/CMakeLists.txt after
# its folders, so every installed library is complete; pnetc (dsl/) is
# defined before runtime/.
#
# Installs: pnetc, the policy library (share/commander-sandbox/pol), libcs_runtime.a, libcs_approval.a, libcs_cmdrule.a, libcs_tee.a and
# the public runtime headers (runtime/include) under
# include/commander-sandbox/, a pkg-config file (commander-sandbox.pc) and
# a CMake package (CommanderSandboxConfig.cmake, its version file, the
# exported targets and PnetcFunctions.cmake).
include(CMakePackageConfigHelpers)

set(CS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/CommanderSandbox)
add_library(CommanderSandbox::cs_runtime ALIAS cs_runtime)

# The approval library (cs_approval.h, commander.h section 4) is installed
# too, so embedders can ask a person through the same C API sbx uses:
# CommanderSandbox::cs_approval, -lcs_approval; with it the command-rule
# matcher it uses (-lcs_cmdrule). They are static, so their own
# dependencies (jansson, threads) are the consumer's to link. Order
# matters for the pkg-config link line: a library before the ones it uses.
# The isolated worker's pool (cs_tee.h, docs/tiers.md) likewise: -lcs_tee,
# with the worker itself under libexec/commander-sandbox/sbx-tee-worker.
set(installed_libs cs_runtime cs_approval cs_cmdrule cs_tee)
set(pc_libs -lcs_runtime -lcs_approval -lcs_cmdrule -lcs_tee)

# What the installed libraries link decides both packages' dependencies.
set(links)
foreach(t IN LISTS installed_libs)
  get_target_property(tl ${t} INTERFACE_LINK_LIBRARIES)
  if(tl)
    list(APPEND links ${tl})
  endif()
endforeach()
list(REMOVE_DUPLICATES links)
set(pc_requires)
set(config_deps)
set(export_targets ${installed_libs})
foreach(lib IN LISTS links)
  if(lib STREQUAL "Threads::Threads")
    list(APPEND pc_libs -pthread)
    string(APPEND config_deps "find_dependency(Threads)\n")
  elseif(lib MATCHES "^PkgConfig::(.+)$")
    set(var ${CMAKE_MATCH_1})
    # The pkg-config module name was recorded when it was found.
    set(module ${${var}_MODULE_NAME})
    if(NOT module)
      string(TOLOWER ${var} module)
    endif()
    list(APPEND pc_requires ${module})
    string(APPEND config_deps
           "find_dependency(PkgConfig)\npkg_check_modules(${var} REQUIRED IMPORTED_TARGET ${module})\n")
  elseif(lib MATCHES "^cs_")
    # A project library: exported with the others (the public headers'
    # interface target among them).
    if(NOT lib IN_LIST export_targets)
      list(APPEND export_targets ${lib})
    endif()
  elseif(lib MATCHES "^\\$<LINK_ONLY:")
    # Private static dependencies CMake records for linking only.
  else()
    list(APPEND pc_libs ${lib})
  endif()
endforeach()
list(JOIN pc_requires ", " CS_PC_REQUIRES)
list(JOIN pc_libs " " CS_PC_LIBS)
set(CS_CONFIG_DEPENDENCIES "${config_deps}")

# One component, "Development": what building against Commander Sandbox
# needs (cmake --install <build> --component Development).
install(TARGETS ${export_targets} EXPORT CommanderSandboxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
        INCLUDES DESTINATION ${CS_INSTALL_INCLUDEDIR})
install(TARGETS pnetc EXPORT CommanderSandboxTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Development)
install(FILES ${CS_PUBLIC_HEADERS} DESTINATION ${CS_INSTALL_INCLUDEDIR} COMPONENT Development)
# The policy library `include <NAME>;` reaches (dsl/pol/pol_library.c): the
# seed profiles and the syscall library, so a user's policy can extend
# standard without the source tree; pnetc and sbx find it from their own
# directory under any prefix.
install(FILES ${CS_SOURCE_ROOT}/models/profiles.pol
        DESTINATION ${CMAKE_INSTALL_DATADIR}/commander-sandbox/pol COMPONENT Development)
install(DIRECTORY ${CS_SOURCE_ROOT}/models/stdlib
        DESTINATION ${CMAKE_INSTALL_DATADIR}/commander-sandbox/pol COMPONENT Development
        FILES_MATCHING PATTERN "*.pol")
install(EXPORT CommanderSandboxTargets NAMESPACE CommanderSandbox::
        DESTINATION ${CS_INSTALL_CMAKEDIR} COMPONENT Development)

set(gen ${CMAKE_BINARY_DIR}/cs_package)
configure_package_config_file(${CS_SOURCE_ROOT}/cmake/CommanderSandboxConfig.cmake.in
  ${gen}/CommanderSandboxConfig.cmake
  INSTALL_DESTINATION ${CS_INSTALL_CMAKEDIR}
  PATH_VARS CS_INSTALL_INCLUDEDIR)
# 0.x: a minor release may change the table layout (CS_MODEL_TABLE_VERSION).
write_basic_package_version_file(${gen}/CommanderSandboxConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${gen}/CommanderSandboxConfig.cmake ${gen}/CommanderSandboxConfigVersion.cmake
              ${CS_SOURCE_ROOT}/cmake/PnetcFunctions.cmake
        DESTINATION ${CS_INSTALL_CMAKEDIR} COMPONENT Development)

# ${pcfiledir}-relative prefix: the .pc stays right if the tree is moved
# or installed with `cmake --install --prefix`.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH CS_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH CS_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
endif()
configure_file(${CS_SOURCE_ROOT}/cmake/commander-sandbox.pc.in ${gen}/commander-sandbox.pc @ONLY)
install(FILES ${gen}/commander-sandbox.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT Development)
install(FILES ${CS_SOURCE_ROOT}/docs/pnetc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        COMPONENT Development)
