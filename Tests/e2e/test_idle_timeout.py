"""`server.idle_timeout`: an HTTP connection left idle between requests is closed, while
an event WebSocket, which carries no request, stays open past it."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import FieldpassServer, MockIdP, login_and_receive_token, start_server, unique_email, ws_connect

IDLE = 1


@pytest.fixture(scope="module")
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp("idle"), {"SERVER_IDLE_TIMEOUT": str(IDLE)})
    try:
        yield server
    finally:
        server.stop()


def test_an_idle_keep_alive_connection_is_closed(server: FieldpassServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=IDLE + 5) as connection:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: fieldpass\r\n\r\n")
        assert connection.recv(4096).startswith(b"HTTP/1.1 200"), "no answer to the first request"
        started = time.monotonic()
        rest = connection.recv(4096)  # blocks until the server closes the idle connection
        waited = time.monotonic() - started
    assert rest == b"", rest
    assert IDLE - 0.2 <= waited < IDLE + 3, f"closed after {waited:.1f} s, idle_timeout is {IDLE} s"


def test_an_event_socket_outlives_the_idle_timeout(server: FieldpassServer) -> None:
    email = unique_email("idle")
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        time.sleep(IDLE * 2.5)
        login_and_receive_token(ws, registration, email)
