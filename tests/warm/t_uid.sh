#!/usr/bin/env bash
# Another uid on either end. (1) A socket answering in our serve directory
# but owned by another user (uid 65534): sbx run refuses it before sending
# anything and runs cold. (2) A client of another uid reaching our server's
# socket: the server closes the connection without serving it.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
[[ $(id -u) == 0 ]] || skip "needs root to act as uid 65534"
command -v setpriv >/dev/null || skip "no setpriv"
chmod 0755 "$T"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
dir="$SBX_STATE_DIR/serve-0"
mkdir -p -m 0700 "$dir" # sbx run above made it already
chown 65534:65534 "$dir"
chmod 0755 "$SBX_STATE_DIR"
as_nobody /usr/bin/python3 - "$dir/serve.sock" "$dir/fake.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1]); s.listen(4); s.settimeout(20)
c, _ = s.accept(); c.settimeout(2)
try:
    data = c.recv(65536)
except Exception:
    data = b""
open(sys.argv[2], "w").write("got %d bytes\n" % len(data))
PY
fake=$!
wait_for 60 test -S "$dir/serve.sock"
run_sbx run -v --profile strict -- true
expect_rc 0 "runs with another user's server in the way"
expect_err "start-up: cold \(.*uid 65534.*refused" "another uid's server refused"
wait "$fake"
[[ $(cat "$dir/fake.log" 2>/dev/null) == "got 0 bytes" ]] && pass "nothing sent to it" ||
  fail "the other user's server got: $(cat "$dir/fake.log" 2>/dev/null)"
rm -rf "$dir"
chmod 0700 "$SBX_STATE_DIR"

# (2) our server; its directory opened up so that uid 65534 can connect.
source "$SBX_SRC/tests/warm/serve.sh"
trap 'warm_stop; rm -rf "$T"' EXIT
warm_start || exit 1
chmod 0711 "$SBX_STATE_DIR" "$dir"
chmod 0777 "$WARM_SOCK"
reply=$(as_nobody /usr/bin/python3 - "$WARM_SOCK" <<'PY'
import socket, sys
c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    c.connect(sys.argv[1])
    c.settimeout(3)
    c.send(b"sbxw" + b"\0" * 60)
    print("reply %d bytes" % len(c.recv(4096)))
except Exception as e:
    print("refused: %s" % type(e).__name__)
PY
)
chmod 0700 "$SBX_STATE_DIR" "$dir"
[[ $reply == "reply 0 bytes" || $reply == refused:* ]] && pass "another uid's client got nothing ($reply)" ||
  fail "another uid's client: $reply"
grep -q "refused a client of uid 65534" "$T/serve.log" && pass "server logged the refusal" ||
  fail "server log: $(cat "$T/serve.log")"
finish
