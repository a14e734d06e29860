#!/usr/bin/env python3
"""tls_server.py ROOT CERT KEY PORT_FILE: serves the files under ROOT over https on 127.0.0.1.

A loopback stand-in for a package index behind a certificate of a CA of the test's own, for the
CA certificate suites (tests/integration/install_tls.sh). It picks a free port and writes it to
PORT_FILE once it listens; GET and HEAD of files, 404 otherwise, until killed.
"""
import functools
import http.server
import os
import ssl
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    root, cert, key, port_file = sys.argv[1:5]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=root))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
