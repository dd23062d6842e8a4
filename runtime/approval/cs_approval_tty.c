/* cs_approval_tty: the interactive approver, a prompt on sbx's own
 * controlling terminal (/dev/tty, opened per request; never the
 * sandbox's stdin, which the sandboxed command may feed). Answers: y
 * (once), s (this command prefix, this session), a (always), anything
 * else, end of input or the timeout: deny.
 *
 * The terminal is shared with the sandboxed command (its stdout and
 * stderr may be the same terminal), so three things keep the prompt
 * honest (docs/approvals.md, "The terminal prompt"):
 *   - a guard (cs_approver_tty_guarded; sbx freezes the run's cgroup)
 *     makes sure nothing of the sandbox runs while the question is on the
 *     screen: it can neither draw a fake prompt over the real one nor
 *     read or inject what the person types. No guard, or a guard that
 *     cannot hold: the question is not asked (deny).
 *   - before drawing, the terminal is brought to a known state: output
 *     restarted (tcflow), sane line settings, any half-written escape
 *     sequence cancelled, attributes reset, a fresh line, the rest of
 *     the screen cleared. Output the sandbox wrote just before the
 *     freeze cannot hide or disguise the prompt.
 *   - every field the sandbox could choose (command words, path,
 *     address, rule, profile) is shown with everything outside printable
 *     ASCII escaped, and a long field is shortened visibly, never cut:
 *     what the person reads is what will be done. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cs_approval_internal.h"

/* A field whose escaped form is longer than this is shortened: its start
 * (CS_TTY_HEAD characters) and its final path component (always whole)
 * or, without one, its last CS_TTY_HEAD characters stay visible, with
 * a mark that says how many bytes are not shown and how long it is. */
#define CS_TTY_FIELD_MAX 480u
#define CS_TTY_HEAD 160u
#define CS_TTY_MAX_ARGS 32u /* command words shown; the rest are counted */
/* Longer than any file name escaped (NAME_MAX 255 bytes, 4 characters
 * each at worst): a "final component" longer than this is not a name. */
#define CS_TTY_NAME_MAX 1024u

/* Cancels whatever the sandbox may have left half-written or switched on
 * (CAN ends an escape or control sequence, ESC \ a string such as an OSC
 * or DCS that would swallow the prompt), then: soft reset (DECSTR),
 * synchronized output off, attributes off (no concealed or same-colour
 * text), ASCII character set (G0, SI), cursor visible, autowrap on, a
 * fresh line and the rest of the screen cleared, so the prompt starts
 * on an empty line whatever was drawn below the cursor. */
static const char cs_tty_reset[] = "\x18\x1b\\\x1b[!p\x1b[?2026l\x1b[0m\x1b(B\x0f\x1b[?25h"
                                   "\x1b[?7h\r\n\x1b[J";

struct cs_tty_text {
  char *p;
  size_t n, cap;
  bool oom;
};

