/* pol_stmt: the actions and syscall statements of one profile
 * declaration: actions parsed, targets resolved (names through libseccomp,
 * @groups), conditions lowered per target call (pol_cond.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pol_consts.h"
#include "pol_internal.h"

char *pol_action_text(struct sc_action a)
{
  char *out = NULL;
  const char *name;
  switch (a.kind) {
  case SC_ACT_ALLOW:
    return strdup("allow");
  case SC_ACT_LOG:
    return strdup("log");
  case SC_ACT_KILL_PROCESS:
    return strdup("kill-process");
  case SC_ACT_KILL_THREAD:
    return strdup("kill-thread");
  case SC_ACT_NOTIFY:
    return strdup("notify");
  case SC_ACT_TRAP:
    if (a.data == 0)
      return strdup("trap");
    return asprintf(&out, "trap(%u)", a.data) < 0 ? NULL : out;
  case SC_ACT_TRACE:
    return asprintf(&out, "trace(%u)", a.data) < 0 ? NULL : out;
  case SC_ACT_ERRNO:
    name = pol_errno_name(a.data);
    if (name)
      return asprintf(&out, "errno(%s)", name) < 0 ? NULL : out;
    return asprintf(&out, "errno(%u)", a.data) < 0 ? NULL : out;
  }
  return NULL;
}

static int pol_check_action(const struct pol_action *a, struct sc_action *out)
{
  static const struct {
    const char *name;
    enum sc_action_kind kind;
    int arg; /* 0 none, 1 optional, 2 required */
    unsigned max;
  } acts[] = {
    { "allow", SC_ACT_ALLOW, 0, 0 },
    { "log", SC_ACT_LOG, 0, 0 },
    { "kill-process", SC_ACT_KILL_PROCESS, 0, 0 },
    { "kill-thread", SC_ACT_KILL_THREAD, 0, 0 },
    { "notify", SC_ACT_NOTIFY, 0, 0 },
    { "trap", SC_ACT_TRAP, 1, 0xffff },
    { "trace", SC_ACT_TRACE, 1, 0xffff },
    { "errno", SC_ACT_ERRNO, 2, 4095 },
  };
  for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++) {
    if (strcmp(acts[i].name, a->name.text) != 0)
      continue;
    out->kind = acts[i].kind;
    out->data = 0;
    if (!a->has_arg) {
      if (acts[i].arg == 2) {
        diag_error(&a->name.loc, "'errno' needs a value, e.g. errno(EPERM)");
        return -EINVAL;
      }
      return 0;
    }
    if (acts[i].arg == 0) {
      diag_error(&a->arg.loc, "'%s' takes no argument", acts[i].name);
      return -EINVAL;
    }
    uint64_t v = a->arg.number;
    if (a->arg.is_name) {
      int e;
      if (out->kind != SC_ACT_ERRNO || pol_errno_lookup(a->arg.name, &e) != 0) {
        diag_error(&a->arg.loc,
                   out->kind == SC_ACT_ERRNO ? "unknown errno name '%s'" : "'%s' is not a number",
                   a->arg.name);
        return -EINVAL;
      }
      v = (uint64_t)e;
    } else if (a->arg.negative) {
      v = UINT64_MAX;
    }
    if (v > acts[i].max) {
      diag_error(&a->arg.loc, "'%s' value must be between 0 and %u", acts[i].name, acts[i].max);
      return -EINVAL;
    }
    out->data = (uint16_t)v;
    return 0;
  }
  diag_error(
      &a->name.loc,
      "unknown action '%s' (expected allow, errno(N), kill-process, kill-thread, trap, log, notify or "
      "trace)",
      a->name.text);
  return -EINVAL;
}

/* The statement at loc as one line of text, up to its ';': blanks
 * collapsed, comments dropped (statements hold no strings, so a ';' or a
 * comment marker cannot be inside a literal). */
