/* wsb_check: validates a Windows Sandbox configuration as XML with libxml2
 * and against the shape of the .wsb format (docs/platforms.md, "Tests"):
 *
 *   - well-formed XML (libxml2, no network, no entity expansion), root
 *     <Configuration>, only the elements Microsoft documents for .wsb, each
 *     at most once, with their documented values;
 *   - every <MappedFolder> has a HostFolder, and ReadOnly true or false;
 *   - with --networking V: <Networking> is V; with --workspace ro|rw|none:
 *     the workspace is mapped read-only, writable, or not at all.
 *
 *   wsb_check [--networking Disable|Default] [--workspace ro|rw|none] FILE.wsb
 *
 * Exit 0 valid, 1 with a message per problem. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int errors;
static const char *file_name;

static void problem(const xmlNode *n, const char *what, const char *detail)
{
  fprintf(stderr, "%s:%ld: error: %s%s%s\n", file_name, n ? xmlGetLineNo(n) : 0L, what,
          detail ? ": " : "", detail ? detail : "");
  errors++;
}

/* The elements of a .wsb file and the values each may hold (NULL: any
 * text; "#count": a positive integer). */
struct wsb_element {
  const char *name;
  const char *values[4];
};
static const struct wsb_element elements[] = {
  { "VGpu", { "Enable", "Disable", "Default", NULL } },
  { "Networking", { "Enable", "Disable", "Default", NULL } },
  { "AudioInput", { "Enable", "Disable", "Default", NULL } },
  { "VideoInput", { "Enable", "Disable", "Default", NULL } },
  { "ProtectedClient", { "Enable", "Disable", "Default", NULL } },
  { "PrinterRedirection", { "Enable", "Disable", "Default", NULL } },
  { "ClipboardRedirection", { "Enable", "Disable", "Default", NULL } },
  { "MemoryInMB", { "#count", NULL } },
  { "MappedFolders", { NULL } },
  { "LogonCommand", { NULL } },
};

static const char *text_of(xmlNode *n)
{
  static char buf[4096];
  xmlChar *t = xmlNodeGetContent(n);
  snprintf(buf, sizeof buf, "%s", t ? (const char *)t : "");
  xmlFree(t);
  return buf;
}

static bool is_count(const char *s)
{
  if (!*s || *s == '0')
    return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return false;
  return true;
}

static xmlNode *child(xmlNode *n, const char *name)
{
  for (xmlNode *c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
      return c;
  return NULL;
}

/* Returns "ro", "rw" or "none" for the workspace mapping. */
static const char *check_folders(xmlNode *folders)
{
  const char *ws = "none";
  if (!folders)
    return ws;
  for (xmlNode *f = folders->children; f; f = f->next) {
    if (f->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp((const char *)f->name, "MappedFolder") != 0) {
      problem(f, "unexpected element in MappedFolders", (const char *)f->name);
      continue;
    }
    xmlNode *host = child(f, "HostFolder"), *ro = child(f, "ReadOnly");
    for (xmlNode *c = f->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "HostFolder") &&
          strcmp((const char *)c->name, "SandboxFolder") &&
          strcmp((const char *)c->name, "ReadOnly"))
        problem(c, "unexpected element in MappedFolder", (const char *)c->name);
    if (!host || !*text_of(host)) {
      problem(f, "MappedFolder without a HostFolder", NULL);
      continue;
    }
    bool is_ws = !strcmp(text_of(host), "${WORKSPACE}");
    if (!ro) {
      /* Absent ReadOnly means writable: pnetc always says which. */
      problem(f, "MappedFolder without ReadOnly", NULL);
      continue;
    }
    const char *v = text_of(ro);
    if (strcmp(v, "true") && strcmp(v, "false"))
      problem(ro, "ReadOnly must be true or false", v);
    else if (is_ws)
      ws = !strcmp(v, "true") ? "ro" : "rw";
  }
  return ws;
}

int main(int argc, char **argv)
{
  const char *want_net = NULL, *want_ws = NULL;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    if (!strcmp(argv[i], "--networking"))
      want_net = argv[i + 1];
    else if (!strcmp(argv[i], "--workspace"))
      want_ws = argv[i + 1];
    else
      break;
  }
  if (i + 1 != argc) {
    fprintf(stderr, "usage: wsb_check [--networking V] [--workspace ro|rw|none] FILE.wsb\n");
    return 2;
  }
  file_name = argv[i];
  /* No network, no entity substitution, no DTD loading: the file is
   * read as data, and any such construct is an error below. */
  xmlDoc *doc = xmlReadFile(file_name, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING);
  if (!doc) {
    fprintf(stderr, "%s: error: not well-formed XML (libxml2 refused it)\n", file_name);
    return 1;
  }
  if (doc->intSubset || doc->extSubset)
    problem(NULL, "a DOCTYPE has no place in a .wsb file", NULL);
  xmlNode *root = xmlDocGetRootElement(doc);
  if (!root || strcmp((const char *)root->name, "Configuration") != 0) {
    problem(root, "the root element must be Configuration", NULL);
    xmlFreeDoc(doc);
    return 1;
  }
  const char *net = "(absent)";
  unsigned seen[sizeof elements / sizeof elements[0]] = { 0 };
  for (xmlNode *c = root->children; c; c = c->next) {
    if (c->type == XML_TEXT_NODE || c->type == XML_COMMENT_NODE)
      continue;
    if (c->type != XML_ELEMENT_NODE) {
      problem(c, "unexpected node in Configuration", NULL);
      continue;
    }
    size_t k = 0;
    while (k < sizeof elements / sizeof elements[0] &&
           strcmp(elements[k].name, (const char *)c->name))
      k++;
    if (k == sizeof elements / sizeof elements[0]) {
      problem(c, "unknown element", (const char *)c->name);
      continue;
    }
    if (seen[k]++)
      problem(c, "element given twice", elements[k].name);
    const char *v = text_of(c);
    if (elements[k].values[0] && !strcmp(elements[k].values[0], "#count")) {
      if (!is_count(v))
        problem(c, "not a positive count", v);
    } else if (elements[k].values[0]) {
      bool ok = false;
      for (size_t j = 0; elements[k].values[j]; j++)
        ok |= !strcmp(v, elements[k].values[j]);
      if (!ok)
        problem(c, "value not allowed", v);
    }
    if (!strcmp(elements[k].name, "Networking"))
      net = v[0] ? (strcmp(v, "Disable") ? "Default" : "Disable") : net;
    if (!strcmp(elements[k].name, "LogonCommand") && !child(c, "Command"))
      problem(c, "LogonCommand without a Command", NULL);
  }
  char netbuf[32];
  snprintf(netbuf, sizeof netbuf, "%s", net);
  const char *ws = check_folders(child(root, "MappedFolders"));
  if (want_net && strcmp(want_net, netbuf) != 0)
    problem(child(root, "Networking"), "Networking is not what the profile needs", netbuf);
  if (want_ws && strcmp(want_ws, ws) != 0)
    problem(child(root, "MappedFolders"), "the workspace is not mapped as the profile says", ws);
  xmlFreeDoc(doc);
  xmlCleanupParser();
  if (!errors)
    printf("%s: valid .wsb, networking %s, workspace %s\n", file_name, netbuf, ws);
  return errors ? 1 : 0;
}
