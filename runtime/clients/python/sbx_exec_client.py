"""sbx_exec_client: a Python 3 client of `sbx exec-server` (docs/exec-protocol.md).

Standard library only. One Client per connection (a child `sbx exec-server`
on pipes); a reader thread takes the server's lines apart: replies go to
the call that waits for them, output to each process's callbacks, approval
requests to the client's approver callback, whose answer is sent back.

    from sbx_exec_client import Client
    with Client(["sbx", "exec-server", "--workspace", ws]) as c:
        p = c.start({"argv": ["python3", "-c", "print(input().upper())"]},
                    on_output=lambda stream, data: print(stream, data))
        p.write(b"hi\\n")
        p.close_stdin()
        result = p.wait()          # sbx exec's result object
"""
import base64
import json
import subprocess
import threading


class RpcError(Exception):
    """An error response: code, message and data as the server sent them."""

    def __init__(self, error):
        super().__init__("%s: %s" % (error.get("code"), error.get("message")))
        self.code = error.get("code")
        self.data = error.get("data")


class Process:
    """One process/start: its output, stdin and the result."""

    def __init__(self, client, pid, on_output):
        self.client, self.id, self.on_output = client, pid, on_output
        self.stdout, self.stderr = bytearray(), bytearray()
        self._next_seq = {"stdout": 0, "stderr": 0}
        self._done = threading.Event()
        self.exited = None  # process/exited's params

    def _output(self, params):
        stream = params["stream"]
        # seq counts per stream from 0: a gap would be output lost.
        if params["seq"] != self._next_seq[stream]:
            raise RuntimeError("output seq %d, expected %d" % (params["seq"],
                                                              self._next_seq[stream]))
        self._next_seq[stream] += 1
        data = base64.b64decode(params["data"])
        (self.stdout if stream == "stdout" else self.stderr).extend(data)
        if self.on_output:
            self.on_output(stream, data)

    def write(self, data):
        """Writes bytes to the command's stdin; returns how many were taken."""
        r = self.client.call("process/write",
                             {"id": self.id, "data": base64.b64encode(data).decode()})
        return r["written"]

    def close_stdin(self):
        self.client.call("process/closeStdin", {"id": self.id})

    def terminate(self):
        self.client.call("process/terminate", {"id": self.id})

    def wait(self, timeout=None):
        """The result object of sbx exec (None when the run gave none)."""
        if not self._done.wait(timeout):
            raise TimeoutError("process %d still running" % self.id)
        return self.exited.get("result")


class Client:
    """A connection to `sbx exec-server`; approver(params) -> reply dict answers
    approval/request (none given: every request is denied)."""

    def __init__(self, argv, approver=None):
        self.approver = approver
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._lock = threading.Lock()
        self._next_id = 0
        self._waiting = {}
        self._processes = {}
        self._early = {}  # notifications of an id not yet returned by process/start
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.server_info = self.call("initialize", {"protocolVersion": 1})

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, msg):
        msg["jsonrpc"] = "2.0"
        line = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()

    def call(self, method, params=None):
        """Sends a request and waits for its reply; raises RpcError on an error."""
        ev, box = threading.Event(), {}
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            self._waiting[rid] = (ev, box)
        msg = {"id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        ev.wait()
        if "error" in box:
            raise RpcError(box["error"])
        return box.get("result")

    def start(self, request, on_output=None):
        """process/start with sbx exec's request object; returns a Process."""
        r = self.call("process/start", request)
        p = Process(self, r["id"], on_output)
        # What came before process/start's reply is delivered first, under
        # the lock, so the reader's later chunks cannot overtake it.
        with self._lock:
            self._processes[p.id] = p
            for m in self._early.pop(p.id, []):
                self._deliver(p, m)
        return p

    @staticmethod
    def _deliver(p, m):
        if m["method"] == "process/output":
            p._output(m["params"])
        elif m["method"] == "process/exited":
            p.exited = m["params"]
            p._done.set()

    def _notify(self, m):
        params = m["params"]
        with self._lock:
            p = self._processes.get(params["id"])
            if p is None:
                self._early.setdefault(params["id"], []).append(m)
                return
        self._deliver(p, m)

    def _approve(self, m):
        try:
            reply = self.approver(m["params"]) if self.approver else None
        except Exception:  # an approver that fails denies
            reply = None
        if not isinstance(reply, dict):
            reply = {"decision": "deny", "reason": "the client has no answer"}
        self._send({"id": m["id"], "result": reply})

    def _read(self):
        for line in self.proc.stdout:
            m = json.loads(line)
            if m.get("method") == "approval/request":
                # Answered on its own thread: an approver may take its time
                # while output and other replies go on.
                threading.Thread(target=self._approve, args=(m,), daemon=True).start()
            elif "method" in m:
                self._notify(m)
            else:
                with self._lock:
                    ev, box = self._waiting.pop(m.get("id"), (None, None))
                if ev:
                    box.update(m)
                    ev.set()
        with self._lock:  # the server is gone: nobody waits for ever
            for ev, box in self._waiting.values():
                box["error"] = {"code": -32603, "message": "connection closed"}
                ev.set()
            self._waiting.clear()

    def close(self):
        """Ends the connection; the server kills what still runs."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        return self.proc.wait()
