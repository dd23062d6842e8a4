#!/usr/bin/env bash
# Who may ask the server for a run (docs/threat-model.md, "sbx serve"): a
# process of the server's uid is not enough. A command inside a cold
# permissive sandbox (uid 0, no capabilities, its own namespaces) must not
# get a run outside its sandbox: (1) the server's directory is masked in
# its full-root view; (2) a client without CAP_SYS_ADMIN, (3) in another
# mount or (4) pid namespace, or (5) under a seccomp filter of its own, is
# dropped by the server without a reply.
# The state directory is outside /tmp here: a sandbox's own /tmp would hide
# it anyway, and the view must hide it by itself.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
[[ $(id -u) == 0 ]] || skip "needs root"
command -v setpriv >/dev/null && command -v unshare >/dev/null || skip "no setpriv/unshare"
rm -rf "$SBX_STATE_DIR"
export SBX_STATE_DIR=$(mktemp -d /var/tmp/sbx-warm-peer.XXXXXX)
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T" "$SBX_STATE_DIR"' EXIT
warm_start || exit 1
client="$SBX_SRC/tests/warm/client.py"

# Baseline: the server answers a client that may ask.
out=$(python3 "$client" "$WARM_SOCK" strict "$WS")
[[ $out == reply* ]] && pass "a privileged client in our namespaces gets a reply ($out)" ||
  fail "baseline client: $out"

# (1) From inside a cold permissive sandbox.
cp "$client" "$WS/client.py"
run_sbx run --cold --approver none --profile permissive -- \
  /usr/bin/python3 "$WS/client.py" "$WARM_SOCK" standard "$WS"
expect_rc 0 "the client ran in the permissive sandbox"
[[ $OUT == no-connect:* || $OUT == closed* ]] && pass "sandboxed client got nothing ($OUT)" ||
  fail "a sandboxed command reached the server: $OUT"
[[ $OUT == no-connect:* ]] && pass "the server's directory is masked in the view" ||
  fail "the server's socket is visible in a full-root view: $OUT"

# (1b) A sandbox whose view was built before the server started: the
# directory did not exist before sbx run (which makes it), and is masked.
warm_stop
rm -rf "$SBX_STATE_DIR/serve-$(id -u)"
"$SBX" run --cold --approver none --profile permissive -- /usr/bin/python3 -c \
  "import time, subprocess; time.sleep(1.5); print(subprocess.run(['/usr/bin/python3', '$WS/client.py', '$WARM_SOCK', 'strict', '$WS'], capture_output=True, text=True).stdout.strip())" \
  >"$T/early.out" 2>"$T/early.err" &
early=$!
sleep 0.3
warm_start || exit 1
wait "$early"
out=$(cat "$T/early.out")
[[ $out == no-connect:* ]] && pass "a sandbox older than the server cannot reach it ($out)" ||
  fail "a sandbox older than the server: $out $(cat "$T/early.err")"

# (2)-(4) Reaching the socket anyway: the server's own check.
out=$(setpriv --inh-caps=-all --bounding-set=-all python3 "$client" "$WARM_SOCK" strict "$WS")
[[ $out == closed* ]] && pass "client without capabilities dropped" || fail "no caps: $out"
out=$(unshare --mount python3 "$client" "$WARM_SOCK" strict "$WS")
[[ $out == closed* ]] && pass "client in another mount namespace dropped" || fail "mnt ns: $out"
out=$(unshare --pid --fork python3 "$client" "$WARM_SOCK" strict "$WS")
[[ $out == closed* ]] && pass "client in another pid namespace dropped" || fail "pid ns: $out"
# (5) A caller under a seccomp filter of its own (here an allow-everything
# one): a cold run would keep it under the profile's, a warm one would not.
out=$(python3 - "$client" "$WARM_SOCK" strict "$WS" <<'PY'
import ctypes, runpy, struct, sys
# struct sock_filter {u16 code; u8 jt, jf; u32 k}: one BPF_RET|BPF_K
# returning SECCOMP_RET_ALLOW; struct sock_fprog {u16 len; filter *}.
insn = ctypes.create_string_buffer(struct.pack("=HBBI", 0x06, 0, 0, 0x7fff0000), 8)
prog = struct.pack("=HxxxxxxQ", 1, ctypes.addressof(insn))
libc = ctypes.CDLL(None, use_errno=True)
# prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog): root with CAP_SYS_ADMIN
# needs no no_new_privs (which would not be what is checked here).
if libc.prctl(22, 2, ctypes.c_char_p(prog), 0, 0) != 0:
    print("setup-failed", ctypes.get_errno()); sys.exit(0)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
PY
)
[[ $out == closed* ]] && pass "client under a seccomp filter dropped" || fail "seccomp filter: $out"
grep -q "no CAP_SYS_ADMIN" "$T/serve.log" && grep -q "ns/mnt is not the server" "$T/serve.log" &&
  grep -q "ns/pid is not the server" "$T/serve.log" &&
  grep -q "runs under a seccomp filter" "$T/serve.log" && pass "server logged why" ||
  fail "server log: $(cat "$T/serve.log")"
[[ $(warm_count "started warm") == 0 ]] && pass "nothing started" ||
  fail "a run started: $(cat "$T/serve.log")"
finish
