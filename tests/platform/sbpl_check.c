/* sbpl_check: reads a Seatbelt profile (SBPL) the way a strict reader
 * would and refuses anything pnetc must never write (docs/platforms.md,
 * "Tests"). No macOS here, so this is the stand-in for sandbox-exec's
 * parser, stricter than it in what it accepts:
 *
 *   - every form balanced; strings and #"regex" literals terminated;
 *   - the first form (version 1), then exactly one (deny default) before
 *     any allow: deny by default, never (allow default);
 *   - every other top-level form (allow|deny OPERATION... FILTER...) with
 *     at least one operation, each from the known list below, operations
 *     before filters;
 *   - filters only from the known list, with their argument shapes:
 *     (subpath|literal PATH), (regex #"..."), (param "NAME") naming a
 *     parameter given with --param, (string-append PART...),
 *     (require-all|require-any|require-not FILTER...), and the few
 *     symbol arguments Seatbelt has (same-sandbox, ip, tcp).
 *
 *   sbpl_check [--param NAME]... [--expect-shell-deny] FILE.sb
 *
 * --expect-shell-deny: the profile must (deny process-exec (regex ...))
 * naming every shell of sbx's list. Exit 0 clean, 1 with one
 * file:line:col: error: line per problem. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The operations pnetc may write; Apple's own profiles use these names. */
static const char *const known_ops[] = {
  "default",
  "file-read*",
  "file-read-data",
  "file-read-metadata",
  "file-read-xattr",
  "file-write*",
  "file-write-create",
  "file-write-data",
  "file-write-flags",
  "file-write-mode",
  "file-write-owner",
  "file-write-times",
  "file-write-unlink",
  "file-write-xattr",
  "file-ioctl",
  "file-map-executable",
  "process-exec",
  "process-fork",
  "process-info*",
  "signal",
  "sysctl-read",
  "mach-lookup",
  "network-outbound",
  "network-inbound",
  "network-bind",
  "system-socket",
  "pseudo-tty",
  "ipc-posix-sem",
  "user-preference-read",
  NULL,
};
static const char *const known_filters[] = {
  "subpath",     "literal",     "regex",       "param",       "string-append",      "require-all",
  "require-any", "require-not", "global-name", "sysctl-name", "sysctl-name-prefix", "remote",
  "target",      NULL,
};
static const char *const known_symbols[] = { "same-sandbox", "ip", "tcp", NULL };
/* sbx's list (runtime/plan/sbx_plan_shells.c), written out again here on
 * purpose: the test must not take the emitter's word for it. */
static const char *const shells[] = { "sh",   "bash",    "dash", "rbash",  "zsh",  "ksh", "ksh93",
                                      "mksh", "pdksh",   "ash",  "yash",   "posh", "csh", "tcsh",
                                      "fish", "busybox", "tmux", "screen", NULL };

enum node_kind { N_LIST, N_SYMBOL, N_STRING, N_REGEX };
struct node {
  enum node_kind kind;
  char *text; /* symbol, string or regex contents */
  struct node **kids;
  size_t nkids;
  int line, col;
};

static const char *file_name;
static const char *src;
static size_t pos;
static int line = 1, col = 1;
static int errors;
static const char *params[16];
static size_t nparams;

static void error_at(int l, int c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error_at(int l, int c, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s:%d:%d: error: ", file_name, l, c);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  errors++;
}

static int peek(void)
{
  return src[pos] ? (unsigned char)src[pos] : EOF;
}

static int next(void)
{
  int c = peek();
  if (c == EOF)
    return c;
  pos++;
  if (c == '\n') {
    line++;
    col = 1;
  } else {
    col++;
  }
  return c;
}

static void skip_blank(void)
{
  for (;;) {
    int c = peek();
    if (c == ';')
      while (peek() != EOF && peek() != '\n')
        next();
    else if (c != EOF && isspace(c))
      next();
    else
      return;
  }
}

static struct node *new_node(enum node_kind k, int l, int c)
{
  struct node *n = calloc(1, sizeof *n);
  if (!n)
    exit(2);
  n->kind = k;
  n->line = l;
  n->col = c;
  return n;
}

static void free_node(struct node *n)
{
  if (!n)
    return;
  for (size_t i = 0; i < n->nkids; i++)
    free_node(n->kids[i]);
  free(n->kids);
  free(n->text);
  free(n);
}

/* A quoted literal after its opening quote: backslash escapes one byte. */
static char *read_quoted(int l, int c)
{
  size_t cap = 64, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    int ch = next();
    if (ch == EOF) {
      error_at(l, c, "unterminated string");
      break;
    }
    if (ch == '"')
      break;
    if (ch == '\\') {
      ch = next();
      if (ch == EOF)
        continue;
    }
    if (n + 2 > cap && !(buf = realloc(buf, cap *= 2)))
      exit(2);
    buf[n++] = (char)ch;
  }
  buf[n] = '\0';
  return buf;
}

static struct node *read_form(void);

