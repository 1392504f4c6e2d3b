"""`kill -9` of the server at each step of an onboarding, then a restart on the same data.

The device reconnects with `after=N` (the last seq it got) and receives every remaining
event exactly once and in order; no step runs twice: a replay from the start gives each
event once, and an admin and the integration see one identity binding, one device and one
realm; the refresh token works.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    MockIdP,
    browser_login,
    assert_json,
    cli_output,
    describe,
    feed_realms,
    is_html,
    receive,
    receive_until_close,
    sign_in,
    start_server,
    unique_email,
    ws_connect,
)


@pytest.fixture
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[FieldpassServer]:
    server = start_server(fieldpass_bin, idp, tmp_path, environments=DIRECTORY_ENVIRONMENTS)
    try:
        yield server
    finally:
        server.stop()


def crash_and_restart(server: FieldpassServer) -> None:
    server.kill()
    server.start(new_key=False)


def events_from(server: FieldpassServer, websocket_url: str, after: int, count: int) -> list[dict]:
    with ws_connect(f"{websocket_url}&after={after}") as ws:
        return receive(ws, count)


@pytest.mark.parametrize("step", ["registered", "token", "realm_initialized"])
def test_an_onboarding_survives_a_kill_at_each_step(server: FieldpassServer, step: str) -> None:
    email = unique_email("crash")
    registration = server.register(email)
    url = registration.websocket_url
    seen: list[dict] = []

    if step == "registered":
        crash_and_restart(server)
    callback = browser_login(registration.login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    if step == "token":
        seen += events_from(server, url, 0, 1)
        crash_and_restart(server)
    seen += events_from(server, url, len(seen), 2 - len(seen))
    realm_path = seen[1]["realm_path"]
    if step == "realm_initialized":
        crash_and_restart(server)

    with ws_connect(f"{url}&after={len(seen)}") as ws:
        marked = server.mark_initialized(realm_path)
        assert marked.returncode == 0, cli_output(marked)
        rest = receive_until_close(ws)
    seen += rest.events

    assert [e["type"] for e in seen] == ["token", "realm_initialized", "data_ready"], seen
    assert [e["seq"] for e in seen] == [1, 2, 3], seen
    assert rest.closed and rest.close_code == 1000, rest
    server.verify_access_token(seen[0]["access_token"])
    # A reconnect from the start replays everything once each, token included: the device
    # has not acknowledged the end. Its reconnect past the end does, and the token event goes.
    with ws_connect(f"{url}&after=0") as ws:
        again = receive_until_close(ws)
    assert again.events == seen, again
    with ws_connect(f"{url}&after=3") as ws:
        assert receive_until_close(ws).events == []
    with ws_connect(f"{url}&after=0") as ws:
        acknowledged = receive_until_close(ws)
    assert acknowledged.events == seen[1:], acknowledged

    # What an admin and the integration see: one identity binding, one device, one realm.
    claims = server.verify_access_token(seen[0]["access_token"])
    admin = sign_in(server, ADMIN_EMAIL).access_token
    user = assert_json(server.api("GET", f"/admin/users/{claims['sub']}", token=admin))
    assert (user["email"], user.get("idp_subject")) == (email, email), user
    devices = assert_json(server.api("GET", f"/admin/users/{claims['sub']}/devices", token=admin))["devices"]
    assert [device["id"] for device in devices] == [claims["device_id"]], devices
    realms = [realm for realm in feed_realms(server, DEV_BACKEND).values() if realm["email"] == email]
    assert [realm["realm_path"] for realm in realms] == [realm_path], realms
    assert_json(server.refresh(seen[0]["refresh_token"]))
