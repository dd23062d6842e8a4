/* np_socks: the SOCKS5 proxy's two client messages (RFC 1928): the method
 * greeting and the request. Pure; fuzzed (tests/fuzz/fuzz_npsocks.c). */
#ifndef NP_SOCKS_H
#define NP_SOCKS_H

#include <stddef.h>
#include <stdint.h>

enum np_socks_status {
  NP_SOCKS_NEED_MORE = 0,
  NP_SOCKS_OK = 1,
  NP_SOCKS_REFUSED = 2, /* answer with reply code `reply` (request) or close */
};

#define NP_SOCKS_VERSION 5
#define NP_SOCKS_NO_AUTH 0x00
#define NP_SOCKS_NO_METHOD 0xff

#define NP_SOCKS_CMD_CONNECT 1
#define NP_SOCKS_CMD_BIND 2
#define NP_SOCKS_CMD_UDP 3

#define NP_SOCKS_ATYP_IPV4 1
#define NP_SOCKS_ATYP_DOMAIN 3
#define NP_SOCKS_ATYP_IPV6 4

/* Reply codes (RFC 1928 section 6). */
#define NP_SOCKS_REP_OK 0x00
#define NP_SOCKS_REP_FAILURE 0x01
#define NP_SOCKS_REP_RULESET 0x02
#define NP_SOCKS_REP_NET_UNREACH 0x03
#define NP_SOCKS_REP_HOST_UNREACH 0x04
#define NP_SOCKS_REP_REFUSED 0x05
#define NP_SOCKS_REP_TTL 0x06
#define NP_SOCKS_REP_COMMAND 0x07
#define NP_SOCKS_REP_ATYP 0x08

struct np_socks_greeting {
  size_t len;
  int no_auth_offered;
};

struct np_socks_request {
  size_t len;
  uint8_t cmd;
  uint8_t atyp;
  char host[256]; /* ATYP_DOMAIN: the name's bytes, NUL added; else empty */
  size_t host_len;
  uint8_t addr[16]; /* ATYP_IPV4 (4 bytes), ATYP_IPV6 (16) */
  uint16_t port;
  uint8_t reply;   /* when refused */
  const char *why; /* when refused */
};

enum np_socks_status np_socks_parse_greeting(const uint8_t *buf, size_t len,
                                             struct np_socks_greeting *g);
enum np_socks_status np_socks_parse_request(const uint8_t *buf, size_t len,
                                            struct np_socks_request *r);

/* The 10-byte reply with code rep and bound address 0.0.0.0:0. */
size_t np_socks_reply(uint8_t rep, uint8_t out[10]);

#endif