static struct node *read_list(int l, int c)
{
  struct node *n = new_node(N_LIST, l, c);
  for (;;) {
    skip_blank();
    if (peek() == EOF) {
      error_at(l, c, "unbalanced: this '(' is never closed");
      return n;
    }
    if (peek() == ')') {
      next();
      return n;
    }
    struct node *k = read_form();
    if (!k)
      return n;
    n->kids = realloc(n->kids, (n->nkids + 1) * sizeof *n->kids);
    n->kids[n->nkids++] = k;
  }
}

static struct node *read_form(void)
{
  skip_blank();
  int l = line, c = col, ch = peek();
  if (ch == EOF)
    return NULL;
  if (ch == '(') {
    next();
    return read_list(l, c);
  }
  if (ch == ')') {
    next();
    error_at(l, c, "unbalanced: ')' closes nothing");
    return read_form();
  }
  if (ch == '"') {
    next();
    struct node *n = new_node(N_STRING, l, c);
    n->text = read_quoted(l, c);
    return n;
  }
  if (ch == '#') {
    next();
    if (next() != '"') {
      error_at(l, c, "'#' not followed by a regex literal #\"...\"");
      return read_form();
    }
    struct node *n = new_node(N_REGEX, l, c);
    n->text = read_quoted(l, c);
    return n;
  }
  struct node *n = new_node(N_SYMBOL, l, c);
  size_t start = pos;
  while (peek() != EOF && !isspace(peek()) && peek() != '(' && peek() != ')' && peek() != '"' &&
         peek() != ';')
    next();
  n->text = strndup(src + start, pos - start);
  return n;
}

static bool in_list(const char *s, const char *const *list)
{
  for (size_t i = 0; list[i]; i++)
    if (strcmp(s, list[i]) == 0)
      return true;
  return false;
}

static bool is_head(const struct node *n, const char *name)
{
  return n->kind == N_LIST && n->nkids && n->kids[0]->kind == N_SYMBOL &&
         strcmp(n->kids[0]->text, name) == 0;
}

static void check_filter(const struct node *f);

/* A path argument: an absolute string, or a parameter expression. */
static void check_path_expr(const struct node *a)
{
  if (a->kind == N_STRING) {
    if (a->text[0] != '/')
      error_at(a->line, a->col, "path \"%s\" is not absolute", a->text);
    return;
  }
  if (is_head(a, "param") || is_head(a, "string-append")) {
    check_filter(a);
    return;
  }
  error_at(a->line, a->col, "a path must be a string, (param ...) or (string-append ...)");
}

static void check_filter(const struct node *f)
{
  if (f->kind != N_LIST || !f->nkids || f->kids[0]->kind != N_SYMBOL) {
    error_at(f->line, f->col, "expected a filter form (NAME ARG...)");
    return;
  }
  const char *h = f->kids[0]->text;
  if (!in_list(h, known_filters)) {
    error_at(f->line, f->col, "unknown filter '%s'", h);
    return;
  }
  size_t nargs = f->nkids - 1;
  struct node *const *a = f->kids + 1;
  if (!strcmp(h, "subpath") || !strcmp(h, "literal")) {
    if (nargs != 1)
      error_at(f->line, f->col, "(%s PATH) takes one path", h);
    else
      check_path_expr(a[0]);
  } else if (!strcmp(h, "regex")) {
    if (nargs != 1 || a[0]->kind != N_REGEX)
      error_at(f->line, f->col, "(regex #\"...\") takes one regex literal");
  } else if (!strcmp(h, "param")) {
    if (nargs != 1 || a[0]->kind != N_STRING)
      error_at(f->line, f->col, "(param \"NAME\") takes one string");
    else {
      bool known = false;
      for (size_t i = 0; i < nparams; i++)
        known |= strcmp(params[i], a[0]->text) == 0;
      if (!known)
        error_at(a[0]->line, a[0]->col, "parameter \"%s\" is not one sandbox-exec is given",
                 a[0]->text);
    }
  } else if (!strcmp(h, "string-append")) {
    if (!nargs)
      error_at(f->line, f->col, "(string-append) with nothing to append");
    for (size_t i = 0; i < nargs; i++)
      if (a[i]->kind != N_STRING && !is_head(a[i], "param") && !is_head(a[i], "string-append"))
        error_at(a[i]->line, a[i]->col, "string-append takes strings and parameters");
      else if (a[i]->kind == N_LIST)
        check_filter(a[i]);
  } else if (!strcmp(h, "require-all") || !strcmp(h, "require-any") || !strcmp(h, "require-not")) {
    if (!nargs || (!strcmp(h, "require-not") && nargs != 1))
      error_at(f->line, f->col, "(%s FILTER...) needs its filters", h);
    for (size_t i = 0; i < nargs; i++)
      check_filter(a[i]);
  } else {
    /* global-name, sysctl-name(-prefix), remote, target: strings, the
     * known symbols, and string expressions. */
    if (!nargs)
      error_at(f->line, f->col, "(%s ...) needs an argument", h);
    for (size_t i = 0; i < nargs; i++) {
      if (a[i]->kind == N_SYMBOL && !in_list(a[i]->text, known_symbols))
        error_at(a[i]->line, a[i]->col, "unknown symbol '%s'", a[i]->text);
      else if (a[i]->kind == N_REGEX)
        error_at(a[i]->line, a[i]->col, "a regex belongs in (regex ...)");
      else if (a[i]->kind == N_LIST && !is_head(a[i], "string-append") && !is_head(a[i], "param"))
        error_at(a[i]->line, a[i]->col, "unexpected form in (%s ...)", h);
      else if (a[i]->kind == N_LIST)
        check_filter(a[i]);
    }
  }
}

