#!/usr/bin/env python3
"""A loopback HTTP server that misbehaves on purpose, for splitforge's tests.

faulty_http.py ROOT PORT_FILE serves the files under ROOT on a free
127.0.0.1 port (written to PORT_FILE once bound). The first path component
picks the fault, the rest names the file under ROOT:
  /ok/...     served plainly
  /flaky/...  the first GET of each path answers 500, later ones serve it
  /stall/...  headers, then nothing for 600 s
  /trunc/...  Content-Length 1000 bytes larger than what is sent, then close
  /huge/...   Content-Length 3 GiB, a few bytes, then nothing
Each request is logged to stdout as "METHOD PATH STATUS".
"""
import http.server
import os
import sys
import threading
import time

ROOT = os.path.abspath(sys.argv[1])
seen = set()
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def note(self, status):
        print(f"GET {self.path} {status}", flush=True)

    def do_GET(self):
        parts = self.path.split("?")[0].lstrip("/").split("/", 1)
        mode, rel = parts[0], parts[1] if len(parts) > 1 else ""
        path = os.path.normpath(os.path.join(ROOT, rel))
        if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
            self.note(404)
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with open(path, "rb") as f:
            body = f.read()
        if mode == "flaky":
            with lock:
                first = self.path not in seen
                seen.add(self.path)
            if first:
                self.note(500)
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        self.note({"stall": 200, "trunc": 200, "huge": 200}.get(mode, 200))
        self.send_response(200)
        if mode == "huge":
            self.send_header("Content-Length", str(3 << 30))
        elif mode == "trunc":
            self.send_header("Content-Length", str(len(body) + 1000))
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if mode == "stall":
            self.wfile.flush()
            time.sleep(600)
            return
        if mode == "huge":
            self.wfile.write(body[:16])
            self.wfile.flush()
            time.sleep(600)
            return
        self.wfile.write(body)
        self.wfile.flush()
        if mode == "trunc":
            self.close_connection = True


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, sys.argv[2])
    server.serve_forever()


if __name__ == "__main__":
    main()
