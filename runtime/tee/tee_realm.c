/* tee_realm: the prepared JavaScript realm (see tee_realm.h). */
#include "tee_realm.h"

#include <stdint.h>

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
    "function (g, extra) {\n"
    "  var keep = ['globalThis', 'NaN', 'Infinity', 'undefined', 'Object', 'Function', 'Array',\n"
    "    'String', 'Boolean', 'Number', 'RegExp', 'Error', 'EvalError', 'RangeError',\n"
    "    'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'Math', 'JSON', 'Proxy',\n"
    "    'Reflect', 'Symbol', 'ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array',\n"
    "    'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',\n"
    "    'Float32Array', 'Float64Array', 'parseInt', 'parseFloat', 'TextEncoder', 'TextDecoder',\n"
    "    'eval', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI',\n"
    "    'encodeURIComponent', 'escape', 'unescape'];\n"
    "  if (typeof extra === 'string') keep.push(extra);\n"
    "  var names = Object.getOwnPropertyNames(g);\n"
    "  for (var n = 0; n < names.length; n++)\n"
    "    if (keep.indexOf(names[n]) < 0 && !delete g[names[n]])\n"
    "      throw new Error('cannot remove ' + names[n]);\n"
    "  if (!delete g.Math.random) throw new Error('cannot remove Math.random');\n"
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
    "  if (!Object.isFrozen(g) || Object.getOwnPropertyNames(g).length > keep.length ||\n"
    "      g.Math.random !== undefined)\n"
    "    throw new Error('lockdown incomplete');\n"
    "}";

static duk_ret_t tee_realm_lockdown_safe(duk_context *ctx, void *udata)
{
  const char *extra = udata;

  duk_push_string(ctx, "lockdown");
  duk_compile_string_filename(ctx, DUK_COMPILE_FUNCTION, tee_realm_lockdown);
  duk_push_global_object(ctx);
  if (extra)
    duk_push_string(ctx, extra);
  else
    duk_push_undefined(ctx);
  duk_call(ctx, 2);
  return 0;
}

int tee_realm_prepare(duk_context *ctx, const char *extra_global)
{
  int rc = duk_safe_call(ctx, tee_realm_lockdown_safe, (void *)(uintptr_t)extra_global, 0, 1);
  duk_pop(ctx);
  return rc == DUK_EXEC_SUCCESS ? 0 : -1;
}
