"""Serve an :class:`Emulator` over HTTP/1.1 on loopback with the standard library.

``http.server.ThreadingHTTPServer`` gives one thread per connection (keep-alive
supported); the emulator's lock serializes state access. The stdlib server is used
rather than an ASGI server because a fault must be able to drop a connection after
the request was applied, which needs the raw socket.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .app import Emulator


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once, no delayed-ACK stall
    server_version = "GitHub.com"
    sys_version = ""
    emulator: Emulator

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return  # the emulator keeps its own request log

    def _serve(self) -> None:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            body = b"".join(chunks)
        else:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
        reply = self.emulator.handle(self.command, self.path, dict(self.headers.items()), body)
        if reply.drop:
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        self.send_response_only(reply.status)
        for key, value in reply.headers:
            if key.lower() != "date":
                self.send_header(key, value)
            else:
                self.send_header("Date", value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body)

    do_GET = _serve  # noqa: N815
    do_POST = _serve  # noqa: N815
    do_DELETE = _serve  # noqa: N815
    do_PATCH = _serve  # noqa: N815
    do_PUT = _serve  # noqa: N815


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # bursts of concurrent writers must not wait for SYN retries


class EmulatorServer:
    """An HTTP server for ``emulator`` on ``host:port`` (port 0: a free one).

    Use as a context manager or call :meth:`start` / :meth:`stop`; ``url`` is the
    base URL (``http://127.0.0.1:PORT``); GraphQL is at ``url + "/graphql"``, the
    GHES layout at ``url + "/api/v3/"`` and ``url + "/api/graphql"``.
    """

    def __init__(self, emulator: Emulator, host: str = "127.0.0.1", port: int = 0) -> None:
        handler = type("Handler", (_Handler,), {"emulator": emulator})
        self.httpd = _Server((host, port), handler)
        self.emulator = emulator
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    @property
    def url(self) -> str:
        host = self.httpd.server_address[0]
        return f"http://{host if isinstance(host, str) else host.decode()}:{self.port}"

    def start(self) -> EmulatorServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
