/* tee_realm: the JavaScript the isolated worker offers (docs/tiers.md,
 * "What the code sees"). A duktape heap on the worker's arena, with every
 * source of time and randomness removed (Date, Math.random) and the
 * engine's own objects gone; then every object reachable from the global object, the global
 * object itself included, is frozen, as Hardened JavaScript's lockdown()
 * does. Why freeze: one worker serves many evaluations, and a frozen realm
 * leaves an evaluation no place to keep anything for the next one (a
 * replaced Array.prototype.push, a global variable).
 *
 * The globals are an allow-list, not a deny-list: whatever the engine
 * offers beyond ECMAScript's own objects (Date, performance.now, Duktape,
 * CBOR, Buffer, and whatever a later version adds) is removed, so a new
 * clock in a later engine release is removed without anyone noticing it. */
#ifndef CS_RUNTIME_TEE_REALM_H
#define CS_RUNTIME_TEE_REALM_H

#include "tee_arena.h"

#include <duktape.h>

/* fatal: called by the engine on an error it cannot throw (never returns). */
duk_context *tee_realm_create(struct tee_arena *arena, duk_fatal_function fatal);
/* Removes every global not on the allow-list and Math.random, then
 * freezes. extra_global (NULL: none) is one more global kept: the test
 * build's __syscall. 0, or -1 when the preparation threw (the worker must
 * not serve then). */
int tee_realm_prepare(duk_context *ctx, const char *extra_global);

#endif
