# A hand-made warm-start client (tests/warm): connects to the server's
# socket, sends a well-formed request header for PROFILE with a fingerprint
# of 0 and prints what came back: "reply N bytes: NOTE" (the server served
# or refused the request), "closed" (the server dropped the connection
# without a word: the peer check refused it) or "no-connect: ERR".
# With FP (tests/warm/warm_fp.c prints a profile's) the server takes the
# request for one of its own build's; WS_SENT replaces the workspace string
# sent (the header keeps WORKSPACE's device and inode).
#   python3 client.py SOCKET [PROFILE [WORKSPACE [FLAGS [FP [WS_SENT]]]]]
import os, resource, socket, struct, sys
sock = sys.argv[1]
profile = sys.argv[2] if len(sys.argv) > 2 else "strict"
ws = sys.argv[3] if len(sys.argv) > 3 else os.getcwd()
flags = int(sys.argv[4], 0) if len(sys.argv) > 4 else 0
fp = int(sys.argv[5]) if len(sys.argv) > 5 else 0
ws_sent = sys.argv[6] if len(sys.argv) > 6 else ws
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
try:
    s.connect(sock)
except OSError as e:
    print("no-connect: %s" % e.strerror)
    sys.exit(0)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
r, w = os.pipe()
st = os.stat(ws)
argv = [b"/bin/true"]
strs = [profile.encode(), ws_sent.encode(), b"/root"] + argv + [b"PATH=/usr/bin:/bin"]
hdr = struct.pack("<IIQQQIIIIII", 0x77786273, 4, fp, st.st_dev, st.st_ino,
                  os.geteuid(), os.getegid(), flags, len(argv), 1, 5)
# Since protocol version 3 (4: the BUILDING reply): this process's umask, nice, OOM score adjustment, rlimits, CPUs.
mask = os.umask(0)
os.umask(mask)
hdr += struct.pack("<IiiI", mask, os.getpriority(os.PRIO_PROCESS, 0),
                   int(open("/proc/self/oom_score_adj").read()), 0)
for res in range(16):
    try:
        lim = resource.getrlimit(res)
    except (ValueError, OSError):
        lim = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    hdr += struct.pack("<QQ", *(x & (2**64 - 1) for x in lim))
cpus = 0
for c in os.sched_getaffinity(0):
    cpus |= 1 << c
hdr += cpus.to_bytes(128, "little")
msg = hdr + b"".join(x + b"\0" for x in strs)
s.settimeout(5)
try:
    s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                       struct.pack("5i", 0, 1, 2, b.fileno(), r))])
    data = s.recv(4096)
    # BUILDING (kind 4) says a template is being made; the answer follows.
    while len(data) >= 8 and struct.unpack("<Ii", data[:8])[1] == 4:
        data = s.recv(4096)
except OSError as e:
    print("closed (%s)" % e.strerror)
    sys.exit(0)
if not data:
    print("closed")
else:
    # struct sbx_warm_reply: magic, kind, init_pid, cmd_pid, status, note[128]
    print("reply %d bytes: %s" % (len(data), data[20:148].split(b"\0")[0].decode()))