static char *pol_stmt_source(const struct diag_loc *loc)
{
  const struct diag_source *src = loc->file;
  if (!src || loc->line < 1 || (size_t)loc->line > src->line_count)
    return strdup("");
  const char *p = src->text + src->line_starts[loc->line - 1] + loc->col - 1;
  const char *end = src->text + src->length;
  char *out = malloc((size_t)(end - p) + 2);
  if (!out)
    return NULL;
  size_t n = 0;
  bool blank = false;
  while (p < end && *p != ';') {
    if (*p == '#' || (p[0] == '/' && p + 1 < end && p[1] == '/')) {
      while (p < end && *p != '\n')
        p++;
      continue;
    }
    if (p[0] == '/' && p + 1 < end && p[1] == '*') {
      const char *close = strstr(p + 2, "*/");
      p = close ? close + 2 : end;
      blank = true;
      continue;
    }
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      blank = true;
      p++;
      continue;
    }
    if (blank && n)
      out[n++] = ' ';
    blank = false;
    out[n++] = *p++;
  }
  out[n++] = ';';
  out[n] = '\0';
  return out;
}

void pol_prepared_free(struct pol_prepared *p)
{
  free(p->source);
  free(p->action_text);
  free(p->origin);
  for (size_t t = 0; t < p->ntargets; t++)
    pol_clauses_free(p->targets[t].clauses, p->targets[t].nclauses);
  free(p->targets);
}

static int pol_target_add(struct pol_prepared *p, int nr, const char *name, bool via_group)
{
  for (size_t t = 0; t < p->ntargets; t++)
    if (p->targets[t].nr == nr)
      return 0;
  struct pol_target *grown = realloc(p->targets, (p->ntargets + 1) * sizeof *grown);
  if (!grown)
    return -ENOMEM;
  p->targets = grown;
  memset(&grown[p->ntargets], 0, sizeof grown[0]);
  grown[p->ntargets].nr = nr;
  grown[p->ntargets].name = name;
  grown[p->ntargets].via_group = via_group;
  p->ntargets++;
  return 0;
}

int pol_check_stmt(const struct pol_policy *pol, const struct pol_delta *dl,
                   const struct pol_stmt *s, struct pol_prepared *p)
{
  int rc = 0;
  memset(p, 0, sizeof *p);
  p->stmt = s;
  p->is_default = s->kind == POL_STMT_DEFAULT;
  p->conditional = s->cond != NULL;
  char suffix[96];
  snprintf(suffix, sizeof suffix, "(profile %s)", dl->decl->name.text);
  p->origin = pol_origin(pol, &s->loc, suffix);
  p->source = pol_stmt_source(&s->loc);
  if (!p->origin || !p->source)
    return -ENOMEM;
  if (pol_check_action(&s->action, &p->action) != 0)
    rc = -EINVAL;
  else if (!(p->action_text = pol_action_text(p->action)))
    return -ENOMEM;
  if (p->is_default)
    return rc;

  for (size_t i = 0; i < s->targets.n; i++) {
    const struct pol_name *t = &s->targets.items[i];
    if (t->text[0] == '@') {
      const struct pol_groupdef *g = pol_group_find(pol, t->text);
      if (!g) {
        diag_error(&t->loc, "unknown group '%s'", t->text);
        rc = -EINVAL;
        continue;
      }
      for (size_t k = 0; k < g->n; k++)
        if (pol_target_add(p, g->nrs[k], g->names[k], true))
          return -ENOMEM;
    } else {
      int nr = pol_syscall_nr(t);
      if (nr < 0) {
        rc = -EINVAL;
        continue;
      }
      if (pol_target_add(p, nr, t->text, false))
        return -ENOMEM;
    }
  }
  if (rc || !s->cond)
    return rc;
  for (size_t t = 0; t < p->ntargets; t++) {
    struct pol_target *tg = &p->targets[t];
    int crc = pol_cond_lower(pol, s->cond, tg->name, &tg->clauses, &tg->nclauses, &tg->never);
    if (crc == -ENOMEM)
      return crc;
    if (crc) {
      rc = crc;
      break; /* the same mistake would repeat for every target */
    }
  }
  if (rc == 0) {
    bool never = true, always = true;
    for (size_t t = 0; t < p->ntargets; t++) {
      never = never && p->targets[t].never;
      always = always && !p->targets[t].never && p->targets[t].nclauses == 0;
    }
    if (p->ntargets && never)
      diag_warning(&s->cond->loc, "this condition can never be true; the rule has no effect");
    if (p->ntargets && always)
      diag_warning(&s->cond->loc, "this condition is always true");
  }
  return rc;
}
