#!/usr/bin/env python3
"""exec_client_python: the Python client against the real `sbx exec-server`.

Starts a process, streams its output, writes its stdin, answers an
approval (allow: the command ran; deny: it did not), terminates one, and
reads the results. Exit 77 when this kernel cannot run a sandbox at all.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sbx_exec_client import Client, RpcError  # noqa: E402

SBX = os.environ["SBX"]
fails = 0


def check(cond, name, detail=""):
    global fails
    print(("ok: " if cond else "FAIL: ") + name + ("" if cond else ": %s" % (detail,)))
    fails += 0 if cond else 1


tmp = tempfile.mkdtemp(prefix="exec-client-py.")
ws = os.path.join(tmp, "ws")
os.makedirs(ws)
os.environ["SBX_STATE_DIR"] = os.path.join(tmp, "state")
os.mkdir(os.environ["SBX_STATE_DIR"], 0o700)
for k in ("COMMANDER_SECURITY_PROFILE", "SBX_AUDIT_LOG"):
    os.environ.pop(k, None)
argv = [SBX, "exec-server", "--workspace", ws, "--approval-timeout", "10"]
asked = []


def approver(params):
    asked.append(params)
    return {"decision": "allow" if params["run_id"] == "yes" else "deny", "scope": "once"}


with Client(argv, approver=approver) as c:
    p = c.start({"argv": ["true"]})
    r = p.wait(60)
    if not r or r["sbx_exit"] != 0:
        msg = str(r)
        if any(s in msg for s in ("not supported by this kernel", "user namespace", "landlock")):
            print("SKIP: " + msg)
            sys.exit(77)
    check(r and r["sbx_exit"] == 0, "a plain run", r)

    chunks = []
    p = c.start({"argv": ["python3", "-c", "import sys\nfor l in sys.stdin: print(l.strip()[::-1], "
                          "flush=True)\nsys.exit(4)"]},
                on_output=lambda stream, data: chunks.append((stream, data)))
    check(p.write(b"abc\n") == 4, "write stdin")
    p.write(b"xyz\n")
    p.close_stdin()
    r = p.wait(60)
    check(bytes(p.stdout) == b"cba\nzyx\n" and chunks and chunks[0][0] == "stdout",
          "output streamed", (p.stdout, chunks))
    check(r["exit_code"] == 4 and r["stdout"]["data"] == "", "the result", r)

    victim = os.path.join(ws, "victim")
    for run_id, gone in (("yes", True), ("no", False)):
        open(victim, "w").close()
        r = c.start({"argv": ["rm", victim], "profile": "standard", "run_id": run_id}).wait(60)
        check(os.path.exists(victim) != gone and asked and asked[-1]["operation"] == "delete" and
              r["approvals"][0]["decision"] == ("allow" if gone else "deny"),
              "approval answered %s" % ("allow" if gone else "deny"), r)

    p = c.start({"argv": ["sleep", "60"]})
    p.terminate()
    p.wait(30)
    check(p.exited.get("signal") or (p.exited["result"] or {}).get("outcome") == "interrupted",
          "terminate", p.exited)

    try:
        c.start({"argv": "ls"})
        check(False, "a bad request raises")
    except RpcError as e:
        check(e.code == -32602 and e.data["code"] == "wrong_type", "a bad request raises", e.data)

shutil.rmtree(tmp)
print("%d failure(s)" % fails)
sys.exit(1 if fails else 0)
