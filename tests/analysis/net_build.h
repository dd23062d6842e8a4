/* net_build: hand-built struct pn_net for the analysis tests. Arcs are
 * given as "place:weight place:weight ..." strings naming places. */
#ifndef CS_TESTS_ANALYSIS_NET_BUILD_H
#define CS_TESTS_ANALYSIS_NET_BUILD_H

#include "pn_net.h"

struct pn_net *nb_new(const char *name);
uint32_t nb_place(struct pn_net *net, const char *name, enum pn_place_role role, int64_t initial);
uint32_t nb_trans(struct pn_net *net, const char *name, enum pn_transition_kind kind,
                  const char *pre, const char *post);
/* An assertion over a conjunction given as "coef*place+coef*place REL constant;..." with
 * REL one of == != < <= > >=, e.g. "1*a+1*b<=3". NULL for no constraint. */
void nb_assert(struct pn_net *net, enum pn_assert_kind kind, const char *conj);
/* Sets the capacity of a place. */
void nb_capacity(struct pn_net *net, const char *place, int64_t cap);
int32_t nb_find_place(const struct pn_net *net, const char *name);

#endif
