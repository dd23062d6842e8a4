#!/usr/bin/env python3
"""Clients for the proxy tests (t_proxy.sh) that curl cannot be: raw SOCKS5
requests, a slowloris, held connections, many connections at once, and a
half-close through a tunnel. Every one talks only to 127.0.0.1.

  np_client.py socks PORT CMD ATYP HOST DPORT  -> prints the reply code
  np_client.py slowloris PORT                  -> "closed" once the proxy cuts it
  np_client.py cap PORT HELD                   -> holds HELD connections, then
                                                   prints the next one's status line
  np_client.py many PORT TARGET_PORT N         -> N CONNECT tunnels open at once
  np_client.py halfclose PORT COUNT_PORT        -> "got N" after shutdown(SHUT_WR)
  np_client.py idle PORT COUNT_PORT             -> "closed" once the proxy cuts an idle tunnel
  np_client.py bulkup PORT HASH_PORT N          -> "intact N" when the N bytes sent arrived unchanged
  np_client.py bulkdown PORT SOURCE_PORT N K [PAUSE_MS]
                                                -> "intact N, then sent K" when the N bytes the
                                                   destination sent arrived unchanged, and K bytes
                                                   went after its end of file (to a destination
                                                   that pauses PAUSE_MS before reading them)
  np_client.py abort PORT SOURCE_PORT N         -> "reset" after reading 1 MiB of N and resetting
"""
import asyncio
import hashlib
import random
import socket
import struct
import sys

HANG_LIMIT = 120  # seconds: a hang limit, never an expectation of speed


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=HANG_LIMIT)
    return s


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def socks(port, cmd, atyp, host, dport):
    s = connect(port)
    s.sendall(b"\x05\x01\x00")
    if recv_exact(s, 2) != b"\x05\x00":
        print("no-method")
        return
    if atyp == 3:
        name = host.encode("utf-8")
        addr = bytes([len(name)]) + name
    elif atyp == 1:
        addr = socket.inet_pton(socket.AF_INET, host)
    else:
        addr = socket.inet_pton(socket.AF_INET6, host)
    s.sendall(bytes([5, cmd, 0, atyp]) + addr + struct.pack(">H", dport))
    reply = recv_exact(s, 10)
    print("reply %d" % reply[1] if len(reply) >= 2 else "closed")


def slowloris(port):
    s = connect(port)
    s.sendall(b"GET http://www.example.test/ HTTP/1.1\r\nX-Slow: ")
    # Never finish the head; the proxy must cut us at its handshake limit.
    try:
        while True:
            if not s.recv(4096):
                print("closed")
                return
    except ConnectionResetError:
        print("closed")
    except socket.timeout:
        print("still open after the hang limit")


def cap(port, held):
    keep = []
    for _ in range(held):
        s = connect(port)
        # A byte each, so the proxy has surely accepted them before the next.
        s.sendall(b"G")
        keep.append(s)
    # The proxy accepts in order: once these are in its table the next is over.
    # A request on the held ones proves they are accepted and counted.
    extra = connect(port)
    extra.sendall(b"GET http://www.example.test/ HTTP/1.1\r\n\r\n")
    data = b""
    while b"\r\n" not in data:
        chunk = extra.recv(4096)
        if not chunk:
            break
        data += chunk
    print(data.split(b"\r\n", 1)[0].decode(errors="replace"))
    for s in keep:
        s.close()


async def tunnel(port, target, opened, release):
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (target, target))
    status = await r.readuntil(b"\r\n\r\n")
    if not status.startswith(b"HTTP/1.1 200"):
        w.close()
        return "refused: " + status.split(b"\r\n")[0].decode()
    opened.append(1)
    await release.wait()
    w.write(b"x" * 1000)
    w.write_eof()
    answer = await r.read()
    w.close()
    return answer.decode().strip()


