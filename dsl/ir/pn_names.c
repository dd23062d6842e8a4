/* pn_names: the IR's kinds as the outputs spell them (see pn_net.h). */
#include "pn_net.h"

const char *pn_place_role_name(enum pn_place_role r)
{
  switch (r) {
  case PN_PLACE_TRACKED:
    return "tracked";
  case PN_PLACE_SOURCE:
    return "source";
  case PN_PLACE_SINK:
    return "sink";
  }
  return "unknown";
}

const char *pn_transition_kind_name(enum pn_transition_kind k)
{
  switch (k) {
  case PN_ADMISSION:
    return "admission";
  case PN_PROGRESS:
    return "progress";
  }
  return "unknown";
}

const char *pn_assert_kind_name(enum pn_assert_kind k)
{
  switch (k) {
  case PN_ASSERT_NO_DEADLOCK:
    return "no_deadlock";
  case PN_ASSERT_CAPACITY:
    return "capacity";
  case PN_ASSERT_INVARIANT:
    return "invariant";
  case PN_ASSERT_REACHABLE:
    return "reachable";
  case PN_ASSERT_UNREACHABLE:
    return "unreachable";
  }
  return "unknown";
}
