/* The generated model tables the admission tests link when the build has
 * them (models/models.cmake; HAVE_MODEL_* set by tests/admission). */
#ifndef CS_TESTS_MODEL_TABLES_H
#define CS_TESTS_MODEL_TABLES_H

#include "cs_model_table.h"

#ifdef HAVE_MODEL_DEFAULT
extern const struct cs_model_table cs_model_default;
#endif
#ifdef HAVE_MODEL_TWO_STAGE
extern const struct cs_model_table cs_model_two_stage;
#endif

#endif
