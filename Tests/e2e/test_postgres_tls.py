"""PostgreSQL over TLS (`storage.postgres.tls`, `storage.postgres.ca_file`) against a real,
TLS-only server: the right CA serves, another CA stops start-up and `fieldpass migrate`
with a message naming the server and the reason, `tls: disable` is refused by the server
clearly, and `require` encrypts without a CA file.

The module starts a PostgreSQL of its own (scripts/postgres-cluster --tls) with a
certificate from a CA it makes in a temporary folder (helpers.LocalCA); the rest of the suite
keeps its plain test server. PostgreSQL only: deselected on SQLite.
"""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from helpers import (
    FieldpassServer,
    LocalCA,
    MockIdP,
    OwnPostgres,
    PostgresDatabase,
    cli_output,
    describe,
    free_port,
    server_env,
    server_in,
    unique_email,
)

pytestmark = pytest.mark.postgres_only

EXIT_TIMEOUT = 20  # seconds a server that cannot reach its database may take to give up

Serve = Callable[[PostgresDatabase], FieldpassServer]


@dataclass
class TLSPostgres:
    """The TLS-only server, the CA that signed its certificate, and a CA that did not."""

    own: OwnPostgres
    ca: LocalCA
    other_ca: LocalCA

    def database(self, tls: str, ca_file: Path | None = None, host: str = "127.0.0.1") -> PostgresDatabase:
        """A new database on the server, configured with `tls`, `ca_file` and `host`."""
        created = self.own.server().create(track=False)
        parts = urlsplit(created.url)
        url = urlunsplit(parts._replace(netloc=f"{parts.username}@{host}:{self.own.port}"))
        return dataclasses.replace(created, url=url, tls=tls, ca_file=ca_file)


@pytest.fixture(scope="module")
def tls_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TLSPostgres]:
    folder = tmp_path_factory.mktemp("pg-tls")
    ca = LocalCA.make(folder / "ca", "Fieldpass e2e test CA")
    other_ca = LocalCA.make(folder / "other-ca", "Some other CA")
    own = OwnPostgres(free_port(), tls_dir=ca.issue_server())
    own.start()
    try:
        yield TLSPostgres(own, ca, other_ca)
    finally:
        own.destroy()


@pytest.fixture
def serve(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[Serve]:
    """Starts a server on a database; stops it when the test ends."""
    started: list[FieldpassServer] = []

    def start(database: PostgresDatabase) -> FieldpassServer:
        server = server_in(tmp_path / f"server-{len(started)}", fieldpass_bin, idp, server_env(None, None), database=database)
        started.append(server)
        server.start()
        return server

    yield start
    for server in started:
        server.stop()


def assert_serves(server: FieldpassServer) -> None:
    ready = server.get("/readyz")
    assert ready.status_code == 200 and ready.json().get("status") == "ready", describe(ready)
    registered = server.post_register({"email": unique_email("tls"), "device": {"name": "Pixel 8", "platform": "android"}})
    assert registered.status_code == 201, describe(registered)


def refused_start(fieldpass_bin: Path, idp: MockIdP, workdir: Path, database: PostgresDatabase) -> tuple[str, str]:
    """`fieldpass serve` and `fieldpass migrate` on `database`, both expected to fail:
    their stderr."""
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, None), database=database)
    server.launch()
    assert server.process is not None
    try:
        server.process.proc.wait(EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.stop()
        pytest.fail(f"the server kept running without its database\n{server.log_tail()}")
    serve_log = server.log_tail()
    assert server.process.proc.returncode != 0, serve_log
    assert "listening" not in serve_log.lower(), serve_log
    server.stop()
    migrate = server.cli("migrate", "--config", str(server.config_path))
    assert migrate.returncode != 0, cli_output(migrate)
    return serve_log, migrate.stderr


def assert_names_server_and_reason(output: str, port: int, mode: str, *reason: str) -> None:
    assert f"cannot connect to PostgreSQL at 127.0.0.1:{port} (storage.postgres.tls: {mode}): " in output, output
    for words in reason:
        assert words in output, output
    # One readable line, not PostgresNIO's redacted error or a stack of NIO errors.
    assert "PSQLError" not in output and "Generic description" not in output, output


def test_the_right_ca_with_verify_full_serves(serve: Serve, tls_postgres: TLSPostgres) -> None:
    server = serve(tls_postgres.database("verify-full", tls_postgres.ca.certificate))

    assert_serves(server)
    migrate = server.cli("migrate", "--config", str(server.config_path))
    assert migrate.returncode == 0 and "up to date" in migrate.stdout, cli_output(migrate)


def test_verify_full_works_through_a_host_name(serve: Serve, tls_postgres: TLSPostgres) -> None:
    """Through `localhost` (a DNS name of the certificate) as through its IP address. That a
    name the certificate lacks is refused is NIOSSL's check, not shown here."""
    server = serve(tls_postgres.database("verify-full", tls_postgres.ca.certificate, host="localhost"))

    assert_serves(server)


def test_another_ca_stops_start_up_naming_the_server_and_the_reason(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, tls_postgres: TLSPostgres
) -> None:
    database = tls_postgres.database("verify-full", tls_postgres.other_ca.certificate)

    serve_log, migrate_error = refused_start(fieldpass_bin, idp, tmp_path, database)

    for output in (serve_log, migrate_error):
        assert_names_server_and_reason(output, tls_postgres.own.port, "verify-full", "certificate did not verify", "storage.postgres.ca_file")


def test_tls_disable_against_a_tls_only_server_fails_clearly(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, tls_postgres: TLSPostgres
) -> None:
    database = tls_postgres.database("disable")

    serve_log, migrate_error = refused_start(fieldpass_bin, idp, tmp_path, database)

    for output in (serve_log, migrate_error):
        assert_names_server_and_reason(output, tls_postgres.own.port, "disable", "the server refused", "no encryption")


def test_require_encrypts_without_a_ca_file(serve: Serve, tls_postgres: TLSPostgres) -> None:
    server = serve(tls_postgres.database("require"))

    assert_serves(server)
