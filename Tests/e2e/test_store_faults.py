"""A disk that refuses writes gives 503 `store_unavailable`, not a crash, and the server
recovers by itself once writes work again.

The refusal is the server's own file size limit lowered while it runs (`prlimit`), so
every SQLite write fails with EFBIG as on a full disk, without root or a special
filesystem. PostgreSQL's disk is the database server's; its errors of class 53
(disk full) map to the same 503 in code.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from helpers import (
    FieldpassServer,
    MockIdP,
    SQLiteDatabase,
    cli_users,
    describe,
    server_env,
    server_in,
    unique_email,
)


@pytest.fixture
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[FieldpassServer]:
    server = server_in(
        tmp_path, fieldpass_bin, idp, server_env(None, None), database=SQLiteDatabase(tmp_path / "fieldpass.sqlite")
    )
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def writes_refused(server: FieldpassServer) -> Iterator[None]:
    assert server.process is not None
    pid = server.process.proc.pid
    before = resource.prlimit(pid, resource.RLIMIT_FSIZE)
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, before[1]))
    try:
        yield
    finally:
        resource.prlimit(pid, resource.RLIMIT_FSIZE, before)


def test_a_full_disk_answers_503_and_recovers(server: FieldpassServer) -> None:
    assert server.post_register({"email": unique_email("before")}).status_code == 201
    refused = [unique_email("full") for _ in range(3)]
    with writes_refused(server):
        for email in refused:
            response = server.post_register({"email": email})
            assert response.status_code == 503, describe(response)
            assert response.json()["error"] == "store_unavailable", describe(response)
            assert response.headers["retry-after"] == "5"
        # Reads still work: the token endpoint's refusal of a bad token is still an answer.
        assert server.get("/healthz").status_code == 200
        assert server.process is not None and server.process.alive(), "the server died on a full disk"
    stored = [line for line in cli_users(server) if line.split()[2] in refused]
    assert not stored, f"a refused registration was stored: {stored}"
    assert server.post_register({"email": unique_email("after")}).status_code == 201, "no recovery once the disk had room"
