"""A fault-injecting proxy in front of the real oidc-provider-mock.

It forwards every request with its Host header unchanged, so the mock names the proxy as
its issuer and endpoints (it builds them from the Host) and the whole sign-in runs through
the proxy. Per path, it can instead hang, answer 500, trickle its answer slowly, or serve
an empty key set; it counts the requests each path received.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import httpx

from .idp import MockIdP

HANG = "hang"
ERROR_500 = "500"
TRICKLE = "trickle"
EMPTY_JWKS = "empty-jwks"


class FaultyIdP:
    def __init__(self, upstream: MockIdP) -> None:
        self.upstream = upstream
        self.faults: dict[str, str] = {}
        self.hits: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def as_idp(self) -> MockIdP:
        """The MockIdP a FieldpassServer is configured with: the proxy's address."""
        return MockIdP(self.upstream.process, self.port)

    def path_of(self, endpoint: str) -> str:
        """The path of a discovery endpoint (`token_endpoint`, `jwks_uri`, ...)."""
        document = httpx.get(f"{self.issuer}/.well-known/openid-configuration").json()
        return urlsplit(document[endpoint]).path

    def count(self, path: str) -> int:
        with self._lock:
            return self.hits[path]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def _serve(self) -> None:
                path = urlsplit(self.path).path
                with proxy._lock:
                    proxy.hits[path] += 1
                    fault = proxy.faults.get(path)
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if fault == HANG:
                    proxy._stop.wait(60)
                    self.close_connection = True
                    return
                if fault == ERROR_500:
                    self._answer(500, b'{"error": "server_error"}', "application/json")
                    return
                if fault == EMPTY_JWKS:
                    self._answer(200, json.dumps({"keys": []}).encode(), "application/json")
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "connection")}
                upstream = httpx.request(
                    self.command, f"{proxy.upstream.issuer}{self.path}", headers=headers, content=body,
                    follow_redirects=False, timeout=30,
                )
                if fault == TRICKLE:
                    self._trickle(upstream)
                    return
                passed = {k: v for k, v in upstream.headers.items() if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding")}
                self._answer(upstream.status_code, upstream.content, None, passed)

            def _answer(self, status: int, body: bytes, content_type: str | None, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if content_type:
                    self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _trickle(self, upstream: httpx.Response) -> None:
                """The real answer, one byte every half second: the head comes at once."""
                self.send_response(upstream.status_code)
                self.send_header("content-type", upstream.headers.get("content-type", "application/json"))
                self.send_header("content-length", str(len(upstream.content)))
                self.end_headers()
                for byte in upstream.content:
                    if proxy._stop.wait(0.5):
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return

            do_GET = do_POST = do_PUT = _serve

        return Handler

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def faulty_idp(upstream: MockIdP) -> Iterator[FaultyIdP]:
    proxy = FaultyIdP(upstream)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()

