"""Registrations nobody finishes: a user created by register_device who never completes a
sign-in is removed with their realm, devices and sessions after
`users.unconfirmed_retention`; the integration feed says per realm whether its user has
signed in. Users who signed in, or whom an admin gave a role, stay."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
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


def user_rows(server: FieldpassServer, email: str) -> dict[str, int]:
    found = server.query("SELECT id FROM users WHERE email = ?", email)
    if not found:
        return {"users": 0}
    counts = {
        table: server.query(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", found[0][0])[0][0]
        for table in ("realms", "devices", "sessions")
    }
    return {"users": 1, **counts}


def test_an_unfinished_registration_is_removed_and_the_feed_says_who_signed_in(server: FieldpassServer) -> None:
    abandoned, finished, prepared = unique_email("abandoned"), unique_email("finished"), unique_email("prepared")
    server.register(abandoned)
    server.register(prepared)
    assert server.grant_role(prepared, "manager").returncode == 0
    signed_in = sign_in(server, finished)
    assert user_rows(server, abandoned) == {"users": 1, "realms": 1, "devices": 1, "sessions": 1}

    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
        backend.authenticate()
        entries, _ = backend.drain()
        by_email = {entry["email"]: entry for entry in entries}
        assert by_email[abandoned]["signed_in"] is False, by_email[abandoned]
        assert by_email[finished]["signed_in"] is True, by_email[finished]
        assert by_email[finished]["realm_path"] == signed_in.realm_path

        wait_until(
            lambda: user_rows(server, abandoned) == {"users": 0},
            timeout=SESSION_TTL + RETENTION + 8, what="the abandoned registration to be removed",
        )
        remaining, _ = backend.drain()
    assert abandoned not in {entry["email"] for entry in remaining}
    assert server.query("SELECT COUNT(*) FROM realms WHERE path LIKE '/users/%' AND user_id IS NULL")[0][0] == 0
    assert user_rows(server, finished)["users"] == 1, "a user who signed in was removed"
    assert user_rows(server, prepared)["users"] == 1, "a user an admin gave a role was removed"
    # The abandoned worker may still come back: a new registration starts over.
    assert server.post_register({"email": abandoned}).status_code == 201


def test_a_running_registration_keeps_its_user(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, session_ttl=600)
    try:
        email = unique_email("waiting")
        server.register(email)
        # Past the retention, but its session still runs: the worker may be signing in now.
        time.sleep(RETENTION + 2.5)
        assert user_rows(server, email) == {"users": 1, "realms": 1, "devices": 1, "sessions": 1}
    finally:
        server.stop()


def test_retention_zero_keeps_everyone_and_keeps_serving(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, session_ttl=1, retention=0)
    try:
        email = unique_email("kept")
        server.register(email)
        time.sleep(3)  # the session has expired and been swept
        assert server.process is not None and server.process.alive(), "the server stopped with retention 0"
        assert server.get("/healthz").status_code == 200
        assert user_rows(server, email)["users"] == 1
    finally:
        server.stop()
