/* k8s: a profile as a Kubernetes Pod and NetworkPolicy (YAML)
 * (docs/platforms.md, "Kubernetes").
 *
 * The scale-out path: the cluster places and runs the job, the profile
 * confines it. The Pod runs as a non-root user with a read-only root file
 * system, no capabilities, no privilege escalation, the profile's OCI
 * seccomp filter as a Localhost profile (and the legacy annotations, which
 * podman 4.3's `kube play` reads; it resolves only a file directly in its
 * profile root, hence one flat name), its memory limit and its wall-clock
 * deadline; the workspace is a volume, read-only unless the profile
 * writes it. A profile without network gets a NetworkPolicy that denies
 * all egress and ingress; a proxied one may reach only the egress proxy
 * pods (NetworkPolicy has no names: they are the proxy's job). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "platform_emit.h"
#include "platform_policy.h"
#include "c_text.h"

/* The uid and gid of `nobody` on Debian and most images: owns nothing. */
#define K8S_RUN_AS 65534
/* Where the proxy of a proxied profile listens (a Service of the user's;
 * pods carrying the label below). */
#define K8S_PROXY_PORT 3128
#define K8S_PROXY_LABEL "commander-sandbox/egress-proxy"
#define K8S_NAME_MAX 40 /* room for "-job", "-deny-network" within 63 */

/* Comment text: one line, nothing else. */
static void k8s_comment(FILE *out, const char *s)
{
  (void)text_c_comment(out, s);
}

/* A DNS label from the profile name: lower case, [a-z0-9-], no leading or
 * trailing '-', at most K8S_NAME_MAX bytes (a profile name is an
 * identifier, so this only lowers case and turns '_' into '-'). */
static void k8s_label(char *buf, const char *name)
{
  size_t n = 0;
  for (const char *c = name; *c && n < K8S_NAME_MAX; c++) {
    char l = (char)tolower((unsigned char)*c);
    buf[n++] = isalnum((unsigned char)l) ? l : '-';
  }
  while (n && buf[n - 1] == '-')
    n--;
  buf[n] = '\0';
}

static void k8s_warnings(const struct pol_profile *p)
{
  const char *n = p->name;
  diag_warning(&p->loc,
               "profile '%s': the CPU-time, process, open-file and file-size limits are not "
               "expressed (Kubernetes limits a CPU rate, and process counts per node)",
               n);
  diag_warning(&p->loc,
               "profile '%s': paths outside the workspace are the image's; the root file system "
               "is read-only, but reads and execution are not restricted by path",
               n);
  if (p->shell == CS_SHELL_NONE)
    diag_warning(&p->loc,
                 "profile '%s': allowShell = none is the image's to keep: use one without shells",
                 n);
  if (p->n_home_ro || p->n_home_persist)
    diag_warning(&p->loc, "profile '%s': the home entries are not mounted", n);
  if (p->allow_network && p->net_mode == CS_NET_PROXY)
    diag_warning(p->net_mode_origin ? &p->net_mode_loc : &p->loc,
                 "profile '%s': NetworkPolicy cannot filter by name; egress goes only to the pods "
                 "labelled %s, which must enforce the %zu allow rules",
                 n, K8S_PROXY_LABEL, p->n_net_allow);
  if (p->approval_ops || p->n_cmd_rules)
    diag_warning(&p->loc, "profile '%s': approvals and command rules are not expressed", n);
}

static void k8s_banner(FILE *out, const struct platform_input *in, const char *label)
{
  const struct pol_profile *p = in->profile;
  platform_banner(out, in,
                  !p->allow_network || p->net_mode == CS_NET_PROXY
                      ? "Kubernetes Pod and NetworkPolicy"
                      : "Kubernetes Pod",
                  "k8s", "# ", k8s_comment);
  fprintf(out,
          "#\n# The seccomp profile, on every node under the kubelet's seccomp directory\n"
          "# (podman kube play: --seccomp-profile-root DIR):\n"
          "#   pnetc --emit oci --profile %s -o DIR/commander-sandbox-%s.json POLICY.pol\n"
          "# Replace the image and the command; the workspace is the claim\n"
          "# commander-workspace. What this manifest does not enforce: docs/platforms.md.\n",
          label, label);
}

static void k8s_seccomp_ref(FILE *out, const char *indent, const char *label)
{
  fprintf(out,
          "%sseccompProfile:\n%s  type: Localhost\n%s  localhostProfile: "
          "commander-sandbox-%s.json\n",
          indent, indent, indent, label);
}

