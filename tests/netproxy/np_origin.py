#!/usr/bin/env python3
"""Origin servers on 127.0.0.1 for the proxy tests (t_proxy.sh), asyncio so
that hundreds of connections at once cost nothing.

  np_origin.py PORTS_FILE [LOG]
writes "HTTP_PORT COUNT_PORT HASH_PORT SOURCE_PORT" to PORTS_FILE, then
serves until killed:
  HTTP   GET /headers  answers with the request head it received (the test
                       checks what the proxy forwarded); anything else: "hello"
  COUNT  reads until end of file, answers "got N" and closes (half-close)
  HASH   reads until end of file, answers "got N SHA256" (large transfers)
  SOURCE reads a line "N SEED [PAUSE_MS]", sends the N bytes of
         bulk_bytes(N, SEED) and shuts its sending down first; then (after
         PAUSE_MS: a slow reader) reads what the client still sends until
         end of file and logs "source sent N then got M" to LOG (the
         half-close that starts at the destination)
"""
import asyncio
import hashlib
import os
import random
import sys


def bulk_bytes(n, seed):
    """The bytes both ends of a large transfer agree on (np_client.py too)."""
    return random.Random(seed).randbytes(n)


async def http(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    path = head.split(b" ", 2)[1]
    body = head if path == b"/headers" else b"hello from origin\n"
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n" % len(body) + body)
    try:
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def count(reader, writer):
    total = 0
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            total += len(chunk)
        writer.write(b"got %d\n" % total)
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def hashed(reader, writer):
    total = 0
    digest = hashlib.sha256()
    try:
        while True:
            chunk = await reader.read(1 << 20)
            if not chunk:
                break
            total += len(chunk)
            digest.update(chunk)
        writer.write(b"got %d %s\n" % (total, digest.hexdigest().encode()))
        await writer.drain()
    except ConnectionError:
        pass
    writer.close()


async def source(reader, writer):
    try:
        n, seed, *pause = (int(x) for x in (await reader.readline()).split())
        writer.write(bulk_bytes(n, seed))
        await writer.drain()
        writer.write_eof()
        await asyncio.sleep(pause[0] / 1000 if pause else 0)
        got = 0
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            got += len(chunk)
        if len(sys.argv) > 2:
            with open(sys.argv[2], "a") as log:
                log.write("source sent %d then got %d\n" % (n, got))
    except (ConnectionError, ValueError):
        pass
    writer.close()


async def main():
    servers = [await asyncio.start_server(handler, "127.0.0.1", 0, backlog=1024)
               for handler in (http, count, hashed, source)]
    ports = " ".join(str(s.sockets[0].getsockname()[1]) for s in servers) + "\n"
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write(ports)
    os.rename(tmp, sys.argv[1])
    await asyncio.gather(*(s.serve_forever() for s in servers))


asyncio.run(main())
