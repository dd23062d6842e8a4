#!/usr/bin/env python3
"""A destination whose first address never answers, for the proxy's dial
fallback (t_proxy.sh): on 127.0.0.2:P a listener whose accept queue is full
(the kernel drops further SYNs, so a connect there hangs), and on
127.0.0.1:P, the same port, a server that answers every request with
"fallback ok".

  np_blackhole.py PORT_FILE   writes P, then serves until killed
"""
import os
import socket
import sys

hole = socket.socket()
hole.bind(("127.0.0.2", 0))
hole.listen(0)
port = hole.getsockname()[1]
# One established connection fills a backlog of 0; it is never accepted.
filler = socket.create_connection(("127.0.0.2", port), timeout=60)

srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    conn, _ = srv.accept()
    conn.settimeout(60)
    head = b""
    try:
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                break
            head += chunk
        body = b"fallback ok\n"
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    except OSError:
        pass
    conn.close()
