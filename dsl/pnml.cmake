# PNML front end: part of cs_pnet (included by dsl/pnet.cmake).
target_sources(cs_pnet PRIVATE ${CMAKE_CURRENT_LIST_DIR}/pnml.c)
target_link_libraries(cs_pnet PUBLIC PkgConfig::LIBXML2)