static void cs_tty_add(struct cs_tty_text *t, const char *s, size_t n)
{
  if (t->oom)
    return;
  if (t->n + n + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 1024;
    char *grown;
    while (cap < t->n + n + 1)
      cap *= 2;
    grown = realloc(t->p, cap);
    if (!grown) {
      t->oom = true;
      return;
    }
    t->p = grown;
    t->cap = cap;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
  t->p[t->n] = '\0';
}

/* The prompt's own text (layout newlines included) goes out as it is. */
static void cs_tty_raw(struct cs_tty_text *t, const char *s)
{
  cs_tty_add(t, s, strlen(s));
}

/* Length of the UTF-8 sequence at s (at most n bytes) and its code point,
 * or 0 when the bytes are not well-formed UTF-8 (overlong, surrogate,
 * beyond U+10FFFF, truncated). */
static size_t cs_tty_utf8(const unsigned char *s, size_t n, unsigned long *cp)
{
  size_t len;
  unsigned long c, min;
  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    len = 2, c = s[0] & 0x1f, min = 0x80;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    len = 3, c = s[0] & 0x0f, min = 0x800;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    len = 4, c = s[0] & 0x07, min = 0x10000;
  else
    return 0;
  if (len > n)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    c = (c << 6) | (s[i] & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0;
  *cp = c;
  return len;
}

/* One character of a field: printable ASCII as it is (a backslash
 * doubled, so that an escape in the output always means an escape); a
 * well-formed UTF-8 character as \u{XXXX}, whatever it is (C1 controls
 * U+0080-U+009F, the bidirectional overrides and isolates U+202A-U+202E
 * and U+2066-U+2069, zero-width and other invisible characters are all
 * non-ASCII: none reaches the terminal); every other byte (C0 controls,
 * DEL, C1 as single bytes 0x80-0x9f, any byte that is not part of
 * well-formed UTF-8) as \xHH. Returns the bytes of s consumed; *out gets
 * the text (at most 11 characters and a NUL). */
static size_t cs_tty_escape_one(const unsigned char *s, size_t n, char out[16])
{
  unsigned long cp;
  size_t len;
  if (s[0] == '\\') {
    snprintf(out, 16, "\\\\");
    return 1;
  }
  if (s[0] >= 0x20 && s[0] <= 0x7e) {
    out[0] = (char)s[0];
    out[1] = '\0';
    return 1;
  }
  if (s[0] >= 0x80 && (len = cs_tty_utf8(s, n, &cp)) != 0) {
    snprintf(out, 16, "\\u{%04lx}", cp);
    return len;
  }
  snprintf(out, 16, "\\x%02x", s[0]);
  return 1;
}

/* Escaped width of s[from, to). */
static size_t cs_tty_width(const unsigned char *s, size_t from, size_t to)
{
  char one[16];
  size_t w = 0;
  for (size_t i = from; i < to;) {
    i += cs_tty_escape_one(s + i, to - i, one);
    w += strlen(one);
  }
  return w;
}

static void cs_tty_escaped(struct cs_tty_text *t, const unsigned char *s, size_t from, size_t to)
{
  char one[16];
  for (size_t i = from; i < to;) {
    i += cs_tty_escape_one(s + i, to - i, one);
    cs_tty_raw(t, one);
  }
}

void cs_approval_escape(const char *in, char *out, size_t out_len)
{
  const unsigned char *s = (const unsigned char *)(in ? in : "");
  size_t len = strlen((const char *)s), n = 0;
  char one[16];
  if (!out || out_len == 0)
    return;
  out[0] = '\0';
  for (size_t i = 0; i < len;) {
    size_t k = cs_tty_escape_one(s + i, len - i, one), w = strlen(one);
    /* Room for this character and for a mark saying the rest is cut. */
    if (n + w + 4 > out_len && i + k < len) {
      snprintf(out + n, out_len - n, "%s", n + 4 <= out_len ? "..." : "");
      return;
    }
    if (n + w + 1 > out_len)
      return;
    memcpy(out + n, one, w + 1);
    n += w;
    i += k;
  }
}

/* A field chosen by the sandbox, escaped, shortened visibly when long. */
static void cs_tty_field(struct cs_tty_text *t, const char *text)
{
  const unsigned char *s = (const unsigned char *)text;
  size_t len = strlen(text), head = 0, tail, w = 0, slash;
  char mark[96], one[16];

  if (cs_tty_width(s, 0, len) <= CS_TTY_FIELD_MAX) {
    cs_tty_escaped(t, s, 0, len);
    return;
  }
  /* The head: whole characters up to CS_TTY_HEAD escaped characters. */
  while (head < len) {
    size_t k = cs_tty_escape_one(s + head, len - head, one);
    if (w + strlen(one) > CS_TTY_HEAD)
      break;
    w += strlen(one);
    head += k;
  }
  /* The tail: the final path component, whole (trailing slashes kept
   * with it), since that is the name acted on; without a '/' in the
   * rest, the last CS_TTY_HEAD characters. */
  slash = len;
  while (slash > head && s[slash - 1] == '/')
    slash--;
  while (slash > head && s[slash - 1] != '/')
    slash--;
  if (slash > head && s[slash - 1] == '/' && cs_tty_width(s, slash - 1, len) <= CS_TTY_NAME_MAX) {
    tail = slash - 1; /* show the '/' that starts the final component */
  } else {
    tail = head;
    w = cs_tty_width(s, tail, len);
    while (tail < len && w > CS_TTY_HEAD) {
      size_t k = cs_tty_escape_one(s + tail, len - tail, one);
      w -= strlen(one);
      tail += k;
    }
  }
  cs_tty_escaped(t, s, 0, head);
  snprintf(mark, sizeof mark, "[...%zu of %zu bytes not shown...]", tail - head, len);
  cs_tty_raw(t, mark);
  cs_tty_escaped(t, s, tail, len);
}

/* A resolved path as the person should read it: relative to the
 * workspace when it lies inside (that is where the command works; true is
 * returned), else absolute and marked so. */
static bool cs_tty_path(struct cs_tty_text *t, const char *path, const char *workspace)
{
  size_t wl = workspace ? strlen(workspace) : 0;
  while (wl > 1 && workspace[wl - 1] == '/')
    wl--;
  if (wl > 1 && strncmp(path, workspace, wl) == 0 && (path[wl] == '/' || path[wl] == '\0')) {
    const char *rel = path[wl] == '/' ? path + wl + 1 : path + wl;
    cs_tty_field(t, rel[0] ? rel : ".");
    return true;
  }
  cs_tty_field(t, path);
  if (workspace)
    cs_tty_raw(t, "   (outside the workspace)");
  return false;
}

static void cs_tty_in_workspace(struct cs_tty_text *t, const char *workspace)
{
  cs_tty_raw(t, "\n           (relative to the workspace ");
  cs_tty_field(t, workspace);
  cs_tty_raw(t, ")");
}

static void cs_tty_prompt(struct cs_tty_text *t, const struct cs_approval_request *req,
                          unsigned timeout_ms)
{
  char num[64];
  size_t argc = 0;
  bool relative = false;

  cs_tty_raw(t, cs_tty_reset);
  cs_tty_raw(t, "sbx: approval needed: ");
  cs_tty_field(t, cs_approval_op_name(req->operation));
  cs_tty_raw(t, " (");
  cs_tty_field(t, req->layer ? req->layer : "?");
  cs_tty_raw(t, " level, profile ");
  cs_tty_field(t, req->profile ? req->profile : "?");
  cs_tty_raw(t, ")\n  command:");
  while (req->argv && req->argv[argc])
    argc++;
  for (size_t i = 0; i < argc && i < CS_TTY_MAX_ARGS; i++) {
    cs_tty_raw(t, " ");
    cs_tty_field(t, req->argv[i]);
  }
  if (argc > CS_TTY_MAX_ARGS) {
    snprintf(num, sizeof num, " [...%zu more arguments not shown...]", argc - CS_TTY_MAX_ARGS);
    cs_tty_raw(t, num);
  }
  /* A command-layer deletion's path is the first of its targets, which
   * follow: shown once. */
  if (req->path && !req->targets) {
    cs_tty_raw(t, "\n  path:    ");
    if (cs_tty_path(t, req->path, req->workspace))
      cs_tty_in_workspace(t, req->workspace);
  }
  for (size_t i = 0; req->targets && req->targets[i]; i++) {
    if (i == CS_TTY_MAX_ARGS) {
      size_t more = 0;
      while (req->targets[i + more])
        more++;
      snprintf(num, sizeof num, "\n  [...%zu more targets not shown...]", more);
      cs_tty_raw(t, num);
      break;
    }
    cs_tty_raw(t, "\n  target:  ");
    relative |= cs_tty_path(t, req->targets[i], req->workspace);
  }
  if (relative)
    cs_tty_in_workspace(t, req->workspace);
  if (req->address) {
    cs_tty_raw(t, "\n  address: ");
    cs_tty_field(t, req->address);
  }
  cs_tty_raw(t, "\n  rule:    ");
  cs_tty_field(t, req->rule ? req->rule : "?");
  snprintf(num, sizeof num, "%u", timeout_ms / 1000);
  cs_tty_raw(t, "\nAllow? [y]es once, [s]ession, [a]lways, anything else denies (");
  cs_tty_raw(t, num);
  cs_tty_raw(t, " s): ");
}

static void cs_tty_write_all(int fd, const char *s, size_t n)
{
  while (n > 0) {
    ssize_t k = write(fd, s, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return;
    s += k;
    n -= (size_t)k;
  }
}

/* The line settings the question needs, whatever the sandbox set:
 * canonical input with echo (the person sees what they type, Enter ends
 * the line), CR read as NL, output post-processing. The old settings are
 * restored afterwards. */
static void cs_tty_sane(int fd, struct termios *saved, bool *have_saved)
{
  struct termios t;
  *have_saved = tcgetattr(fd, saved) == 0;
  if (!*have_saved)
    return;
  t = *saved;
  t.c_iflag |= ICRNL;
  t.c_iflag &= ~(tcflag_t)(INLCR | IGNCR | IXOFF);
  t.c_oflag |= OPOST | ONLCR;
  t.c_lflag |= ICANON | ECHO | ECHOE | ECHOK;
  t.c_lflag &= ~(tcflag_t)(ECHONL | NOFLSH | TOSTOP);
  t.c_cc[VEOF] = 4;
  (void)tcsetattr(fd, TCSANOW, &t);
}

static int cs_tty_decide(void *ctx, const struct cs_approval_request *req, unsigned timeout_ms,
                         struct cs_approval_decision *d)
{
  const struct cs_tty_guard *guard = ctx;
  uint64_t deadline = cs_approval_now_ms() + timeout_ms;
  struct cs_tty_text text = { 0 };
  struct termios saved;
  bool have_saved = false, held = false;
  char line[16];
  size_t got = 0;
  int fd = -1, r = -ETIMEDOUT;

  snprintf(d->approver, sizeof d->approver, "tty");
  /* Nothing of the sandbox may run while the question is on the screen:
   * without a guard that holds, the question is not asked. */
  if (!guard || !guard->hold) {
    snprintf(d->reason, sizeof d->reason,
             "the terminal is shared with the sandbox and nothing stops it while asking: "
             "not asked (fail closed)");
    return -EPERM;
  }
  r = guard->hold(guard->arg, d->reason, sizeof d->reason);
  if (r != 0)
    return r < 0 ? r : -EPERM;
  held = true;
  r = -ETIMEDOUT;
  fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    r = -errno;
    snprintf(d->reason, sizeof d->reason, "no controlling terminal to ask on (%s)",
             strerror(errno));
    goto out;
  }
  /* Output suspended (tcflow TCOOFF, or an XOFF) would keep the real
   * prompt off the screen while a fake one waits for the answer. */
  (void)tcflow(fd, TCOON);
  cs_tty_sane(fd, &saved, &have_saved);
  (void)tcflush(fd, TCIFLUSH); /* type-ahead is not an answer to this question */
  cs_tty_prompt(&text, req, timeout_ms);
  if (text.oom) {
    r = -ENOMEM;
    snprintf(d->reason, sizeof d->reason, "no memory to draw the prompt");
    goto out;
  }
  cs_tty_write_all(fd, text.p, text.n);
  for (;;) {
    uint64_t now = cs_approval_now_ms();
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (now >= deadline)
      break;
    int n = poll(&p, 1, (int)(deadline - now));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    ssize_t rd = read(fd, line + got, sizeof line - 1 - got);
    if (rd <= 0) {
      r = -EPIPE;
      break;
    }
    got += (size_t)rd;
    line[got] = '\0';
    if (strchr(line, '\n') || got == sizeof line - 1) {
      r = 0;
      break;
    }
  }
  if (r != 0) {
    cs_tty_write_all(fd, "\nsbx: no answer: denied\n", 24);
    snprintf(d->reason, sizeof d->reason,
             r == -ETIMEDOUT ? "no answer on the terminal within %u ms" : "terminal closed",
             timeout_ms);
    goto out;
  }
  d->allow = true;
  if (strcmp(line, "y\n") == 0 || strcmp(line, "yes\n") == 0)
    d->scope = CS_APPROVAL_ONCE;
  else if (strcmp(line, "s\n") == 0)
    d->scope = CS_APPROVAL_SESSION;
  else if (strcmp(line, "a\n") == 0)
    d->scope = CS_APPROVAL_ALWAYS;
  else
    d->allow = false;
  snprintf(d->reason, sizeof d->reason, "answered %s on the terminal", d->allow ? "allow" : "deny");
out:
  if (fd >= 0) {
    if (have_saved)
      (void)tcsetattr(fd, TCSANOW, &saved);
    close(fd);
  }
  free(text.p);
  if (held && guard->release)
    guard->release(guard->arg);
  return r;
}

static void cs_tty_destroy(void *ctx)
{
  free(ctx);
}

int cs_approver_tty_guarded(const struct cs_tty_guard *guard, struct cs_approver *out)
{
  struct cs_tty_guard *g;
  if (!out)
    return -EINVAL;
  memset(out, 0, sizeof *out);
  if (!guard || !guard->hold)
    return -EINVAL;
  g = malloc(sizeof *g);
  if (!g)
    return -ENOMEM;
  *g = *guard;
  out->kind = "tty";
  out->decide = cs_tty_decide;
  out->destroy = cs_tty_destroy;
  out->ctx = g;
  return 0;
}

/* Nothing to stop: the caller says no sandboxed process shares the
 * terminal while it asks (the command layer, before anything runs; an
 * embedder without a sandbox). */
static int cs_tty_unshared(void *arg, char *why, size_t why_len)
{
  (void)arg;
  (void)why;
  (void)why_len;
  return 0;
}

int cs_approver_tty(struct cs_approver *out)
{
  const struct cs_tty_guard unshared = { .hold = cs_tty_unshared };
  return cs_approver_tty_guarded(&unshared, out);
}