static void k8s_pod(FILE *out, const struct pol_profile *p, const char *label)
{
  bool ws_read = platform_grants(p, "${WORKSPACE}", CS_PATH_READ);
  bool ws_write = platform_workspace_writable(p);
  /* A read-only root needs a writable /tmp only when the profile writes
   * there; otherwise /tmp stays as read-only as the rest. */
  bool tmp_write = platform_grants(p, "/tmp", CS_PATH_WRITE);
  bool proxied = p->allow_network && p->net_mode == CS_NET_PROXY;
  /* The wall clock in whole seconds, rounded up (a deadline of 0 would
   * mean none): Kubernetes kills the pod when it passes. */
  unsigned long long deadline = (unsigned long long)((p->limits.max_execution_ms + 999) / 1000);
  if (!deadline)
    deadline = 1;

  fprintf(out,
          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: commander-%s\n  labels:\n"
          "    app.kubernetes.io/managed-by: pnetc\n    commander-sandbox/profile: %s\n"
          "  annotations:\n"
          "    seccomp.security.alpha.kubernetes.io/pod: localhost/commander-sandbox-%s.json\n"
          "    container.seccomp.security.alpha.kubernetes.io/job: "
          "localhost/commander-sandbox-%s.json\n",
          label, label, label, label);
  fprintf(out,
          "spec:\n  restartPolicy: Never\n  activeDeadlineSeconds: %llu\n"
          "  automountServiceAccountToken: false\n  enableServiceLinks: false\n"
          "  hostNetwork: false\n  hostPID: false\n  hostIPC: false\n"
          "  securityContext:\n    runAsNonRoot: true\n    runAsUser: %d\n    runAsGroup: %d\n",
          deadline, K8S_RUN_AS, K8S_RUN_AS);
  k8s_seccomp_ref(out, "    ", label);
  fputs("  containers:\n  - name: job\n    image: localhost/commander-sandbox-job:latest\n"
        "    command: [\"/bin/true\"]\n",
        out);
  if (ws_read)
    fputs("    workingDir: /workspace\n", out);
  if (proxied)
    fprintf(out,
            "    env:\n    - name: HTTPS_PROXY\n      value: \"http://EGRESS_PROXY_IP:%d\"\n"
            "    - name: HTTP_PROXY\n      value: \"http://EGRESS_PROXY_IP:%d\"\n",
            K8S_PROXY_PORT, K8S_PROXY_PORT);
  fputs("    securityContext:\n      runAsNonRoot: true\n      privileged: false\n"
        "      allowPrivilegeEscalation: false\n      readOnlyRootFilesystem: true\n"
        "      capabilities:\n        drop: [\"ALL\"]\n",
        out);
  k8s_seccomp_ref(out, "      ", label);
  /* Bytes, exact: the same figure as RLIMIT_AS, but for the whole pod. */
  fprintf(out,
          "    resources:\n      limits:\n        memory: \"%llu\"\n      requests:\n"
          "        memory: \"%llu\"\n",
          (unsigned long long)p->limits.max_memory_bytes,
          (unsigned long long)p->limits.max_memory_bytes);
  if (ws_read || tmp_write) {
    fputs("    volumeMounts:\n", out);
    if (ws_read)
      fprintf(out, "    - name: workspace\n      mountPath: /workspace\n      readOnly: %s\n",
              ws_write ? "false" : "true");
    if (tmp_write)
      fputs("    - name: tmp\n      mountPath: /tmp\n", out);
    fputs("  volumes:\n", out);
    if (ws_read)
      fprintf(out,
              "  - name: workspace\n    persistentVolumeClaim:\n      claimName: "
              "commander-workspace\n      readOnly: %s\n",
              ws_write ? "false" : "true");
    if (tmp_write)
      fputs("  - name: tmp\n    emptyDir: {}\n", out);
  }
}

static void k8s_network_policy(FILE *out, const struct pol_profile *p, const char *label)
{
  if (p->allow_network && p->net_mode == CS_NET_DIRECT) {
    fputs("# network: direct, as the profile says; no NetworkPolicy\n", out);
    return;
  }
  fprintf(out,
          "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n"
          "  name: commander-%s-network\n  labels:\n    app.kubernetes.io/managed-by: pnetc\n"
          "spec:\n  podSelector:\n    matchLabels:\n      commander-sandbox/profile: %s\n"
          "  policyTypes: [\"Ingress\", \"Egress\"]\n  ingress: []\n",
          label, label);
  if (!p->allow_network) {
    /* Selected, with no egress rule: every connection out is refused. */
    fputs("  egress: []\n", out);
    return;
  }
  /* No DNS either: the proxy resolves names (as sbx's does), so the job
   * has no resolver to tunnel through. */
  fprintf(out,
          "  egress:\n  - to:\n    - podSelector:\n        matchLabels:\n"
          "          %s: \"true\"\n    ports:\n    - protocol: TCP\n      port: %d\n",
          K8S_PROXY_LABEL, K8S_PROXY_PORT);
  fputs("# the egress proxy must enforce, by name:\n", out);
  for (size_t i = 0; i < p->n_net_allow; i++) {
    fputs("#   allow ", out);
    k8s_comment(out, p->net_allow[i].pattern);
    fputc('\n', out);
  }
  for (size_t i = 0; i < p->n_net_deny; i++) {
    fputs("#   deny  ", out);
    k8s_comment(out, p->net_deny[i].pattern);
    fputc('\n', out);
  }
  fprintf(out, "#   rest  %s\n", p->net_rest == CS_NET_REST_ASK ? "ask" : "deny");
}

int emit_k8s(FILE *out, const struct platform_input *in)
{
  const struct pol_profile *p = in->profile;
  char label[K8S_NAME_MAX + 1];
  k8s_label(label, p->name);
  if (!label[0]) {
    diag_error(&p->loc, "profile '%s': no Kubernetes name can be made of it", p->name);
    return -EINVAL;
  }
  int rc = platform_workspace_refusals(p, "Kubernetes", "manifest", "volume");
  if (rc)
    return rc;
  k8s_warnings(p);
  k8s_banner(out, in, label);
  k8s_pod(out, p, label);
  k8s_network_policy(out, p, label);
  return text_stream_status(out);
}
