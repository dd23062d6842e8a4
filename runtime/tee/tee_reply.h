/* tee_reply: what the pool accepts from a worker. Anything that is not
 * exactly one of these is malformed, and the worker that sent it is
 * ended (docs/tiers.md, "Messages"):
 *
 *   {"ready":true,"heap":N}                          once, after set-up
 *   {"ok":true,"value":V,"heap":N[,"retire":true]}   V any JSON
 *   {"ok":false,"error":"...","heap":N[,"retire":true]} */
#ifndef CS_RUNTIME_TEE_REPLY_H
#define CS_RUNTIME_TEE_REPLY_H

#include <stdbool.h>
#include <stddef.h>

struct tee_reply {
  bool ok;
  char *value; /* ok: compact JSON, malloc'd */
  char *error; /* !ok: malloc'd */
  size_t heap;
  bool retire;
};

/* 0, or -1 with *why set to a static description of what was wrong. */
int tee_reply_parse_ready(const char *text, size_t len, const char **why);
int tee_reply_parse(const char *text, size_t len, struct tee_reply *r, const char **why);
void tee_reply_free(struct tee_reply *r);

#endif
