#!/usr/bin/env python3
"""exec_server: `sbx exec-server`, JSON-RPC 2.0 on stdio (docs/exec-protocol.md).

Concurrent processes, output in seq order per stream, stdin written live
and closed, terminate, a closed connection killing its processes (with its
control: the same process runs to its end while the connection is open),
malformed lines (-32700, -32600, -32601, -32602 with the exec error object),
and the limits (processes per connection, line length).
Exit 77 when this kernel cannot run a sandbox at all.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

SBX = os.environ["SBX"]
fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def check(cond, name, detail=""):
    if cond:
        print("ok: " + name)
    else:
        fail(name + (": " + str(detail) if detail else ""))


tmp = tempfile.mkdtemp(prefix="exec-server-test.")
ws = os.path.join(tmp, "ws")
os.makedirs(ws)
os.environ["SBX_STATE_DIR"] = os.path.join(tmp, "state")
os.mkdir(os.environ["SBX_STATE_DIR"], 0o700)
for k in ("COMMANDER_SECURITY_PROFILE", "SBX_AUDIT_LOG"):
    os.environ.pop(k, None)


class Server:
    def __init__(self, host=("--approver", "none")):
        self.p = subprocess.Popen([SBX, "exec-server", "--workspace", ws] + list(host),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ws)
        self.buf = b""
        self.seen = []  # every message, in order
        self.next_id = 100

    def send_raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def call_async(self, method, params=None):
        self.next_id += 1
        m = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            m["params"] = params
        self.send_raw(json.dumps(m).encode() + b"\n")
        return self.next_id

    def read(self, timeout=30):
        """The next message, or None at the deadline or end of file."""
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        m = json.loads(line)
        self.seen.append(m)
        return m

    def wait_for(self, pred, timeout=60):
        for m in self.seen:
            if pred(m):
                return m
        end = time.time() + timeout
        while time.time() < end:
            m = self.read(end - time.time())
            if m is None:
                return None
            if pred(m):
                return m
        return None

    def call(self, method, params=None):
        i = self.call_async(method, params)
        return self.wait_for(lambda m: m.get("id") == i and "method" not in m)

    def start(self, req):
        r = self.call("process/start", req)
        return r["result"]["id"] if r and "result" in r else None

    def exited(self, pid, timeout=60):
        return self.wait_for(lambda m: m.get("method") == "process/exited" and
                             m["params"]["id"] == pid, timeout)

    def output(self, pid, stream):
        chunks = [m["params"] for m in self.seen if m.get("method") == "process/output" and
                  m["params"]["id"] == pid and m["params"]["stream"] == stream]
        return chunks, b"".join(base64.b64decode(c["data"]) for c in chunks)

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        return self.p.wait(timeout=30)


PY = "python3"

s = Server()
init = s.call("initialize", {"protocolVersion": 1})
check(init and init["result"]["protocolVersion"] == 1 and
      init["result"]["capabilities"]["maxProcesses"] == 16, "initialize", init)

# The sandbox must work here at all.
pid = s.start({"argv": ["true"]})
ex = s.exited(pid) if pid else None
if not ex or not ex["params"]["result"] or ex["params"]["result"]["sbx_exit"] != 0:
    msg = json.dumps(ex)
    if any(k in msg for k in ("not supported by this kernel", "user namespace", "landlock")):
        print("SKIP: " + msg)
        s.close()
        shutil.rmtree(tmp)
        sys.exit(77)
    fail("a plain run fails: %s" % msg)

# ---- stdin written live, output streamed, the result ------------------------
pid = s.start({"argv": [PY, "-c", "import sys\nfor l in sys.stdin: print(l.strip().upper(), "
                        "flush=True)\nsys.stderr.write('bye')\nsys.exit(3)"],
               "stdin": {"text": "first\n"}})
w = s.call("process/write", {"id": pid, "data": base64.b64encode(b"second\n").decode()})
check(w and w.get("result", {}).get("written") == 7, "process/write", w)
# The command answers the first line before stdin is closed: live, not at the end.
got = s.wait_for(lambda m: m.get("method") == "process/output" and m["params"]["id"] == pid)
check(got is not None, "output arrives while the process runs")
s.call("process/closeStdin", {"id": pid})
ex = s.exited(pid)
res = ex["params"]["result"] if ex else None
_, out = s.output(pid, "stdout")
_, err = s.output(pid, "stderr")
check(out == b"FIRST\nSECOND\n", "stdout streamed in order", out)
check(err == b"bye", "stderr streamed", err)
check(res and res["exit_code"] == 3 and res["outcome"] == "exited" and
      res["stdout"]["data"] == "" and res["stdout"]["bytes"] == 0, "result as sbx exec's", res)
after = s.call("process/write", {"id": pid, "data": "eA=="})
check(after and after["error"]["code"] == -32602, "an ended process is gone", after)

# ---- concurrent processes, seq per stream ----------------------------------
pids = [s.start({"argv": [PY, "-c", "import sys,time\nfor i in range(200): "
                          "print('%d-%%05d' %% i, flush=True)\n" % k]}) for k in range(4)]
check(all(pids) and len(set(pids)) == 4, "four processes at once", pids)
for k, p in enumerate(pids):
    s.exited(p)
    chunks, out = s.output(p, "stdout")
    seqs = [c["seq"] for c in chunks]
    check(seqs == list(range(len(seqs))), "seq 0.. in order for process %d" % k, seqs)
    want = "".join("%d-%05d\n" % (k, i) for i in range(200)).encode()
    check(out == want, "process %d's output whole and its own" % k, out[:80])

# ---- terminate --------------------------------------------------------------
pid = s.start({"argv": ["sleep", "60"]})
t0 = time.time()
s.call("process/terminate", {"id": pid})
ex = s.exited(pid, timeout=20)
res = (ex["params"]["result"] or {}) if ex else {}
# Either the run was interrupted (sbx's handler ran) or the child's sbx was
# ended by the signal before its run began (no result then, the signal said).
check(ex and (res.get("outcome") == "interrupted" or "signal" in ex["params"]) and
      time.time() - t0 < 15, "terminate", ex)

# ---- malformed lines --------------------------------------------------------
s.send_raw(b"not json\n")
m = s.wait_for(lambda m: m.get("error", {}).get("code") == -32700)
check(m is not None and m["id"] is None, "bad JSON: -32700", m)
s.send_raw(b'{"id":7,"method":"initialize"}\n')
m = s.wait_for(lambda m: m.get("id") == 7)
check(m and m["error"]["code"] == -32600, "no jsonrpc 2.0: -32600", m)
m = s.call("process/fly")
check(m and m["error"]["code"] == -32601, "unknown method: -32601", m)
m = s.call("process/start", {"argv": "ls -l"})
check(m and m["error"]["code"] == -32602 and m["error"]["data"]["code"] == "wrong_type" and
      m["error"]["data"]["field"] == "argv", "bad exec request: -32602 with its error", m)
m = s.call("process/start", {"argv": ["true"], "timeuot": 5})
check(m and m["error"]["data"]["code"] == "unknown_field", "unknown field refused", m)
m = s.call("process/start", {"argv": ["true"],
                             "stdin": {"base64": base64.b64encode(b"x" * 65537).decode()}})
check(m and m["error"]["code"] == -32602 and m["error"]["data"]["field"] == "stdin",
      "stdin above 64 KiB in process/start: refused", m)
m = s.call("process/start", {"argv": [PY, "-c", "import sys; print(len(sys.stdin.read()))"],
                             "stdin": {"base64": base64.b64encode(b"x" * 65536).decode()}})
if m and "result" in m:  # the pipe stays open for process/write until closed
    s.call("process/closeStdin", {"id": m["result"]["id"]})
ex = s.exited(m["result"]["id"]) if m and "result" in m else None
check(ex is not None and s.output(m["result"]["id"], "stdout")[1] == b"65536\n",
      "control: 64 KiB of stdin in process/start, whole", m)
m = s.call("process/write", {"id": 99999, "data": "eA=="})
check(m and m["error"]["code"] == -32602, "unknown process: -32602", m)

# ---- limits -----------------------------------------------------------------
s.send_raw(b"[" * (25 * 1024 * 1024) + b"\n")
m = s.wait_for(lambda m: m.get("error", {}).get("message") == "line too long")
check(m is not None, "a line past the bound is refused", m)
m = s.call("initialize")
check(m and "result" in m, "the connection goes on after a long line", m)
many = [s.start({"argv": ["sleep", "60"]}) for _ in range(16)]
over = s.call("process/start", {"argv": ["sleep", "60"]})
check(all(many) and over and over.get("error", {}).get("code") == -32000,
      "16 processes, the 17th refused", over)
for p in many:
    s.call("process/terminate", {"id": p})
for p in many:
    s.exited(p)
check(s.close() == 0, "server ends at end of input")

# ---- approvals over the connection ------------------------------------------
# No --approver: the server asks the client (approval/request) and relays
# the answer; rm under standard asks (docs/approvals.md).
victim = os.path.join(ws, "victim")


def ask(answer, host=()):
    open(victim, "w").close()
    srv = Server(host=("--approval-timeout", "2") + tuple(host))
    i = srv.call("initialize")
    pid = srv.start({"argv": ["rm", victim], "profile": "standard", "run_id": "step-1"})
    q = srv.wait_for(lambda m: m.get("method") == "approval/request", timeout=20)
    if q is not None and answer is not None:
        srv.send_raw(json.dumps({"jsonrpc": "2.0", "id": q["id"],
                                 "result": answer}).encode() + b"\n")
    ex = srv.exited(pid)
    srv.close()
    return i, q, (ex["params"]["result"] or {}) if ex else {}


i, q, res = ask({"decision": "allow", "scope": "once", "reason": "host says yes"})
check(i["result"]["capabilities"]["approvals"] is True, "approvals capability", i)
qp = q["params"] if q else {}
check(q and qp.get("operation") == "delete" and qp.get("run_id") == "step-1" and
      qp.get("path") == os.path.realpath(victim) and
      isinstance(qp.get("id"), int) and isinstance(qp.get("approval"), int),
      "approval/request with the request's fields", q)
check(res.get("exit_code") == 0 and not os.path.exists(victim) and
      res["approvals"][0]["decision"] == "allow" and
      res["approvals"][0]["reason"].endswith("host says yes"), "allowed: rm ran", res)
i, q, res = ask({"decision": "deny", "reason": "host says no"})
check(q and os.path.exists(victim) and res.get("outcome") == "not_run" and
      res["approvals"][0]["decision"] == "deny", "denied: rm did not run", res)
i, q, res = ask(None)
check(q and os.path.exists(victim) and res.get("outcome") == "not_run",
      "no answer in time: denied", res)
i, q, res = ask({"decision": "yes please"})
check(q and os.path.exists(victim) and res.get("outcome") == "not_run",
      "a malformed answer: denied", res)
i, q, res = ask(None, host=("--approver", "none"))
check(q is None and os.path.exists(victim) and res.get("outcome") == "not_run" and
      i["result"]["capabilities"]["approvals"] is False,
      "the host's --approver none: nobody asked, denied", res)

# ---- a closed connection kills its processes (and its control) --------------
# The workspace is read-only under strict, so the process is found by its
# argv in /proc: a sleep of a length nothing else uses.
MARK = "%d.%03d" % (400 + os.getpid() % 500, os.getpid() % 1000)


def running():
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if f.read().split(b"\0")[:2] == [b"sleep", MARK.encode()]:
                    return True
        except OSError:
            pass
    return False


def wait_until(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


s = Server()
s.call("initialize")
s.start({"argv": ["sleep", MARK]})
check(wait_until(running, 20), "control: it runs while the connection is open")
time.sleep(1)
check(running(), "control: it still runs a second later")
s.close()
check(wait_until(lambda: not running(), 10), "a closed connection kills its processes")

# ---- --socket PATH: a unix socket in a directory only the user can enter ---
import socket  # noqa: E402

sdir = os.path.join(tmp, "sock")
os.mkdir(sdir, 0o755)
spath = os.path.join(sdir, "exec.sock")
bad = subprocess.run([SBX, "exec-server", "--socket", spath, "--approver", "none"],
                     stderr=subprocess.PIPE, timeout=30)
check(bad.returncode == 125 and b"mode 0700" in bad.stderr and not os.path.exists(spath),
      "--socket in a directory others can enter: refused", bad.stderr)
os.chmod(sdir, 0o700)
srv = subprocess.Popen([SBX, "exec-server", "--socket", spath, "--workspace", ws,
                        "--approver", "none"])
check(wait_until(lambda: os.path.exists(spath), 20), "--socket listens")
check(os.path.exists(spath) and (os.stat(spath).st_mode & 0o077) == 0, "the socket is 0600 or less")


def sock_session(lines):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(spath)
    f = c.makefile("rwb")
    for ln in lines:
        f.write(json.dumps(ln).encode() + b"\n")
    f.flush()
    return c, f


c1, f1 = sock_session([{"jsonrpc": "2.0", "id": 1, "method": "initialize"},
                       {"jsonrpc": "2.0", "id": 2, "method": "process/start",
                        "params": {"argv": ["python3", "-c", "print('via socket')"]}}])
msgs = []
while not any(m.get("method") == "process/exited" for m in msgs):
    line = f1.readline()
    if not line:
        break
    msgs.append(json.loads(line))
outs = b"".join(base64.b64decode(m["params"]["data"]) for m in msgs
                if m.get("method") == "process/output")
check(outs == b"via socket\n", "a run over the socket", msgs)
f1.close()
c1.close()
c2, f2 = sock_session([{"jsonrpc": "2.0", "id": 1, "method": "initialize"},
                       {"jsonrpc": "2.0", "id": 2, "method": "process/start",
                        "params": {"argv": ["sleep", MARK]}}])
check(wait_until(running, 20), "control: a socket connection's process runs while it is open")
f2.close()
c2.close()
check(wait_until(lambda: not running(), 10), "a closed socket connection kills its processes")
srv.terminate()
srv.wait(timeout=30)

shutil.rmtree(tmp)
print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
