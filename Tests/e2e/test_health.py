"""Liveness and readiness: `/healthz` answers while the process runs; `/readyz` answers 200
only once the server listens with its store and key, and 503 while it drains after SIGTERM
(`server.drain_time`), so a load balancer takes it out of rotation before it stops. A port
that is already taken stops start-up with a message naming it, and nothing before that
claims to be listening."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from helpers import FieldpassServer, MockIdP, http_client, server_env, server_in, wait_until

DRAIN = 3


def make_server(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, drain_time: int = 0) -> FieldpassServer:
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, None))
    server.drain_time = drain_time
    return server


def status(client: httpx.Client, url: str) -> int | None:
    """The status of GET `url`, or None when nothing accepts the connection."""
    try:
        return client.get(url).status_code
    except httpx.TransportError:
        return None


def test_readyz_is_never_ready_before_the_server_listens(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = make_server(fieldpass_bin, idp, tmp_path)
    server.launch()
    seen: list[int | None] = []
    with http_client(timeout=2.0) as client:
        deadline = time.monotonic() + 20
        while not seen or seen[-1] != 200:
            assert time.monotonic() < deadline, f"not ready in 20 s: {seen[-5:]}\n{server.log_tail()}"
            seen.append(status(client, f"{server.url}/readyz"))
            time.sleep(0.002)
    try:
        assert set(seen[:-1]) <= {None, 503}, seen
        log = server.log_tail()
        assert "Fieldpass listening" in log and f"127.0.0.1:{server.port}" in log, log
    finally:
        server.stop()


def test_sigterm_drains_with_readyz_503_then_stops(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = make_server(fieldpass_bin, idp, tmp_path, drain_time=DRAIN)
    server.start()
    assert server.process is not None
    with http_client(timeout=2.0) as client:
        assert client.get(f"{server.url}/readyz").json() == {"status": "ready"}
        sent = time.monotonic()
        server.process.proc.send_signal(signal.SIGTERM)
        wait_until(lambda: status(client, f"{server.url}/readyz") == 503, timeout=2, what="readyz 503 after SIGTERM")
        response = client.get(f"{server.url}/readyz")
        assert response.status_code == 503 and response.json() == {"status": "unavailable", "reason": "draining"}, response.text
        assert response.headers["cache-control"] == "no-store"
        # Still serving while it drains: liveness and real work.
        assert client.get(f"{server.url}/healthz").status_code == 200
        assert client.get(f"{server.url}/.well-known/jwks.json").status_code == 200
        assert server.process.proc.poll() is None
        server.process.proc.wait(DRAIN + 10)
        assert time.monotonic() - sent >= DRAIN - 0.5, "stopped before the drain time"
        assert server.process.proc.returncode == 0, server.log_tail()
        assert status(client, f"{server.url}/healthz") is None


def test_a_second_sigterm_stops_at_once(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = make_server(fieldpass_bin, idp, tmp_path, drain_time=60)
    server.start()
    assert server.process is not None
    server.process.proc.send_signal(signal.SIGTERM)
    with http_client(timeout=2.0) as client:
        wait_until(lambda: status(client, f"{server.url}/readyz") == 503, timeout=2, what="readyz 503 after SIGTERM")
    server.process.proc.send_signal(signal.SIGTERM)
    server.process.proc.wait(10)
    assert server.process.proc.returncode == 0, server.log_tail()


HEAD = b"POST /register_device HTTP/1.1\r\nHost: fieldpass\r\nContent-Type: application/json\r\n"


@pytest.mark.parametrize(
    ("sent", "waits_for_the_timeout"),
    [(b"", False), (HEAD, False), (HEAD + b"Content-Length: 100\r\n\r\n{\"email\":", True)],
    ids=["nothing sent", "a request head never finished", "a request body never finished"],
)
def test_a_connection_without_a_whole_request_cannot_hold_up_the_shutdown(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, sent: bytes, waits_for_the_timeout: bool
) -> None:
    """A client that opens a connection and never finishes a request (a browser's spare
    connection, or an attacker) must not keep the process from exiting on SIGTERM. Before
    its first request head is in, the connection is closed at once; a request under way
    gets `server.shutdown_timeout` seconds."""
    server = make_server(fieldpass_bin, idp, tmp_path)
    server.shutdown_timeout = 2
    server.start()
    assert server.process is not None
    with socket.create_connection((server.host, server.port)) as held:
        held.sendall(sent)
        time.sleep(0.3)
        sent_at = time.monotonic()
        server.process.proc.send_signal(signal.SIGTERM)
        server.process.proc.wait(8)
        took = time.monotonic() - sent_at
    assert server.process.proc.returncode == 0, server.log_tail()
    if waits_for_the_timeout:
        assert server.shutdown_timeout - 0.5 < took < server.shutdown_timeout + 2, f"took {took:.1f} s"
    else:
        assert took < 1.5, f"took {took:.1f} s"


@pytest.mark.parametrize("sent", [b"", HEAD], ids=["nothing sent", "a request head never finished"])
def test_a_connection_that_never_finishes_its_first_request_is_closed_when_idle(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, sent: bytes
) -> None:
    """`server.idle_timeout` holds from the first byte: a connection cannot be kept open by
    sending nothing, or a request head a byte at a time, however many a client opens."""
    server = make_server(fieldpass_bin, idp, tmp_path)
    server.idle_timeout = 2
    server.start()
    with socket.create_connection((server.host, server.port)) as held:
        held.settimeout(6)
        held.sendall(sent)
        opened = time.monotonic()
        assert held.recv(1024) == b"", "the server answered a request that never ended"
        closed_after = time.monotonic() - opened
    assert 1.5 < closed_after < 4, f"closed after {closed_after:.1f} s"
    with http_client(timeout=2.0) as client:
        assert client.get(f"{server.url}/healthz").status_code == 200, "the server stopped serving"
    server.stop()


def test_an_idle_connection_after_a_request_does_not_delay_the_shutdown(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path
) -> None:
    server = make_server(fieldpass_bin, idp, tmp_path)
    server.shutdown_timeout = 30
    server.start()
    assert server.process is not None
    with http_client(timeout=2.0) as client:
        assert client.get(f"{server.url}/healthz").status_code == 200  # the connection stays open
        sent_at = time.monotonic()
        server.process.proc.send_signal(signal.SIGTERM)
        server.process.proc.wait(8)
    assert server.process.proc.returncode == 0, server.log_tail()
    assert time.monotonic() - sent_at < 1.5, "an idle keep-alive connection held the shutdown"


def test_a_port_in_use_stops_start_up_naming_it(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = make_server(fieldpass_bin, idp, tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", server.port))
        taken.listen()
        server.launch()
        assert server.process is not None
        try:
            server.process.proc.wait(20)
        except Exception:
            pytest.fail(f"the server kept running on a taken port\n{server.log_tail()}")
        log = server.log_tail()
        assert server.process.proc.returncode != 0
        assert f"cannot listen on 127.0.0.1:{server.port}: address already in use" in log, log
        assert "listening" not in log.replace("cannot listen", ""), log
