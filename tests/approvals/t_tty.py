#!/usr/bin/env python3
"""approvals_tty: the interactive approver, on a real pseudo-terminal that
is sbx's controlling terminal: y allows, n denies, silence times out,
EOF denies, and control characters in a path cannot rewrite the prompt."""
import os, pty, select, shutil, sys, tempfile, time

SBX = os.environ["SBX"]

def run(ws, argv, answer, timeout="5"):
    """Runs sbx on a new pty; answers after the prompt. Returns (status, text)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(SBX, [SBX, "run", "--profile", "standard", "--workspace", ws,
                       "--approver", "tty", "--approval-timeout", timeout, "--"] + argv)
    out = b""
    answered = False
    deadline = time.time() + 30
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not answered and b"Allow?" in out:
            answered = True
            if answer == "EOF":
                os.write(fd, b"\x04")
            elif answer is not None:
                os.write(fd, answer.encode())
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

ws = tempfile.mkdtemp(prefix="approvals_tty.")
try:
    victim = os.path.join(ws, "a")
    open(victim, "w").close()
    code, out = run(ws, ["rm", victim], "n\n")
    if code != 125 or not os.path.exists(victim):
        fail(f"'n' did not deny (exit {code}): {out}")
    if "command: rm " + victim not in out or "builtin rule 'rm' (delete)" not in out:
        fail("prompt lacks the command or the rule: " + out)
    code, out = run(ws, ["rm", victim], None, timeout="0.5")
    if code != 125 or not os.path.exists(victim) or "no answer" not in out:
        fail(f"silence did not deny (exit {code}): {out}")
    code, out = run(ws, ["rm", victim], "EOF")
    if code != 125 or not os.path.exists(victim):
        fail(f"EOF did not deny (exit {code}): {out}")
    code, out = run(ws, ["rm", victim], "y\n")
    if code != 0 or os.path.exists(victim):
        fail(f"'y' did not allow (exit {code}): {out}")
    # An escape sequence in a name is shown, not obeyed.
    evil = os.path.join(ws, "b\x1b[2Jc")
    open(evil, "w").close()
    code, out = run(ws, ["rm", evil], "n\n")
    if "\x1b[2J" in out or "\\x1b[2J" not in out:
        fail("control characters reached the terminal: " + repr(out))
    print("PASS")
finally:
    shutil.rmtree(ws)
