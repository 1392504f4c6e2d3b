"""Logs: one access-log line per request (method, route template, status, duration, request
id), `X-Request-ID` kept or made and returned, `--log-format json|text`, and no secret in
any line.

The secret check runs a whole onboarding and token life on one server at debug level:
registration, the device's socket, the IdP sign-in and its callback, refresh, the backend's
client_credentials, introspection, `/me` and revocation. It records every session id,
state, nonce, code, token and client secret the run used, and then looks for each in
every line the server wrote.
"""

from __future__ import annotations

import json
import re
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    IDP_CLIENT_SECRET,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    browser_login,
    http_client,
    receive,
    server_env,
    server_in,
    unique_email,
    ws_connect,
)
from helpers.processes import wait_until
from oauth_flows import assert_active, assert_me_works, introspect, refreshed

ACCESS_FIELDS = ("http.method", "http.route", "http.status", "duration_ms", "hb.request.id")


@pytest.fixture(scope="module")
def json_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    workdir = tmp_path_factory.mktemp("logs-json")
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, DIRECTORY_ENVIRONMENTS), environments=DIRECTORY_ENVIRONMENTS)
    server.serve_args = ("--log-format", "json", "--log-level", "debug")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def log_lines(server: FieldpassServer) -> list[str]:
    assert server.process is not None
    return server.process.stderr_path.read_text().splitlines()


def json_records(server: FieldpassServer) -> list[dict[str, str]]:
    records = []
    for line in log_lines(server):
        record = json.loads(line)  # every line is one JSON object
        assert {"time", "level", "label", "message"} <= record.keys(), record
        records.append(record)
    return records


def access_records(server: FieldpassServer, request_id: str) -> list[dict[str, str]]:
    return [r for r in json_records(server) if r["message"] == "Request" and r.get("hb.request.id") == request_id]


def test_each_request_gets_one_access_line_with_its_route_template(json_server: FieldpassServer) -> None:
    with http_client() as client:
        response = client.get(f"{json_server.url}/events", params={"session_id": "x" * 43, "after": "7"},
                              headers={"X-Request-ID": "trace-0001.a:b"})
    assert response.status_code == 404, response.text
    assert response.headers["x-request-id"] == "trace-0001.a:b"
    (record,) = access_records(json_server, "trace-0001.a:b")
    assert {key: record[key] for key in ACCESS_FIELDS[:3]} == {
        "http.method": "GET", "http.route": "/events", "http.status": "404",
    }, record
    assert re.fullmatch(r"\d+\.\d{3}", record["duration_ms"]), record
    assert "x" * 43 not in json.dumps(record)


def test_a_route_with_a_parameter_is_logged_by_its_template(json_server: FieldpassServer) -> None:
    with http_client() as client:
        response = client.get(f"{json_server.url}/admin/users/user-id-123/devices", headers={"X-Request-ID": "param-route"})
    assert response.status_code == 401, response.text
    (record,) = access_records(json_server, "param-route")
    assert record["http.route"] == "/admin/users/{user_id}/devices", record
    assert record["http.status"] == "401"


@pytest.mark.parametrize("sent", ["", "a b", "x" * 129, "line\\nbreak", "ümlaut", "{json}"])
def test_an_unusable_request_id_is_replaced_by_a_generated_one(json_server: FieldpassServer, sent: str) -> None:
    with http_client() as client:
        response = client.get(f"{json_server.url}/healthz", headers={"X-Request-ID": sent.encode("utf-8")})
    returned = response.headers["x-request-id"]
    assert returned and returned != sent and re.fullmatch(r"[A-Za-z0-9._:-]{1,128}", returned), returned
    (record,) = access_records(json_server, returned)
    assert record["http.route"] == "/healthz"


def test_without_a_request_id_one_is_generated_and_unique(json_server: FieldpassServer) -> None:
    with http_client() as client:
        ids = {client.get(f"{json_server.url}/healthz").headers["x-request-id"] for _ in range(5)}
    assert len(ids) == 5, ids