async def many_main(port, target, n):
    opened = []
    release = asyncio.Event()
    tasks = [asyncio.create_task(tunnel(port, target, opened, release)) for _ in range(n)]
    # Wait until every tunnel is open at the same time (or one failed).
    while len(opened) < n and not any(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    print("open at once: %d" % len(opened))
    release.set()
    results = await asyncio.wait_for(asyncio.gather(*tasks), HANG_LIMIT)
    good = sum(1 for x in results if x == "got 1000")
    print("complete: %d" % good)
    bad = [x for x in results if x != "got 1000"]
    if bad:
        print("first failure: %s" % bad[0])


def bulk_bytes(n, seed):
    """The bytes both ends of a large transfer agree on (np_origin.py too)."""
    return random.Random(seed).randbytes(n)


def tunnel_to(port, target):
    """A CONNECT tunnel to 127.0.0.1:target, or None when refused."""
    s = connect(port)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % target)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            return None
        head += chunk
    return s if head.startswith(b"HTTP/1.1 200") else None


def read_to_eof(s):
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk


def halfclose(port, count_port):
    s = tunnel_to(port, count_port)
    if not s:
        print("no tunnel")
        return
    s.sendall(b"y" * 100000)
    s.shutdown(socket.SHUT_WR)  # the count server answers only at end of file
    print(read_to_eof(s).decode().strip())


def idle(port, count_port):
    s = tunnel_to(port, count_port)
    if not s:
        print("no tunnel")
        return
    # Send nothing: the count server waits for end of file, so only the
    # proxy's idle limit ends this tunnel.
    try:
        read_to_eof(s)
        print("closed")
    except ConnectionResetError:
        print("closed")
    except socket.timeout:
        print("still open after the hang limit")


def bulkup(port, hash_port, n):
    s = tunnel_to(port, hash_port)
    if not s:
        print("no tunnel")
        return
    data = bulk_bytes(n, 7)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    answer = read_to_eof(s)
    want = b"got %d %s" % (n, hashlib.sha256(data).hexdigest().encode())
    print("intact %d" % n if answer.strip() == want else "changed: %r" % answer[:200])


def bulkdown(port, source_port, n, k, pause_ms=None):
    s = tunnel_to(port, source_port)
    if not s:
        print("no tunnel")
        return
    s.sendall(b"%d 11\n" % n if pause_ms is None else b"%d 11 %d\n" % (n, pause_ms))
    digest = hashlib.sha256()
    got = 0
    while True:
        chunk = s.recv(1 << 20)
        if not chunk:
            break  # the destination's end of file: this side may still send
        got += len(chunk)
        digest.update(chunk)
    if got != n or digest.digest() != hashlib.sha256(bulk_bytes(n, 11)).digest():
        print("changed: %d bytes" % got)
        return
    s.sendall(b"z" * k)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    print("intact %d, then sent %d" % (n, k))


def abort(port, source_port, n):
    s = tunnel_to(port, source_port)
    if not s:
        print("no tunnel")
        return
    s.sendall(b"%d 13\n" % n)
    got = 0
    while got < 1 << 20:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += len(chunk)
    # A reset, not a close: whatever the proxy still holds for this client
    # (in its pipe) can never be delivered.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    print("reset")


def main():
    what = sys.argv[1]
    if what == "socks":
        socks(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]))
    elif what == "slowloris":
        slowloris(int(sys.argv[2]))
    elif what == "cap":
        cap(int(sys.argv[2]), int(sys.argv[3]))
    elif what == "many":
        asyncio.run(many_main(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
    elif what == "halfclose":
        halfclose(int(sys.argv[2]), int(sys.argv[3]))
    elif what == "idle":
        idle(int(sys.argv[2]), int(sys.argv[3]))
    elif what == "bulkup":
        bulkup(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif what == "abort":
        abort(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif what == "bulkdown":
        bulkdown(*(int(x) for x in sys.argv[2:7]))
    else:
        sys.exit("unknown client " + what)


main()
