#!/usr/bin/env python3
"""download.pytorch.org on loopback, for tools whose PyTorch index URL is built in (uv turns
UV_TORCH_BACKEND=cu124 into https://download.pytorch.org/whl/cu124 and offers no setting for
another one): an HTTP proxy whose CONNECT to download.pytorch.org:443 it answers itself, with TLS
under a certificate the test's own CA signed, serving ROOT's files as https://download.pytorch.org/whl/.

    pytorch_tls_proxy.py ROOT CERT KEY

Point a client at it with HTTPS_PROXY=http://127.0.0.1:PORT and SSL_CERT_FILE=the CA. It prints
"port N" once listening and logs each request on stderr ('"GET /whl/cu124/torch/ HTTP/1.1" 200').
Every other host is refused (403): nothing leaves the machine.
"""
import http.server
import os
import socketserver
import ssl
import sys

HOST = "download.pytorch.org"


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_CONNECT(self):
        if self.path.rsplit(":", 1)[0] != HOST:
            self.send_error(403, "only " + HOST + " is served here")
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        # The tunnel's bytes are TLS to this server: the requests inside are served like any other.
        self.connection = self.server.tls.wrap_socket(self.connection, server_side=True)
        self.rfile = self.connection.makefile("rb", self.rbufsize)
        self.wfile = socketserver._SocketWriter(self.connection)
        self.close_connection = False
        while not self.close_connection:
            self.handle_one_request()

    def translate_path(self, path):
        path = path.split("?", 1)[0].split("#", 1)[0]
        if not path.startswith("/whl/"):
            return os.path.join(self.directory, "not-served")
        return super().translate_path(path[len("/whl"):])

    def log_message(self, format, *args):
        sys.stderr.write('"%s" %s\n' % (self.requestline, args[1] if len(args) > 1 else "-"))
        sys.stderr.flush()


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    root, cert, key = (os.path.abspath(a) for a in argv)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: Handler(*a, directory=root))
    server.daemon_threads = True
    server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.tls.load_cert_chain(cert, key)
    print("port", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
