# models/profiles.cmake: the seed security profiles (models/profiles.pol and
# the syscall library it includes), compiled at build time by pnetc into the
# static library cs_profiles, which exposes cs_profiles[], cs_profiles_count
# and cs_profile_find() (generated profiles.h; layout in
# runtime/include/cs_profile_table.h). The sbx CLI links it.
#
# pnetc writes a depfile naming every .pol file it read, so editing
# models/stdlib/syscalls.pol regenerates the tables as well.
set(cs_profiles_out ${CMAKE_CURRENT_BINARY_DIR}/pnetc_cs_profiles)
file(MAKE_DIRECTORY ${cs_profiles_out})
add_custom_command(
  OUTPUT ${cs_profiles_out}/profiles.c ${cs_profiles_out}/profiles.h
  # --model: the routes may name only tiers and lanes of the scheduler sbx
  # is built with.
  COMMAND pnetc -q -o ${cs_profiles_out} --depfile ${cs_profiles_out}/profiles.d --model models/default.pnet
          models/profiles.pol
  DEPENDS ${CS_SOURCE_ROOT}/models/profiles.pol ${CS_SOURCE_ROOT}/models/stdlib/syscalls.pol
          ${CS_SOURCE_ROOT}/models/default.pnet pnetc
  DEPFILE ${cs_profiles_out}/profiles.d
  # From the source root, like the net models: the tables record the
  # policy's own file names, never the checkout's location.
  WORKING_DIRECTORY ${CS_SOURCE_ROOT}
  COMMENT "pnetc: compiling security profiles models/profiles.pol"
  VERBATIM)
add_library(cs_profiles STATIC ${cs_profiles_out}/profiles.c ${cs_profiles_out}/profiles.h)
target_include_directories(cs_profiles PUBLIC $<BUILD_INTERFACE:${cs_profiles_out}>)
target_link_libraries(cs_profiles PUBLIC cs_public_headers)
# The static front end's copy (cmake/MuslTwin.cmake).
cs_musl_twin(cs_profiles)
