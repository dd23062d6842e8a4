#!/usr/bin/env python3
"""listen_at.py ADDR PORT PROGRAM ARGS...: binds a TCP listener and a UDP
socket at ADDR:PORT, as descriptors 3 and 4, and runs PROGRAM with them
(T_CONNECT_INHERITED=1). The servers a sandboxed program reaches belong
outside its sandbox: binding a non-loopback address inside it is itself
an approved operation."""
import os
import socket
import sys

addr, port = sys.argv[1], int(sys.argv[2])
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind((addr, port))
tcp.listen(4)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind((addr, port))
# Copies above 4 first, so that placing one cannot close the other.
copies = [os.dup(tcp.fileno()), os.dup(udp.fileno())]
tcp.close()
udp.close()
for fd, c in zip((3, 4), copies):
    os.dup2(c, fd, inheritable=True)
    os.close(c)
os.environ["T_CONNECT_INHERITED"] = "1"
os.execv(sys.argv[3], sys.argv[3:])
