/* pn_net: the Petri-net intermediate representation every .pnet / PNML front
 * end produces and the analysis (verify/) and emitters (gen/) consume.
 *
 * The IR is fully resolved: constants folded, families expanded, includes
 * merged, names checked. Place and transition indices are the declaration
 * order of the source, which is the order every generated table uses. */
#ifndef CS_DSL_PN_NET_H
#define CS_DSL_PN_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

#define PN_UNBOUNDED INT64_C(-1)

/* Environment places are abstracted by the analysis: a source always has
 * enough tokens and a sink is not tracked, so they never enter a marking. */
enum pn_place_role {
  PN_PLACE_TRACKED,
  PN_PLACE_SOURCE, /* e.g. pending: requests arrive from outside */
  PN_PLACE_SINK,   /* e.g. completed: finished work leaves the model */
};

struct pn_place {
  char *name;
  enum pn_place_role role;
  int64_t capacity; /* declared bound, PN_UNBOUNDED when none; checked, not a firing guard */
  int64_t initial;  /* initial marking (0 for environment places) */
  struct diag_loc loc;
};

struct pn_arc {
  uint32_t place;  /* index into pn_net.places */
  uint32_t weight; /* >= 1 */
};

/* Admissions are the controllable transitions: the runtime may refuse them.
 * Progress steps cannot be stopped once enabled. */
enum pn_transition_kind {
  PN_ADMISSION,
  PN_PROGRESS,
};

struct pn_transition {
  char *name;
  enum pn_transition_kind kind;
  struct pn_arc *pre; /* input arcs, sorted by place, one per place */
  uint32_t npre;
  struct pn_arc *post; /* output arcs, sorted by place, one per place */
  uint32_t npost;
  /* For an admission: the progress step that finishes the admitted work
   * (complete_<tier> for admit_<tier>, or as declared), -1 when none. */
  int32_t completion;
  struct diag_loc loc;
};

enum pn_rel { PN_REL_EQ, PN_REL_NE, PN_REL_LT, PN_REL_LE, PN_REL_GT, PN_REL_GE };

struct pn_term {
  int64_t coef;
  uint32_t place;
};

/* sum(coef * M(place)) rel constant */
struct pn_linear {
  struct pn_term *terms;
  uint32_t nterms;
  enum pn_rel rel;
  int64_t constant;
};

enum pn_assert_kind {
  PN_ASSERT_NO_DEADLOCK, /* no reachable dead marking */
  PN_ASSERT_CAPACITY,    /* every place within its declared capacity */
  PN_ASSERT_INVARIANT,   /* the conjunction holds in every reachable marking */
  PN_ASSERT_REACHABLE,   /* some reachable marking satisfies the conjunction */
  PN_ASSERT_UNREACHABLE, /* no reachable marking satisfies the conjunction */
};

struct pn_assertion {
  enum pn_assert_kind kind;
  char *text;                    /* the assertion as written, for reports */
  struct pn_linear *constraints; /* conjunction; empty for NO_DEADLOCK / CAPACITY */
  uint32_t nconstraints;
  bool implicit; /* added by the front end (the capacity check every model gets) */
  struct diag_loc loc;
};

struct pn_net {
  char *name;
  char *source_path; /* the main input file, as given */
  struct pn_place *places;
  uint32_t nplaces;
  struct pn_transition *transitions;
  uint32_t ntransitions;
  struct pn_assertion *assertions;
  uint32_t nassertions;
  /* Every file read (main input first, then includes), kept alive so
   * diag_loc pointers stay valid and the build can list dependencies. */
  struct diag_source **sources;
  uint32_t nsources;
};

void pn_net_free(struct pn_net *net);

/* The names the outputs (tables, report, DOT) spell the IR's kinds with
 * ("source", "admission", "no_deadlock"); "unknown" for a value outside
 * the enum. */
const char *pn_place_role_name(enum pn_place_role r);
const char *pn_transition_kind_name(enum pn_transition_kind k);
const char *pn_assert_kind_name(enum pn_assert_kind k);

#endif
