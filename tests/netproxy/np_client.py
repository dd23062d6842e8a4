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
"""
import asyncio
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


def halfclose(port, count_port):
    s = connect(port)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % count_port)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            print("closed before the tunnel")
            return
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        print(head.split(b"\r\n")[0].decode())
        return
    s.sendall(b"y" * 100000)
    s.shutdown(socket.SHUT_WR)  # the count server answers only at end of file
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    print(data.decode().strip())


def idle(port, count_port):
    s = connect(port)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n" % count_port)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            print("closed before the tunnel")
            return
        head += chunk
    # Send nothing: the count server waits for end of file, so only the
    # proxy's idle limit ends this tunnel.
    try:
        while s.recv(4096):
            pass
        print("closed")
    except ConnectionResetError:
        print("closed")
    except socket.timeout:
        print("still open after the hang limit")


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
    else:
        sys.exit("unknown client " + what)


main()
