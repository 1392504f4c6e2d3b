"""The app a sign-in returns to: its loopback redirect URI, as a desktop app or a command-line
tool listens on one (RFC 8252 section 7.3), and what Fieldpass appends to a redirect URI."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = b"<!doctype html><title>Back in the app</title><h1>Back in the app</h1>"


class LoopbackApp:
    """A small HTTP server on 127.0.0.1 that serves `path` with a page and keeps the request
    target (path and query, as the browser sent them) of every GET of it. Close it when done."""

    def __init__(self, path: str = "/signed-in") -> None:
        self.path = path
        self._arrivals: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def uri(self) -> str:
        """The redirect URI to register: an IP literal and a port, never `localhost`."""
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.path}"

    def arrivals(self) -> list[str]:
        """The request target of every GET of `path` so far, oldest first."""
        with self._lock:
            return list(self._arrivals)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LoopbackApp:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        app = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                ours = urlsplit(self.path).path == app.path
                if ours:
                    with app._lock:
                        app._arrivals.append(self.path)
                body = PAGE if ours else b""
                self.send_response(200 if ours else 404)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def app_return_query(location: str, redirect_uri: str) -> dict[str, list[str]]:
    """What Fieldpass appended to the registered `redirect_uri` in `location`: the query
    after it (joined with `&` when the URI has a query of its own, else `?`), decoded; fails
    when `location` is not `redirect_uri` followed by a query."""
    separator = "&" if "?" in redirect_uri else "?"
    assert location.startswith(redirect_uri + separator), f"{location!r} is not {redirect_uri!r}{separator}..."
    return parse_qs(location[len(redirect_uri) + 1 :], keep_blank_values=True, strict_parsing=True)
