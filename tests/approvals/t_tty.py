#!/usr/bin/env python3
"""approvals_tty: the interactive approver, on a real pseudo-terminal that
is sbx's controlling terminal: y allows, n denies, silence times out,
EOF denies, and what the prompt shows cannot be spoofed (issue 12, 6):

  - a path is shown as the call will act on it (resolved, relative to
    the workspace), a long field is shortened with a mark and keeps its
    final component; a `build/` + 600 x `./` + `../src/important.c`
    path is shown as src/important.c;
  - every byte outside printable ASCII in a field is escaped (C0, ESC,
    DEL, C1 as bytes and as UTF-8, bidi overrides); the prompt's own
    newlines are newlines;
  - the sandbox cannot write to the terminal while the prompt waits (the
    run is frozen), and what it wrote just before is reset.

Negative controls: the sandbox's own raw output in the same run shows the
byte checker would see unescaped bytes; SBX_TEST_TTY_NO_FREEZE=1 (a
test-only knob that skips the freeze) shows the writer does reach the
terminal while the prompt waits."""
import os, pty, select, shutil, subprocess, sys, tempfile, time

SBX = os.environ["SBX"]
# Which parts run (all by default): T_TTY_PARTS=2 checks one part alone,
# e.g. against an sbx that lacks the fix of another.
PARTS = os.environ.get("T_TTY_PARTS", "0123456")


def read_some(fd):
    """What the pty has within 0.1 s (b"" if nothing), None once it is closed."""
    r, _, _ = select.select([fd], [], [], 0.1)
    if not r:
        return b""
    try:
        return os.read(fd, 65536) or None
    except OSError:
        return None


def read_for(fd, seconds, until=None):
    """Reads the pty for up to `seconds`, or until `until` shows up."""
    got = b""
    end = time.time() + seconds
    while time.time() < end and not (until and until in got):
        chunk = read_some(fd)
        if chunk is None:
            break
        got += chunk
    return got