def test_a_connection_that_ends_before_its_first_request_is_no_error(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    """Browsers open connections ahead of need and let the unused ones go, sometimes with a
    reset; the server closes one that sends nothing by `server.idle_timeout`; a client may
    give up halfway through its first line. None of them is an error: each is one debug line,
    and nothing is logged as an error (the WebSocket upgrade's "Error handling upgrade
    result", with no request id, was)."""
    server = server_in(tmp_path, fieldpass_bin, idp, server_env({"SERVER_IDLE_TIMEOUT": "1"}, None))
    server.serve_args = ("--log-format", "json", "--log-level", "debug")
    server.start()
    try:
        ended = "Connection closed before its first request"
        logged_before = len(json_records(server))
        reset = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() sends a reset
        for sent, linger in ((b"", reset), (b"GET /heal", reset), (b"GET /healthz HTTP/1.1\r\n", None)):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as connection:
                connection.sendall(sent)
                if linger:
                    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        # One the server closes: nothing comes within idle_timeout.
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as idle:
            assert idle.recv(1) == b"", "the server answered a connection that sent nothing"

        def since() -> list[dict[str, str]]:
            return json_records(server)[logged_before:]

        # Whatever the server makes of each connection, it says so in a line, debug or error.
        wait_until(lambda: len([r for r in since() if r["message"] == ended or r["level"] in ("error", "critical")]) >= 4,
                   timeout=10, what="a line about each of the four connections")
        errors = [r for r in since() if r["level"] in ("error", "critical")]
        assert not errors, errors
        assert len([r for r in since() if r["message"] == ended and r["level"] == "debug"]) == 4, since()
    finally:
        server.stop()


def test_text_format_is_the_default(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, None))
    server.start()
    try:
        with http_client() as client:
            client.get(f"{server.url}/healthz", headers={"X-Request-ID": "text-line"})
        (line,) = [line for line in log_lines(server) if "hb.request.id=text-line" in line]
        assert "http.route=/healthz" in line and "http.status=200" in line and line.rstrip().endswith("Request"), line
        with pytest.raises(json.JSONDecodeError):
            json.loads(line)
    finally:
        server.stop()


def test_no_secret_of_a_whole_run_reaches_the_log(json_server: FieldpassServer) -> None:
    server = json_server
    secrets: dict[str, str] = {"IdP client secret": IDP_CLIENT_SECRET, "service account secret": DEV_BACKEND.secret}

    email = unique_email("logs")
    registration = server.register(email, None)
    secrets["session id"] = registration.session_id
    for name, value in parse_qsl(urlsplit(registration.login_url).query):
        if name in {"state", "nonce", "code_challenge", "token", "confirmation"}:
            secrets[f"login URL {name}"] = value
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, email)
        assert callback.status_code == 200
        query = dict(parse_qsl(urlsplit(str(callback.request.url)).query))
        secrets["authorization code"] = query["code"]
        secrets["callback state"] = query["state"]
        token_event, _ = receive(ws, 2)
    secrets["device access token"] = token_event["access_token"]
    secrets["device refresh token"] = token_event["refresh_token"]
    assert_me_works(server, token_event["access_token"])

    rotated = refreshed(server, token_event["refresh_token"])
    secrets["rotated access token"] = rotated["access_token"]
    secrets["rotated refresh token"] = rotated["refresh_token"]

    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as client:
        service = client.authenticate()["access_token"]
    secrets["service access token"] = service
    assert_active(server, rotated["access_token"])
    introspect(server, "not-a-token-" + "z" * 30)
    with http_client() as client:
        revoked = client.post(f"{server.url}/revoke", data={"token": rotated["refresh_token"], "client_id": "device"})
        assert revoked.status_code in (200, 400), revoked.text
        # A wrong client secret must not be logged either.
        wrong = client.post(f"{server.url}/token", data={"grant_type": "client_credentials"},
                            auth=httpx.BasicAuth(DEV_BACKEND.id, "wrong-secret-" + "q" * 20))
        assert wrong.status_code == 401
    secrets["wrong client secret"] = "wrong-secret-" + "q" * 20

    lines = log_lines(server)
    assert len(lines) > 20, "the run logged almost nothing; the check would prove little"
    leaks = [(name, line) for name, value in secrets.items() for line in lines if value in line]
    assert not leaks, "\n".join(f"{name}: {line}" for name, line in leaks)
    # The token-shaped parts of a JWT, too: its signature alone is enough to replay nothing,
    # but a payload segment would carry the person's claims.
    for name in ("device access token", "service access token"):
        for segment in secrets[name].split(".")[1:]:
            assert not any(segment in line for line in lines), f"a segment of the {name} is in the log"
