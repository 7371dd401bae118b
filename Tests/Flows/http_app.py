"""The HTTP plumbing of the flow tests' servers: a JSON-over-POST server on 127.0.0.1 at an
ephemeral port, each request answered in a thread by the app's `answer`."""

from __future__ import annotations

import json
import threading
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    """POST only. `self.server.app.handle(path, body, cookies, raw)` answers with (HTTP status,
    a JSON-able answer or raw bytes, a Set-Cookie value or None); `body` is None when the
    request is not JSON."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - keep pytest output clean
        pass

    def do_POST(self):  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        cookies = SimpleCookie()
        if self.headers.get("Cookie"):
            cookies.load(self.headers["Cookie"])
        status, answer, set_cookie = self.server.app.handle(self.path, body, {k: v.value for k, v in cookies.items()}, raw)
        data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if not isinstance(answer, bytes) else "text/html")
            self.send_header("Content-Length", str(len(data)))
            if set_cookie:
                self.send_header("Set-Cookie", set_cookie)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped waiting (a time-out test)


class App:
    """A server at `url`; `requests` logs (path, body, cookies) of every request."""

    def __init__(self, host_name: str = "127.0.0.1", port: int = 0):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.app = self
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host_name}:{self.port}"
        self.requests: list[tuple[str, dict | None, dict]] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def handle(self, path: str, body, cookies: dict, raw: bytes):
        with self.lock:
            self.requests.append((path, body, cookies))
        return self.answer(path, body, cookies, raw)

    def answer(self, path, body, cookies, raw):
        raise NotImplementedError

    def paths(self) -> list[str]:
        return [path for path, _, _ in self.requests]
