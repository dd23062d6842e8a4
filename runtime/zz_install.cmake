# runtime/zz_install.cmake: install rules and the packages other builds use
# (docs/building-with-pnetc.md). Named zz_ so it is included after every
# runtime fragment that adds sources to cs_runtime.
#
# Installs: pnetc (dsl/pnetc.cmake), libcs_runtime.a, libcs_approval.a and the public runtime
# headers under include/commander-sandbox/, a pkg-config file
# (commander-sandbox.pc) and a CMake package (CommanderSandboxConfig.cmake,
# its version file, the exported targets and PnetcFunctions.cmake).
#
# The targets are complete only at the end of the configure step (pnetc
# links libraries defined in later directories), so the rules are written
# from a deferred call.
include(CMakePackageConfigHelpers)

function(cs_install_rules)
  # (Deferred calls run in the top-level scope: settings live in here.)
  set(CS_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/commander-sandbox)
  set(CS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/CommanderSandbox)
  # The headers a program using the runtime includes; the others in
  # runtime/ are internal to the library or to sbx.
  set(CS_RUNTIME_PUBLIC_HEADERS commander.h cs_model_table.h cs_profile_table.h cs_approval.h)

  if(NOT TARGET cs_runtime OR NOT TARGET pnetc)
    message(STATUS "install: cs_runtime or pnetc missing; no install rules or packages")
    return()
  endif()
  if(NOT TARGET CommanderSandbox::cs_runtime)
    add_library(CommanderSandbox::cs_runtime ALIAS cs_runtime)
  endif()

  # Source-tree include paths must not leak into the installed package:
  # keep them for the build, point installed users at include/commander-sandbox.
  get_target_property(incs cs_runtime INTERFACE_INCLUDE_DIRECTORIES)
  set(wrapped)
  foreach(dir IN LISTS incs)
    if(dir MATCHES "^\\$<")
      list(APPEND wrapped "${dir}")
    else()
      list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
    endif()
  endforeach()
  list(APPEND wrapped "$<INSTALL_INTERFACE:${CS_INSTALL_INCLUDEDIR}>")
  set_target_properties(cs_runtime PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${wrapped}")

  # The approval library (cs_approval.h, commander.h section 4) is
  # installed too, so embedders can ask a person through the same C API
  # sbx uses: CommanderSandbox::cs_approval, -lcs_approval. It is static,
  # so its own dependencies (jansson, threads) are the consumer's to link.
  set(pc_extra_libs)
  set(installed_libs cs_runtime)
  if(TARGET cs_approval)
    list(APPEND installed_libs cs_approval)
    list(APPEND pc_extra_libs -lcs_approval)
    set_target_properties(cs_approval PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
      "$<BUILD_INTERFACE:${CS_SOURCE_ROOT}/runtime>;$<INSTALL_INTERFACE:${CS_INSTALL_INCLUDEDIR}>")
  endif()

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
  set(pc_libs)
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
    elseif(TARGET ${lib} AND lib MATCHES "^cs_")
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
  list(PREPEND pc_libs ${pc_extra_libs})
  list(JOIN pc_libs " " CS_PC_LIBS)
  set(CS_CONFIG_DEPENDENCIES "${config_deps}")

  # One component, "Development": what building against Commander Sandbox
  # needs (cmake --install <build> --component Development).
  install(TARGETS ${export_targets} EXPORT CommanderSandboxTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT Development
          INCLUDES DESTINATION ${CS_INSTALL_INCLUDEDIR})
  install(TARGETS pnetc EXPORT CommanderSandboxTargets
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT Development)
  set(headers)
  foreach(h IN LISTS CS_RUNTIME_PUBLIC_HEADERS)
    if(EXISTS ${CS_SOURCE_ROOT}/runtime/${h})
      list(APPEND headers ${CS_SOURCE_ROOT}/runtime/${h})
    endif()
  endforeach()
  install(FILES ${headers} DESTINATION ${CS_INSTALL_INCLUDEDIR} COMPONENT Development)
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
    set(CS_PC_TO_PREFIX "${CMAKE_INSTALL_PREFIX}")
    file(RELATIVE_PATH CS_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
  else()
    file(RELATIVE_PATH CS_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  endif()
  configure_file(${CS_SOURCE_ROOT}/cmake/commander-sandbox.pc.in ${gen}/commander-sandbox.pc @ONLY)
  install(FILES ${gen}/commander-sandbox.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT Development)
  install(FILES ${CS_SOURCE_ROOT}/docs/pnetc.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT Development)
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL cs_install_rules)