/* Whether the form is (deny process-exec (regex #"...")) whose regex names
 * every shell as a whole last path component. */
static bool denies_every_shell(const struct node *r)
{
  if (!is_head(r, "deny") || r->nkids != 3 || r->kids[1]->kind != N_SYMBOL ||
      strcmp(r->kids[1]->text, "process-exec") != 0 || !is_head(r->kids[2], "regex") ||
      r->kids[2]->nkids != 2)
    return false;
  const char *re = r->kids[2]->kids[1]->text;
  for (size_t i = 0; shells[i]; i++) {
    char want[64];
    bool found = false;
    snprintf(want, sizeof want, "|%s|", shells[i]);
    /* The emitted form is /(a|b|...)$: compare as a |-delimited list. */
    if (strncmp(re, "/(", 2) == 0 && strlen(re) > 4 && !strcmp(re + strlen(re) - 2, ")$")) {
      char list[1024];
      snprintf(list, sizeof list, "|%.*s|", (int)(strlen(re) - 4), re + 2);
      found = strstr(list, want) != NULL;
    }
    if (!found)
      return false;
  }
  return true;
}

int main(int argc, char **argv)
{
  bool expect_shell_deny = false;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (!strcmp(argv[i], "--param") && i + 1 < argc && nparams < 16)
      params[nparams++] = argv[++i];
    else if (!strcmp(argv[i], "--expect-shell-deny"))
      expect_shell_deny = true;
    else {
      fprintf(stderr, "usage: sbpl_check [--param NAME]... [--expect-shell-deny] FILE.sb\n");
      return 2;
    }
  }
  if (i + 1 != argc) {
    fprintf(stderr, "usage: sbpl_check [--param NAME]... [--expect-shell-deny] FILE.sb\n");
    return 2;
  }
  file_name = argv[i];
  FILE *f = fopen(file_name, "rb");
  if (!f) {
    fprintf(stderr, "%s: error: %s\n", file_name, strerror(errno));
    return 2;
  }
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  if (memchr(text, '\0', n)) {
    fprintf(stderr, "%s: error: a NUL byte in a profile\n", file_name);
    return 1;
  }
  src = text;

  size_t forms = 0;
  bool deny_default = false, shell_deny = false;
  struct node *form;
  for (; (form = read_form()) != NULL; free_node(form)) {
    forms++;
    if (form->kind != N_LIST || !form->nkids || form->kids[0]->kind != N_SYMBOL) {
      error_at(form->line, form->col, "a top-level form must be (allow|deny|version ...)");
      continue;
    }
    const char *h = form->kids[0]->text;
    if (forms == 1) {
      if (!is_head(form, "version") || form->nkids != 2 || form->kids[1]->kind != N_SYMBOL ||
          strcmp(form->kids[1]->text, "1") != 0)
        error_at(form->line, form->col, "the first form must be (version 1)");
      continue;
    }
    if (strcmp(h, "allow") != 0 && strcmp(h, "deny") != 0) {
      error_at(form->line, form->col, "unknown top-level form '%s'", h);
      continue;
    }
    size_t k = 1;
    for (; k < form->nkids && form->kids[k]->kind == N_SYMBOL; k++) {
      const char *op = form->kids[k]->text;
      if (!in_list(op, known_ops))
        error_at(form->kids[k]->line, form->kids[k]->col, "unknown operation '%s'", op);
      else if (!strcmp(op, "default") && !strcmp(h, "allow"))
        error_at(form->kids[k]->line, form->kids[k]->col, "(allow default): not deny by default");
      else if (!strcmp(op, "default")) {
        if (deny_default)
          error_at(form->line, form->col, "a second (deny default)");
        deny_default = true;
      }
    }
    if (k == 1)
      error_at(form->line, form->col, "(%s) names no operation", h);
    if (!strcmp(h, "allow") && !deny_default)
      error_at(form->line, form->col, "an allow before (deny default)");
    for (; k < form->nkids; k++) {
      if (form->kids[k]->kind == N_SYMBOL)
        error_at(form->kids[k]->line, form->kids[k]->col, "operation '%s' after a filter",
                 form->kids[k]->text);
      else
        check_filter(form->kids[k]);
    }
    shell_deny |= denies_every_shell(form);
  }
  if (!forms)
    error_at(1, 1, "empty profile");
  else if (!deny_default)
    error_at(1, 1, "no (deny default)");
  if (expect_shell_deny && !shell_deny)
    error_at(1, 1, "no (deny process-exec (regex ...)) naming every shell");
  if (!errors)
    printf("%s: %zu forms, deny by default, every operation and filter known\n", file_name, forms);
  return errors ? 1 : 0;
}