def run(ws, argv, answer, timeout="5", env=None, on_prompt=None, cwd=None, prefix=()):
    """Runs sbx on a new pty; answers after the prompt. on_prompt(out) is
    called once the prompt is complete and returns the output read while
    it waited (it may read more itself). Returns (status, bytes, index of
    the answer in the output or -1)."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            if cwd:
                os.chdir(cwd)
            cmd = list(prefix) + [SBX, "run", "--profile", "standard", "--workspace", ws,
                                  "--approver", "tty", "--approval-timeout", timeout, "--"]
            os.execvpe(cmd[0], cmd + argv, dict(os.environ, **(env or {})))
        finally:
            os._exit(127)
    out = b""
    answered_at = -1
    deadline = time.time() + 60
    while time.time() < deadline:
        chunk = read_some(fd)
        if chunk is None:
            break
        out += chunk
        if answered_at < 0 and b"Allow?" in out and out.rstrip().endswith(b"s):"):
            if on_prompt:
                out += on_prompt(fd)
            answered_at = len(out)
            if answer == "EOF":
                os.write(fd, b"\x04")
            elif answer is not None:
                os.write(fd, answer.encode())
    step(f"ran {argv[:2]}: {len(out)} bytes, answered at {answered_at}")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    # No cgroup v2 to freeze the run in: sbx rightly refuses to ask on the
    # terminal while the sandbox runs, and the parts that need a question
    # during the run cannot be tried here.
    if answered_at < 0 and b"cannot be frozen while asking" in out and not prefix:
        print("SKIP: the machine has no cgroup v2 hierarchy sbx can freeze a run in: "
              + out.decode(errors="replace").strip())
        sys.exit(77)
    return os.waitstatus_to_exitcode(status), out, answered_at


def step(msg):
    print("..", msg, file=sys.stderr, flush=True)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


RESET = b"\x18\x1b\\\x1b[!p\x1b[?2026l\x1b[0m\x1b(B\x0f\x1b[?25h\x1b[?7h\r\r\n\x1b[J"


def prompt_of(out):
    """The prompt as sbx drew it: after its reset sequence (part 4 checks
    that there is one) up to 'Allow? ...: '."""
    head = out.rfind(b"sbx: approval needed", 0, out.find(b"Allow?"))
    start = out.rfind(RESET, 0, head)
    start = start + len(RESET) if start >= 0 else head
    if head < 0:
        fail("no prompt: " + repr(out))
    return out[start:out.find(b"s): ", start) + 4]


def raw_bytes(text):
    """Bytes that could act on a terminal: outside printable ASCII, CR, LF."""
    return [b for b in text if not (0x20 <= b <= 0x7e or b in (0x0a, 0x0d))]




def part0(ws):
    # --- the basic answers (command layer: rm is asked before it runs) ---
    victim = os.path.join(ws, "a")
    open(victim, "w").close()
    code, out, _ = run(ws, ["rm", victim], "n\n")
    text = out.decode(errors="replace")
    if code != 125 or not os.path.exists(victim):
        fail(f"'n' did not deny (exit {code}): {text}")
    if "command: rm " + victim not in text or "builtin rule 'rm' (delete)" not in text:
        fail("prompt lacks the command or the rule: " + text)
    if "\\x0a" in text or "\n  command: rm" not in text:
        fail("the prompt's own newlines are not newlines: " + repr(text))
    code, out, _ = run(ws, ["rm", victim], None, timeout="0.5")
    if code != 125 or not os.path.exists(victim) or b"no answer" not in out:
        fail(f"silence did not deny (exit {code}): {out!r}")
    code, out, _ = run(ws, ["rm", victim], "EOF")
    if code != 125 or not os.path.exists(victim):
        fail(f"EOF did not deny (exit {code}): {out!r}")
    code, out, _ = run(ws, ["rm", victim], "y\n")
    if code != 0 or os.path.exists(victim):
        fail(f"'y' did not allow (exit {code}): {out!r}")


def part1(ws):
    # --- 1. the path shown is the path acted on, and never cut silently ---
    # `sh -c` hides the rm from the command layer: the system-call layer
    # asks about the unlinkat, with the path the call resolves to.
    os.makedirs(os.path.join(ws, "build"))
    os.makedirs(os.path.join(ws, "src"))
    important = os.path.join(ws, "src", "important.c")
    open(important, "w").close()
    sneaky = "build/" + "./" * 600 + "../src/important.c"
    code, out, _ = run(ws, ["sh", "-c", 'rm -f "$0"; echo "rm said $?"', sneaky], "n\n",
                       cwd=ws)
    p = prompt_of(out).decode()
    if not os.path.exists(important):
        fail("src/important.c was deleted on 'n': " + p)
    if "\n  path:    src/important.c\r\n           (relative to the workspace " + ws + ")" not in p:
        fail("the path line does not name the real target src/important.c: " + p)
    # The command word is longer than a prompt field: shortened with a
    # mark naming its length, its final component still there.
    if f"of {len(sneaky)} bytes not shown...]/important.c" not in p or "build/././" not in p:
        fail("the long command word is not shortened visibly: " + p)
    # Negative control: the checks above tell a resolved path from the
    # name as given; the name as given is in the very same prompt.
    if "path:    build/" in p or "command: sh -c" not in p:
        fail("control: the prompt's fields are not where the checks look: " + p)
    # Short fields are shown whole, unmarked.
    if 'command: sh -c rm -f "$0"; echo "rm said $?" build/' not in p or p.count("not shown") != 1:
        fail("a short field was shortened or marked: " + p)
    # The command layer asks before rm runs: the argument is shown by what
    # it reaches (its directories resolved from the workspace, rm's cwd).
    code, out, _ = run(ws, ["rm", "-f", sneaky], "n\n")
    p = prompt_of(out).decode()
    if "\n  target:  src/important.c\r\n" not in p or not os.path.exists(important):
        fail("the command-layer prompt does not name the real target src/important.c: " + p)
    # Control: the command word alone, shortened, hides the "../src".
    if "../src" in p.split("\n  target:")[0]:
        fail("control: the shortened command word unexpectedly shows ../src: " + p)
    # Allowed: the file the prompt named is the one deleted.
    code, out, _ = run(ws, ["sh", "-c", 'rm -f "$0"; echo "rm said $?"', sneaky], "y\n",
                       cwd=ws)
    if os.path.exists(important) or b"rm said 0" not in out:
        fail("allowed: src/important.c was not the file deleted: " + repr(out))


def part2(ws):
    # --- 2. every byte outside printable ASCII is escaped ---
    evil = b"e\x1b[2J\x1b]0;t\x07\r\xe2\x80\xae\xe2\x81\xa6\xc2\x9b\x9b\x7f\xff\xe2\x80\x8bz"
    evil_path = os.path.join(ws.encode(), evil)
    open(evil_path, "w").close()
    # The command prints the name raw first (the sandbox's own output),
    # then deletes it through the system-call layer.
    code, out, _ = run(ws, ["sh", "-c", 'printf "%s\\n" "$0"; rm -f "$0"', evil_path.decode(
        errors="surrogateescape")], "n\n", cwd=ws)
    p = prompt_of(out)
    if raw_bytes(p):
        fail(f"bytes outside printable ASCII reached the terminal in the prompt: {p!r}")
    want = (b"e\\x1b[2J\\x1b]0;t\\x07\\x0d\\u{202e}\\u{2066}\\u{009b}\\x9b\\x7f\\xff"
            b"\\u{200b}z")
    if want not in p:
        fail(f"the name is not shown with each byte escaped ({want!r}): {p!r}")
    if not os.path.exists(evil_path):
        fail("the file was deleted on 'n'")
    # Negative control: the same checker does see the sandbox's raw output
    # of the same name in the same run.
    if evil not in out or not raw_bytes(out[:out.find(RESET)]):
        fail(f"control: the sandbox's raw output of the name was not seen: {out!r}")
    # A backslash in a name is doubled: text that looks like an escape is
    # never taken for one.
    fake = os.path.join(ws, "n\\x41me")
    open(fake, "w").close()
    code, out, _ = run(ws, ["rm", fake], "n\n")
    if b"n\\\\x41me" not in prompt_of(out):
        fail("a backslash in a name is not doubled: " + repr(out))


def part3(ws):
    # --- 3. the sandbox cannot write to the terminal while it is asked ---
    # A writer in the sandbox waits on a FIFO the test feeds once the
    # prompt is up; if it runs, it erases the line and draws a fake
    # prompt, and leaves a file saying so.
    fifo = os.path.join(ws, "go")
    os.mkfifo(fifo)
    target = os.path.join(ws, "victim")
    script = ('( read x < go; printf "\\r\\033[2KSPOOF-MARK harmless: ls [y/n]"; '
              'echo wrote > spoofed ) & '
              'sleep 0.3; rm -f victim; echo "rm said $?"; wait')

    def spoof_window(control, f):
        def on_prompt(fd):
            os.write(f, b"go\n")
            # Unfrozen, the writer answers at once; we wait for its mark
            # (the control must see it). Frozen, nothing comes: the window
            # is what the attacker gets, not a measure of our speed.
            return read_for(fd, 20 if control else 2, until=b"SPOOF-MARK")
        return on_prompt

    for control in (False, True):
        if os.path.exists(os.path.join(ws, "spoofed")):
            os.unlink(os.path.join(ws, "spoofed"))
        open(target, "w").close()
        env = {"SBX_TEST_TTY_NO_FREEZE": "1"} if control else None
        # O_RDWR never blocks, and held for the whole run: a FIFO's data
        # is dropped when no end is open, before a frozen reader got it.
        f = os.open(fifo, os.O_RDWR)
        # A long approval timeout: the test itself waits before answering.
        code, out, at = run(ws, ["sh", "-c", script], "n\n", timeout="60", env=env,
                            on_prompt=spoof_window(control, f), cwd=ws)
        os.close(f)
        if at < 0:
            fail(f"no prompt (control={control}): {out!r}")
        spoof = out.find(b"SPOOF-MARK", out.find(b"Allow?"))
        if not os.path.exists(target):
            fail(f"the victim was deleted on 'n' (control={control}): {out!r}")
        if control:
            if not (0 <= spoof < at):
                fail(f"control: unfrozen, the writer did not reach the terminal while the "
                     f"prompt waited, so the test could not see a spoof: {out!r}")
        else:
            if 0 <= spoof < at:
                fail(f"the sandbox wrote to the terminal while the prompt waited: {out!r}")
            if spoof < 0 or not os.path.exists(os.path.join(ws, "spoofed")):
                fail(f"the writer did not run after the answer (frozen for good?): {out!r}")
            if b"rm said 1" not in out or out.count(b"Allow?") != 1:
                fail(f"the call interrupted by the freeze was not answered once: {out!r}")


def part4(ws):
    # --- 4. what the sandbox wrote just before cannot hide the prompt ---
    # Concealed text, an unterminated OSC string and the DEC graphics set,
    # written right before the call that asks: the reset follows them and
    # precedes the prompt.
    target = os.path.join(ws, "victim")
    open(target, "w").close()
    code, out, _ = run(ws, ["sh", "-c", 'printf "\\033[8m\\033(0\\033]0;"; rm -f victim'],
                       "n\n", cwd=ws)
    hide = out.find(b"\x1b[8m\x1b(0\x1b]0;")
    reset = out.find(RESET, hide if hide >= 0 else 0)
    if hide < 0 or reset < 0 or reset > out.find(b"sbx: approval needed"):
        fail(f"the prompt was not preceded by a terminal reset after the sandbox's "
             f"output: {out!r}")


def part5(ws):
    # --- 5. a run that cannot be frozen is not asked on the terminal ---
    # sbx as an unprivileged user (its own user namespace) cannot make a
    # cgroup in a v2 hierarchy only root may write: the question is not
    # asked, the call is refused, and the message says why. (Control: the
    # same kind of run as root is asked, parts 1 and 3.)
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        step("part 5 needs root and setpriv: not tried")
        return
    tmp = tempfile.mkdtemp(prefix="approvals_tty_nobody.")
    try:
        os.chmod(tmp, 0o711)
        uws, state = os.path.join(tmp, "ws"), os.path.join(tmp, "state")
        os.makedirs(uws)
        os.makedirs(state)
        open(os.path.join(uws, "victim"), "w").close()
        for d in (uws, state, os.path.join(uws, "victim")):
            os.chown(d, 65534, 65534)
        nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
        env = {"HOME": state, "SBX_STATE_DIR": state}
        code, out, at = run(uws, ["sh", "-c", "rm -f victim; echo rm said $?"], "y\n", env=env,
                            cwd=uws, prefix=nobody)
        if b"user namespace" in out or b"userns" in out:
            step("part 5: unprivileged sbx unavailable here: " + repr(out))
            return
        # Could uid 65534 make a cgroup in a v2 hierarchy here at all?
        v2 = [d for d in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")
              if os.path.exists(os.path.join(d, "cgroup.procs"))]
        may = any(subprocess.run(nobody + ["test", "-w", d]).returncode == 0 for d in v2)
        if b"cannot be frozen while asking" not in out:
            if at >= 0 and may:
                step("part 5: this machine lets an unprivileged sbx freeze its run; not tried")
                return
            fail(f"unprivileged run that cannot be frozen: asked anyway, or no reason given "
                 f"(v2 writable for it: {may}): {out!r}")
        if at >= 0 or b"Allow?" in out:
            fail(f"a run that cannot be frozen was asked on the terminal: {out!r}")
        if not os.path.exists(os.path.join(uws, "victim")) or b"rm said 1" not in out:
            fail(f"the unasked delete was not refused: {out!r}")
        step("part 5: " + out.decode(errors="replace").splitlines()[0])
    finally:
        shutil.rmtree(tmp)


INJECT = ("import fcntl, termios\n"
          "try:\n"
          "    fcntl.ioctl(0, termios.TIOCSTI, b'y')\n"
          "    fcntl.ioctl(0, termios.TIOCSTI, b'\\n')\n"
          "    print('TIOCSTI worked')\n"
          "except OSError as e:\n"
          "    print('TIOCSTI refused:', e.errno)\n")


def part6(ws):
    # --- 6. the sandbox cannot type the answer (TIOCSTI) ---
    py = shutil.which("python3", path="/usr/bin:/bin")
    if not py:
        step("part 6 needs a system python3: not tried")
        return
    target = os.path.join(ws, "victim")
    open(target, "w").close()
    code, out, _ = run(ws, ["sh", "-c", f"{py} -c \"$0\"; rm -f victim; echo rm said $?", INJECT],
                       "n\n", cwd=ws)
    # Lines the program printed (its source is also in the prompt's command).
    said = [l.strip() for l in out.split(b"\n")]
    if b"TIOCSTI refused: 1" not in said or b"TIOCSTI worked" in said:
        fail(f"the sandbox could push input into the terminal: {out!r}")
    if not os.path.exists(target) or b"rm said 1" not in out:
        fail(f"the delete went through: {out!r}")
    # Control: the same program on the same kind of terminal, outside the
    # sandbox, does inject (so the check above can see an injection).
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execv(py, [py, "-c", INJECT])
        finally:
            os._exit(127)
    got = read_for(fd, 20, until=b"TIOCSTI")
    got += read_for(fd, 1)
    os.waitpid(pid, 0)
    os.close(fd)
    if b"TIOCSTI worked" not in [l.strip() for l in got.split(b"\n")]:
        step(f"part 6 control: TIOCSTI does not work here even outside a sandbox ({got!r}); "
             "the refusal above is then the kernel's as well")


ws = tempfile.mkdtemp(prefix="approvals_tty.")
try:
    for n, part in enumerate((part0, part1, part2, part3, part4, part5, part6)):
        if str(n) in PARTS:
            part(ws)
    print("PASS")
finally:
    shutil.rmtree(ws)
