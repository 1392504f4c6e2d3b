"""Event sockets are bounded: a session may hold `sessions.max_sockets_per_session` at once,
the process `sessions.max_sockets`. One more socket is opened and closed at once with
1013 ("try again later") and a reason saying which limit; it gets no event. A socket that
closes frees its place. (A refused upgrade could only be a bare 400 from the WebSocket
layer, which tells the device nothing.)"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from helpers import FieldpassServer, MockIdP, server_env, server_in, unique_email, wait_until, ws_connect

PER_SESSION = 2
TOTAL = 3
TRY_AGAIN_LATER = 1013


@pytest.fixture(scope="module")
def limited_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    env = server_env({"SESSIONS_MAX_SOCKETS_PER_SESSION": str(PER_SESSION), "SESSIONS_MAX_SOCKETS": str(TOTAL)}, None)
    server = server_in(tmp_path_factory.mktemp("socket-limits"), fieldpass_bin, idp, env)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def closed_at_once(url: str) -> tuple[int, str] | None:
    """(code, reason) if the server closes a new socket at once; None if it stays open."""
    with ws_connect(url) as ws:
        try:
            message = ws.recv(timeout=1.0)
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code, closed.rcvd.reason
        raise AssertionError(f"a socket over the limit got an event: {message!r}")


def test_a_session_holds_at_most_its_sockets(limited_server: FieldpassServer) -> None:
    url = limited_server.register(unique_email("sockets"), None).websocket_url
    with ExitStack() as stack:
        first, _ = [stack.enter_context(ws_connect(url)) for _ in range(PER_SESSION)]
        assert closed_at_once(url) == (TRY_AGAIN_LATER, "This session already has its event sockets open")
        first.close()
        wait_until(lambda: closed_at_once(url) is None, timeout=5, what="a closed socket's place to come free")


def test_the_process_holds_at_most_its_total(limited_server: FieldpassServer) -> None:
    urls = [limited_server.register(unique_email("sockets"), None).websocket_url for _ in range(3)]
    with ExitStack() as stack:
        for _ in range(PER_SESSION):
            stack.enter_context(ws_connect(urls[0]))
        for _ in range(TOTAL - PER_SESSION):
            stack.enter_context(ws_connect(urls[1]))
        assert closed_at_once(urls[2]) == (TRY_AGAIN_LATER, "This server holds as many event sockets as it may")
    wait_until(lambda: closed_at_once(urls[2]) is None, timeout=5, what="places to come free after closing")
