#!/usr/bin/env python3
"""Origin servers on 127.0.0.1 for the proxy tests (t_proxy.sh), asyncio so
that hundreds of connections at once cost nothing.

  np_origin.py PORTS_FILE
writes "HTTP_PORT COUNT_PORT" to PORTS_FILE, then serves until killed:
  HTTP  GET /headers  answers with the request head it received (the test
                      checks what the proxy forwarded); anything else: "hello"
  COUNT reads until end of file, answers "got N" and closes (half-close)
"""
import asyncio
import os
import sys


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


async def main():
    h = await asyncio.start_server(http, "127.0.0.1", 0, backlog=1024)
    c = await asyncio.start_server(count, "127.0.0.1", 0, backlog=1024)
    ports = "%d %d\n" % (h.sockets[0].getsockname()[1], c.sockets[0].getsockname()[1])
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write(ports)
    os.rename(tmp, sys.argv[1])
    await asyncio.gather(h.serve_forever(), c.serve_forever())


asyncio.run(main())
