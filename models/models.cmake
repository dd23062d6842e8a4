# models/models.cmake: the project's own models, compiled at build time by
# pnetc through the same pnetc_add_model() users get from the installed
# CMake package (cmake/PnetcFunctions.cmake).
#
#   cs_model_default    models/default.pnet    -> symbol cs_model_default
#   cs_model_two_stage  models/two_stage.pnet  -> symbol cs_model_two_stage
include(${CS_SOURCE_ROOT}/cmake/PnetcFunctions.cmake)

foreach(cs_model default two_stage)
  add_library(cs_model_${cs_model} STATIC)
  # Run from the source root so the tables record models/<name>.pnet,
  # wherever the tree is checked out.
  pnetc_add_model(cs_model_${cs_model} models/${cs_model}.pnet WORKING_DIRECTORY ${CS_SOURCE_ROOT})
  # The static front end's copy (cmake/MuslTwin.cmake).
  cs_musl_twin(cs_model_${cs_model})
endforeach()
