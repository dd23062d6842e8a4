#!/usr/bin/env python3
"""approvals_socket: `sbx run --approver socket:PATH` against a scripted host
application (JSON lines): allow, deny, a reply with another id, garbage,
a closed connection, silence; and what the request carries."""
import json, os, shutil, socket, subprocess, sys, tempfile, threading

SBX = os.environ["SBX"]
# sbx's --approval-timeout: what a silent application meets. Seconds, not
# one: connecting and sending the request must fit in it on a loaded
# machine (at 1 s the request of the silent case sometimes never arrived).
APPROVAL_TIMEOUT_S = 4

def serve(path, mode, seen, listening):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    # Ready only now: the name exists from bind() on, and a connect before
    # listen() is refused (sbx then denies without sending anything).
    listening.set()
    srv.settimeout(20)
    try:
        conn, _ = srv.accept()
    except OSError:
        return
    with conn:
        line = conn.makefile("rb").readline()
        req = json.loads(line)
        seen.append(req)
        rid = req["id"]
        if mode == "allow":
            conn.sendall(json.dumps({"id": rid + 7, "decision": "deny"}).encode() + b"\n")
            conn.sendall(json.dumps({"id": rid, "decision": "allow"}).encode() + b"\n")
        elif mode == "deny":
            conn.sendall(json.dumps({"id": rid, "decision": "deny", "reason": "ui said no"}).encode() + b"\n")
        elif mode == "wrongid":
            conn.sendall(json.dumps({"id": rid + 1, "decision": "allow"}).encode() + b"\n")
            threading.Event().wait(2)
        elif mode == "garbage":
            conn.sendall(b"ok!\n")
        elif mode == "silent":
            # Longer than sbx's approval timeout below: sbx gives up first.
            threading.Event().wait(APPROVAL_TIMEOUT_S + 3)
        # "close": nothing
    srv.close()

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

d = tempfile.mkdtemp(prefix="approvals_sock.")
try:
    ws = os.path.join(d, "ws")
    os.mkdir(ws)
    for mode, want in [("allow", 0), ("deny", 125), ("wrongid", 125), ("garbage", 125),
                       ("close", 125), ("silent", 125)]:
        victim = os.path.join(ws, "a")
        open(victim, "w").close()
        path = os.path.join(d, mode + ".sock")
        seen = []
        listening = threading.Event()
        t = threading.Thread(target=serve, args=(path, mode, seen, listening))
        t.start()
        if not listening.wait(20):
            fail(f"{mode}: the test's application never listened")
        p = subprocess.run([SBX, "run", "--profile", "standard", "--workspace", ws,
                            "--approver", "socket:" + path, "--approval-timeout",
                            str(APPROVAL_TIMEOUT_S),
                            "--", "rm", victim], capture_output=True, text=True)
        t.join()
        if p.returncode != want or os.path.exists(victim) != (want != 0):
            fail(f"{mode}: exit {p.returncode}, file {'kept' if os.path.exists(victim) else 'gone'}: {p.stderr}")
        if not seen:
            fail(f"{mode}: no request arrived")
        r = seen[0]
        if (r["type"], r["operation"], r["command"], r["profile"], r["layer"]) != \
                ("request", "delete", ["rm", victim], "standard", "command"):
            fail(f"{mode}: request {r}")
        print(f"{mode}: exit {p.returncode}")
    # No application listening: deny.
    victim = os.path.join(ws, "a")
    p = subprocess.run([SBX, "run", "--profile", "standard", "--workspace", ws, "--approver",
                        "socket:" + os.path.join(d, "nobody.sock"), "--", "rm", victim],
                       capture_output=True, text=True)
    if p.returncode != 125 or "unreachable" not in p.stderr:
        fail(f"no listener: exit {p.returncode}: {p.stderr}")
    print("PASS")
finally:
    shutil.rmtree(d)
