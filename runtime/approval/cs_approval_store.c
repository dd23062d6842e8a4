/* cs_approval_store: standing ("always") grants in a JSON file
 *   {"version": 1, "next_id": N,
 *    "grants": [{"id": 1, "operation": "delete", "prefix": "make",
 *                "created": "2026-11-29T10:00:00Z"}]}
 * The file grants rights, so it is trusted only when it is a regular file
 * owned by the effective user with no group or other permission bits, and
 * not reached through a symlink: anything else is -EACCES and no grant
 * in it is used. Updates take an flock on PATH.lock, write PATH.tmp.PID
 * (0600) and rename it over PATH, so readers see the old or the new file,
 * never half of one. */

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cs_approval_internal.h"

#define CS_STORE_MAX_BYTES (1u << 20)

int cs_approval_store_default(char *buf, size_t len)
{
  const char *x = getenv("XDG_CONFIG_HOME");
  const char *home = getenv("HOME");
  int n;

  if (x && x[0] == '/')
    n = snprintf(buf, len, "%s/commander/approvals.json", x);
  else if (home && home[0] == '/')
    n = snprintf(buf, len, "%s/.config/commander/approvals.json", home);
  else
    return -ENOENT;
  return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Loads the store; a missing file is an empty store (*root a fresh
 * object). -EACCES when the file is not safe to trust. */
static int cs_store_load(const char *path, json_t **root)
{
  struct stat st;
  json_error_t jerr;
  json_t *o = NULL;
  char *text = NULL;
  ssize_t n;
  int fd, r = 0;

  *root = NULL;
  fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) {
    o = json_pack("{s:i, s:i, s:[]}", "version", 1, "next_id", 1, "grants");
    if (!o)
      return -ENOMEM;
    *root = o;
    return 0;
  }
  if (fd < 0)
    return errno == ELOOP ? -EACCES : -errno;
  if (fstat(fd, &st) != 0) {
    r = -errno;
    goto cleanup;
  }
  /* Whoever can write this file can approve anything for us; whoever can
   * read it learns what we trust. */
  if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
      st.st_size > CS_STORE_MAX_BYTES) {
    r = -EACCES;
    goto cleanup;
  }
  text = malloc((size_t)st.st_size + 1);
  if (!text) {
    r = -ENOMEM;
    goto cleanup;
  }
  n = read(fd, text, (size_t)st.st_size);
  if (n != st.st_size) {
    r = n < 0 ? -errno : -EPROTO;
    goto cleanup;
  }
  text[n] = '\0';
  o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
  if (!o || !json_is_object(o) || json_integer_value(json_object_get(o, "version")) != 1 ||
      !json_is_array(json_object_get(o, "grants")) ||
      !json_is_integer(json_object_get(o, "next_id"))) {
    json_decref(o);
    o = NULL;
    r = -EPROTO;
    goto cleanup;
  }
  *root = o;
cleanup:
  free(text);
  close(fd);
  return r;
}

static int cs_store_save(const char *path, json_t *root)
{
  char tmp[PATH_MAX];
  char *text = NULL;
  size_t len;
  int fd = -1, r = 0;

  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= sizeof tmp)
    return -ENAMETOOLONG;
  text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  if (!text)
    return -ENOMEM;
  len = strlen(text);
  unlink(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    r = -errno;
    goto cleanup;
  }
  if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
    r = errno ? -errno : -EIO;
    goto cleanup;
  }
  if (close(fd) != 0) {
    fd = -1;
    r = -errno;
    goto cleanup;
  }
  fd = -1;
  if (rename(tmp, path) != 0)
    r = -errno;
cleanup:
  if (fd >= 0)
    close(fd);
  if (r != 0)
    unlink(tmp);
  free(text);
  return r;
}

/* Serialises writers; the lock file itself carries no data. */
static int cs_store_lock(const char *path)
{
  char lk[PATH_MAX];
  int fd;
  if ((size_t)snprintf(lk, sizeof lk, "%s.lock", path) >= sizeof lk)
    return -ENAMETOOLONG;
  fd = open(lk, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return -errno;
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) {
      int e = -errno;
      close(fd);
      return e;
    }
  return fd;
}

