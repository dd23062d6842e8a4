/* pnet: public entry points of the .pnet front end (see pnet.h). */
#include "pnet.h"

#include "pnet_lower.h"

static struct pn_net *pnet_parse(const char *path, const char *text, size_t len)
{
  struct pnet_lower *lw = pnet_lower_new();
  if (!lw) {
    diag_error(NULL, "out of memory");
    return NULL;
  }
  pnet_lower_main(lw, path, text, len);
  return pnet_lower_finish(lw);
}

struct pn_net *pnet_parse_file(const char *path)
{
  return pnet_parse(path, NULL, 0);
}

struct pn_net *pnet_parse_memory(const char *name, const char *text, size_t len)
{
  /* An empty buffer is still a (trivially empty) model, never a file read. */
  return pnet_parse(name, text ? text : "", text ? len : 0);
}
