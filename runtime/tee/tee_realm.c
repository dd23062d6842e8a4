/* tee_realm: the prepared JavaScript realm (see tee_realm.h). */
#include "tee_realm.h"

static void *tee_realm_alloc(void *udata, duk_size_t size)
{
  return tee_arena_alloc(udata, size);
}

static void *tee_realm_realloc(void *udata, void *ptr, duk_size_t size)
{
  return tee_arena_realloc(udata, ptr, size);
}

static void tee_realm_free(void *udata, void *ptr)
{
  tee_arena_free(udata, ptr);
}

duk_context *tee_realm_create(struct tee_arena *arena, duk_fatal_function fatal)
{
  return duk_create_heap(tee_realm_alloc, tee_realm_realloc, tee_realm_free, arena, fatal);
}

/* Run once, before the first request. The walk follows values, accessors
 * and prototypes, so nothing reachable from the global object is left
 * writable; symbols too when the engine has Reflect.ownKeys. */
static const char tee_realm_lockdown[] =
    "function (g) {\n"
    "  delete g.Date;\n"
    "  delete g.Math.random;\n"
    "  delete g.Duktape;\n"
    "  delete g.print;\n"
    "  delete g.alert;\n"
    "  delete g.require;\n"
    "  var seen = [];\n"
    "  var keysOf = (typeof Reflect === 'object' && Reflect.ownKeys) ? Reflect.ownKeys\n"
    "                                                                : Object.getOwnPropertyNames;\n"
    "  function harden(o) {\n"
    "    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return;\n"
    "    if (seen.indexOf(o) >= 0) return;\n"
    "    seen.push(o);\n"
    "    Object.freeze(o);\n"
    "    var keys = keysOf(o);\n"
    "    for (var i = 0; i < keys.length; i++) {\n"
    "      var d = Object.getOwnPropertyDescriptor(o, keys[i]);\n"
    "      if (!d) continue;\n"
    "      if ('value' in d) harden(d.value); else { harden(d.get); harden(d.set); }\n"
    "    }\n"
    "    harden(Object.getPrototypeOf(o));\n"
    "  }\n"
    "  harden(g);\n"
    "  if (!Object.isFrozen(g) || typeof g.Date !== 'undefined' || g.Math.random !== undefined)\n"
    "    throw new Error('lockdown incomplete');\n"
    "}";

static duk_ret_t tee_realm_lockdown_safe(duk_context *ctx, void *udata)
{
  (void)udata;
  duk_push_string(ctx, "lockdown");
  duk_compile_string_filename(ctx, DUK_COMPILE_FUNCTION, tee_realm_lockdown);
  duk_push_global_object(ctx);
  duk_call(ctx, 1);
  return 0;
}

int tee_realm_prepare(duk_context *ctx)
{
  int rc = duk_safe_call(ctx, tee_realm_lockdown_safe, NULL, 0, 1);
  duk_pop(ctx);
  return rc == DUK_EXEC_SUCCESS ? 0 : -1;
}
