# cmake/MuslTwin.cmake: musl-gcc copies ("twins") of C library targets, for
# sbx's static front end (runtime/front/CMakeLists.txt, docs/sbx.md "Front
# end"). Not installed.
#
# CMake runs one C compiler per build tree, so the front end's objects
# cannot be ordinary targets. Instead each library the front end needs is
# defined once, as a normal target in its own folder, and that folder calls
# cs_musl_twin(<target>) right after: custom commands, in the same folder,
# compile the target's own C sources with musl-gcc, with the target's own
# include directories and compile definitions (read through generator
# expressions, so nothing is copied by hand) and the project's one warning
# list (CS_WARNING_FLAGS, top-level CMakeLists.txt), into an archive
# <binary dir>/musl/lib<target>.a. A custom target <target>_musl builds it
# and carries its path in the property CS_MUSL_ARCHIVE for the front end's
# link step. So no target compiles another folder's sources, and a source
# added to a library is in its twin too.
#
# CS_MUSL_ENABLED: whether there is a front end at all. Not with
# -DCS_SBX_FRONT=OFF, not under the sanitizers (musl has no ASan runtime),
# not without musl-gcc (Debian's musl-tools; docs/dependencies.md): then
# cs_musl_twin() does nothing and the full executable is `sbx`.
include_guard(GLOBAL)

option(CS_SBX_FRONT "Build sbx's static front end with musl-gcc" ON)
find_program(CS_MUSL_GCC musl-gcc)
if(CS_SBX_FRONT AND NOT CS_SANITIZE AND CS_MUSL_GCC)
  set(CS_MUSL_ENABLED ON)
else()
  set(CS_MUSL_ENABLED OFF)
endif()

if(CS_MUSL_ENABLED)
  # musl-gcc sees only musl's headers: the kernel's (linux/, asm/,
  # asm-generic/, from linux-libc-dev) are added as links in one directory.
  set(CS_MUSL_KERNEL_HEADERS ${CMAKE_BINARY_DIR}/musl-include)
  file(MAKE_DIRECTORY ${CS_MUSL_KERNEL_HEADERS})
  foreach(pair "linux=/usr/include/linux" "asm-generic=/usr/include/asm-generic"
               "asm=/usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/asm")
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 name)
    list(GET pair 1 target)
    if(NOT IS_DIRECTORY ${target})
      message(FATAL_ERROR "sbx front end: ${target} missing (install linux-libc-dev), "
                          "or configure with -DCS_SBX_FRONT=OFF")
    endif()
    file(CREATE_LINK ${target} ${CS_MUSL_KERNEL_HEADERS}/${name} SYMBOLIC)
  endforeach()
  # The definitions are the target's own (COMPILE_DEFINITIONS, which
  # holds the project-wide _GNU_SOURCE too).
  set(CS_MUSL_CFLAGS -std=c11 -O2 -g ${CS_WARNING_FLAGS} -isystem ${CS_MUSL_KERNEL_HEADERS})
endif()

# cs_musl_twin(<target>): see above. <target> must be defined in the
# calling folder (its sources are compiled here).
function(cs_musl_twin target)
  if(NOT CS_MUSL_ENABLED)
    return()
  endif()
  get_target_property(srcs ${target} SOURCES)
  get_target_property(src_dir ${target} SOURCE_DIR)
  set(objdir ${CMAKE_CURRENT_BINARY_DIR}/musl/${target})
  set(archive ${CMAKE_CURRENT_BINARY_DIR}/musl/lib${target}.a)
  file(MAKE_DIRECTORY ${objdir})
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(objects "")
  foreach(src IN LISTS srcs)
    if(NOT src MATCHES "\\.c$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE ${src})
      set(src ${src_dir}/${src})
    endif()
    get_filename_component(name ${src} NAME_WE)
    set(o ${objdir}/${name}.o)
    add_custom_command(
      OUTPUT ${o}
      COMMAND ${CS_MUSL_GCC} ${CS_MUSL_CFLAGS} "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" -MD -MF ${o}.d -c ${src} -o ${o}
      DEPENDS ${src}
      DEPFILE ${o}.d
      COMMENT "musl-gcc: ${name}.c (${target}, sbx front end)"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND objects ${o})
  endforeach()
  add_custom_command(
    OUTPUT ${archive}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${archive}
    COMMAND ${CMAKE_AR} qcs ${archive} ${objects}
    DEPENDS ${objects}
    COMMENT "musl: lib${target}.a (sbx front end)"
    VERBATIM)
  add_custom_target(${target}_musl DEPENDS ${archive})
  # The target first: its generated sources and headers, and those of
  # the targets it links, exist before the twin compiles them.
  add_dependencies(${target}_musl ${target})
  set_target_properties(${target}_musl PROPERTIES CS_MUSL_ARCHIVE ${archive})
endfunction()