/* The directory of the default store is created 0700 on first save. */
static void cs_store_mkdir(const char *path)
{
  char dir[PATH_MAX];
  char *slash;
  snprintf(dir, sizeof dir, "%s", path);
  slash = strrchr(dir, '/');
  if (!slash || slash == dir)
    return;
  *slash = '\0';
  if (mkdir(dir, 0700) != 0 && errno == ENOENT) {
    char *up = strrchr(dir, '/');
    if (up && up != dir) {
      *up = '\0';
      mkdir(dir, 0700);
      *up = '/';
      mkdir(dir, 0700);
    }
  }
}

int cs_approval_store_find(const char *path, enum cs_approval_operation op, const char *prefix,
                           uint64_t *id)
{
  json_t *root, *g;
  size_t i;
  int r = cs_store_load(path, &root);

  if (r != 0)
    return r;
  r = -ENOENT;
  json_array_foreach(json_object_get(root, "grants"), i, g)
  {
    const char *o = json_string_value(json_object_get(g, "operation"));
    const char *p = json_string_value(json_object_get(g, "prefix"));
    if (o && p && strcmp(o, cs_approval_op_name(op)) == 0 && strcmp(p, prefix) == 0) {
      *id = (uint64_t)json_integer_value(json_object_get(g, "id"));
      r = 0;
      break;
    }
  }
  json_decref(root);
  return r;
}

int cs_approval_store_add(const char *path, enum cs_approval_operation op, const char *prefix)
{
  json_t *root = NULL, *g;
  char when[32];
  time_t now = time(NULL);
  struct tm tm;
  json_int_t id;
  uint64_t old;
  int lk, r;

  cs_store_mkdir(path);
  lk = cs_store_lock(path);
  if (lk < 0)
    return lk;
  r = cs_store_load(path, &root);
  if (r != 0)
    goto cleanup;
  if (cs_approval_store_find(path, op, prefix, &old) == 0)
    goto cleanup;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  id = json_integer_value(json_object_get(root, "next_id"));
  g = json_pack("{s:I, s:s, s:s, s:s}", "id", id, "operation", cs_approval_op_name(op), "prefix",
                prefix, "created", when);
  if (!g || json_array_append_new(json_object_get(root, "grants"), g) != 0 ||
      json_object_set_new(root, "next_id", json_integer(id + 1)) != 0) {
    r = -ENOMEM;
    goto cleanup;
  }
  r = cs_store_save(path, root);
cleanup:
  json_decref(root);
  close(lk);
  return r;
}

int cs_approval_store_list(const char *path, FILE *out)
{
  json_t *root, *g;
  size_t i;
  int r = cs_store_load(path, &root);

  if (r != 0)
    return r;
  fprintf(out, "%-6s %-11s %-21s %s\n", "ID", "OPERATION", "CREATED", "COMMAND PREFIX");
  json_array_foreach(json_object_get(root, "grants"), i, g)
  {
    /* The prefix is the words of a command the sandboxed agent chose, and
     * this goes to the terminal: escaped as the prompt escapes. */
    char op[64], created[64], prefix[4 * CS_APPROVAL_PREFIX_MAX];
    cs_approval_escape(json_string_value(json_object_get(g, "operation")) ?: "?", op, sizeof op);
    cs_approval_escape(json_string_value(json_object_get(g, "created")) ?: "?", created,
                       sizeof created);
    cs_approval_escape(json_string_value(json_object_get(g, "prefix")) ?: "?", prefix,
                       sizeof prefix);
    fprintf(out, "%-6lld %-11s %-21s %s\n", (long long)json_integer_value(json_object_get(g, "id")),
            op, created, prefix);
  }
  json_decref(root);
  return 0;
}

static int cs_store_edit(const char *path, bool all, uint64_t id)
{
  json_t *root = NULL, *grants;
  size_t i;
  int lk, r;
  bool found = false;

  lk = cs_store_lock(path);
  if (lk < 0)
    return lk;
  r = cs_store_load(path, &root);
  if (r != 0)
    goto cleanup;
  grants = json_object_get(root, "grants");
  for (i = json_array_size(grants); i-- > 0;) {
    json_t *g = json_array_get(grants, i);
    if (all || (uint64_t)json_integer_value(json_object_get(g, "id")) == id) {
      json_array_remove(grants, i);
      found = true;
    }
  }
  if (!all && !found) {
    r = -ENOENT;
    goto cleanup;
  }
  r = cs_store_save(path, root);
cleanup:
  json_decref(root);
  close(lk);
  return r;
}

int cs_approval_store_revoke(const char *path, uint64_t id)
{
  return cs_store_edit(path, false, id);
}

int cs_approval_store_clear(const char *path)
{
  return cs_store_edit(path, true, 0);
}
