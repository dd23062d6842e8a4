#!/usr/bin/env python3
"""Origin servers on 127.0.0.1 for t_network.sh: the hosts a proxied run
reaches through sbx's proxy, by the names the test's private /etc/hosts
gives them.

  net_origin.py ROOT CERT KEY PORTS_FILE
serves the directory ROOT over HTTP and over HTTPS (CERT, KEY) on two
ports of 127.0.0.1, writes "HTTP_PORT HTTPS_PORT" to PORTS_FILE, and
serves until killed. Static files only: the pip index, the npm registry
and git's dumb HTTP are files the test writes into ROOT. Every request's
Host header and path is appended to ROOT/../requests.log, so the test can
tell which requests really arrived.
"""
import functools
import http.server
import os
import ssl
import sys
import threading


class Server(http.server.ThreadingHTTPServer):
    # Hundreds of tunnels connect at once (t_network.sh): the default
    # backlog of 5 would drop them before the test's proxy is measured.
    request_queue_size = 1024
    daemon_threads = True


class Handler(http.server.SimpleHTTPRequestHandler):
    log_path = None

    def log_message(self, fmt, *args):
        with open(self.log_path, "a") as f:
            f.write("%s %s\n" % (self.headers.get("Host", "-"), self.path))


def main():
    root, cert, key, ports_file = sys.argv[1:5]
    Handler.log_path = os.path.join(os.path.dirname(os.path.abspath(root)), "requests.log")
    handler = functools.partial(Handler, directory=root)
    plain = Server(("127.0.0.1", 0), handler)
    tls = Server(("127.0.0.1", 0), handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
    for s in (plain, tls):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    tmp = ports_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d %d\n" % (plain.server_address[1], tls.server_address[1]))
    os.rename(tmp, ports_file)
    threading.Event().wait()


if __name__ == "__main__":
    main()
