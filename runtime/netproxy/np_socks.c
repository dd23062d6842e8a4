/* np_socks: SOCKS5 greeting and request (np_socks.h). Only "no
 * authentication" is offered: the listener is reachable only from the
 * run's own network namespace, and a password would travel in clear. */
#include <string.h>

#include "np_socks.h"

enum np_socks_status np_socks_parse_greeting(const uint8_t *buf, size_t len,
                                             struct np_socks_greeting *g)
{
  memset(g, 0, sizeof *g);
  if (len < 2)
    return len == 1 && buf[0] != NP_SOCKS_VERSION ? NP_SOCKS_REFUSED : NP_SOCKS_NEED_MORE;
  if (buf[0] != NP_SOCKS_VERSION || buf[1] == 0)
    return NP_SOCKS_REFUSED;
  size_t n = buf[1];
  if (len < 2 + n)
    return NP_SOCKS_NEED_MORE;
  for (size_t i = 0; i < n; i++)
    if (buf[2 + i] == NP_SOCKS_NO_AUTH)
      g->no_auth_offered = 1;
  g->len = 2 + n;
  return NP_SOCKS_OK;
}

static enum np_socks_status np_refuse(struct np_socks_request *r, uint8_t rep, const char *why)
{
  r->reply = rep;
  r->why = why;
  return NP_SOCKS_REFUSED;
}

enum np_socks_status np_socks_parse_request(const uint8_t *buf, size_t len,
                                            struct np_socks_request *r)
{
  memset(r, 0, sizeof *r);
  if (len < 4)
    return len >= 1 && buf[0] != NP_SOCKS_VERSION
               ? np_refuse(r, NP_SOCKS_REP_FAILURE, "SOCKS request is not version 5")
               : NP_SOCKS_NEED_MORE;
  if (buf[0] != NP_SOCKS_VERSION)
    return np_refuse(r, NP_SOCKS_REP_FAILURE, "SOCKS request is not version 5");
  if (buf[2] != 0)
    return np_refuse(r, NP_SOCKS_REP_FAILURE, "SOCKS request's reserved byte is not 0");
  r->cmd = buf[1];
  r->atyp = buf[3];
  size_t addr_len;
  size_t at = 4;
  switch (r->atyp) {
  case NP_SOCKS_ATYP_IPV4:
    addr_len = 4;
    break;
  case NP_SOCKS_ATYP_IPV6:
    addr_len = 16;
    break;
  case NP_SOCKS_ATYP_DOMAIN:
    if (len < 5)
      return NP_SOCKS_NEED_MORE;
    addr_len = buf[4];
    at = 5;
    if (addr_len == 0)
      return np_refuse(r, NP_SOCKS_REP_HOST_UNREACH, "SOCKS request with an empty name");
    break;
  default:
    return np_refuse(r, NP_SOCKS_REP_ATYP, "SOCKS address type not supported");
  }
  if (len < at + addr_len + 2)
    return NP_SOCKS_NEED_MORE;
  if (r->atyp == NP_SOCKS_ATYP_DOMAIN) {
    memcpy(r->host, buf + at, addr_len);
    r->host[addr_len] = '\0';
    r->host_len = addr_len;
  } else {
    memcpy(r->addr, buf + at, addr_len);
  }
  r->port = (uint16_t)(buf[at + addr_len] << 8 | buf[at + addr_len + 1]);
  r->len = at + addr_len + 2;
  /* BIND and UDP ASSOCIATE would open a path in from outside or a UDP
   * relay that no name is judged for: refused by the ruleset, while a
   * command RFC 1928 does not know is "not supported". */
  if (r->cmd == NP_SOCKS_CMD_BIND || r->cmd == NP_SOCKS_CMD_UDP)
    return np_refuse(r, NP_SOCKS_REP_RULESET,
                     r->cmd == NP_SOCKS_CMD_BIND ? "SOCKS BIND is not allowed"
                                                 : "SOCKS UDP ASSOCIATE is not allowed");
  if (r->cmd != NP_SOCKS_CMD_CONNECT)
    return np_refuse(r, NP_SOCKS_REP_COMMAND, "SOCKS command not supported");
  if (r->port == 0)
    return np_refuse(r, NP_SOCKS_REP_RULESET, "SOCKS request for port 0");
  return NP_SOCKS_OK;
}

size_t np_socks_reply(uint8_t rep, uint8_t out[10])
{
  memset(out, 0, 10);
  out[0] = NP_SOCKS_VERSION;
  out[1] = rep;
  out[3] = NP_SOCKS_ATYP_IPV4;
  return 10;
}
