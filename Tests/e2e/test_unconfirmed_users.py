"""Registrations nobody finishes: a user created by register_device who never completes a
sign-in is removed with their realm, devices and sessions after
`users.unconfirmed_retention`; the integration feed says per realm whether its user has
signed in. Users who signed in, or whom an admin gave a role, stay."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    Registration,
    cli_output,
    feed_realms,
    http_client,
    start_server,
    sign_in,
    unique_email,
    wait_until,
)

RETENTION = 2
SESSION_TTL = 3


def start(workdir: Path, fieldpass_bin: Path, idp: MockIdP, session_ttl: int, retention: int = RETENTION) -> FieldpassServer:
    env = {
        "USERS_UNCONFIRMED_RETENTION": str(retention),
        "SESSIONS_TTL": str(session_ttl),
        "SESSIONS_SWEEP_INTERVAL": "1",
    }
    return start_server(fieldpass_bin, idp, workdir, env, environments=DIRECTORY_ENVIRONMENTS)


@pytest.fixture
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[FieldpassServer]:
    server = start(tmp_path, fieldpass_bin, idp, SESSION_TTL)
    try:
        yield server
    finally:
        server.stop()


def footprint(server: FieldpassServer, registration: Registration) -> dict[str, Any]:
    """What is left of the registration: its user and their devices (`fieldpass admin
    devices`, which knows no removed user), their realms on the integration feed, and its
    session (its login link answers 200 while it waits, 410 once it ended, 404 once removed)."""
    email = registration.email
    with http_client() as stranger:
        sessions = int(stranger.get(registration.login_url).status_code != 404)
    devices = server.cli("admin", "devices", email, "--env", "dev", "--config", str(server.config_path))
    if devices.returncode != 0:
        assert f"no user {email} " in devices.stderr, cli_output(devices)
        return {"users": 0, "sessions": sessions}
    realms = [realm for realm in feed_realms(server, DEV_BACKEND).values() if realm["email"] == email]
    return {"users": 1, "realms": len(realms), "devices": len(devices.stdout.splitlines()), "sessions": sessions}


def test_an_unfinished_registration_is_removed_and_the_feed_says_who_signed_in(server: FieldpassServer) -> None:
    abandoned, finished, prepared = unique_email("abandoned"), unique_email("finished"), unique_email("prepared")
    left_behind = server.register(abandoned)
    kept = server.register(prepared)
    assert server.grant_role(prepared, "manager").returncode == 0
    signed_in = sign_in(server, finished)
    assert footprint(server, left_behind) == {"users": 1, "realms": 1, "devices": 1, "sessions": 1}

    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
        backend.authenticate()
        entries, _ = backend.drain()
        by_email = {entry["email"]: entry for entry in entries}
        assert by_email[abandoned]["signed_in"] is False, by_email[abandoned]
        assert by_email[finished]["signed_in"] is True, by_email[finished]
        assert by_email[finished]["realm_path"] == signed_in.realm_path

        wait_until(
            lambda: footprint(server, left_behind) == {"users": 0, "sessions": 0},
            timeout=SESSION_TTL + RETENTION + 8, what="the abandoned registration to be removed",
        )
        remaining, _ = backend.drain()
    assert abandoned not in {entry["email"] for entry in remaining}
    assert footprint(server, signed_in.registration)["users"] == 1, "a user who signed in was removed"
    assert footprint(server, kept)["users"] == 1, "a user an admin gave a role was removed"
    # The abandoned worker may still come back: a new registration starts over.
    assert server.post_register({"email": abandoned}).status_code == 201


def test_a_running_registration_keeps_its_user(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, session_ttl=600)
    try:
        registration = server.register(unique_email("waiting"))
        # Past the retention, but its session still runs: the worker may be signing in now.
        time.sleep(RETENTION + 2.5)
        assert footprint(server, registration) == {"users": 1, "realms": 1, "devices": 1, "sessions": 1}
    finally:
        server.stop()


def test_retention_zero_keeps_everyone_and_keeps_serving(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, session_ttl=1, retention=0)
    try:
        registration = server.register(unique_email("kept"))
        time.sleep(3)  # the session has expired and been swept
        assert server.process is not None and server.process.alive(), "the server stopped with retention 0"
        assert server.get("/healthz").status_code == 200
        assert footprint(server, registration)["users"] == 1
    finally:
        server.stop()
