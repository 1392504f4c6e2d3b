"""Where a server under test keeps its state, SQLite or PostgreSQL: how its config names
the store, and how a test run makes and drops whole databases. The tests never read or
write what is inside; they see it through the API, the CLI, the metrics and the logs.

FIELDPASS_E2E_STORE picks the store (sqlite by default). With postgres, every server gets
a fresh database on the server FIELDPASS_TEST_POSTGRES_URL names (the password from
FIELDPASS_TEST_POSTGRES_PASSWORD), dropped when the server is torn down.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

STORE_ENV = "FIELDPASS_E2E_STORE"
POSTGRES_URL_ENV = "FIELDPASS_TEST_POSTGRES_URL"
POSTGRES_PASSWORD_ENV = "FIELDPASS_TEST_POSTGRES_PASSWORD"
STORES = ("sqlite", "postgres")


def store_kind() -> str:
    """The store the suite runs on: `sqlite` (the default) or `postgres`."""
    return os.environ.get(STORE_ENV, "sqlite").strip().lower() or "sqlite"


def store_problem() -> str | None:
    """Why the suite cannot run on the store it was asked for, or None."""
    kind = store_kind()
    if kind not in STORES:
        return f"{STORE_ENV}={kind!r}: must be one of {', '.join(STORES)}"
    if kind == "postgres" and not os.environ.get(POSTGRES_URL_ENV):
        return (
            f"{STORE_ENV}=postgres needs {POSTGRES_URL_ENV} (postgres://USER@127.0.0.1:PORT/DB of a "
            f"server where USER may create databases; its password in {POSTGRES_PASSWORD_ENV})"
        )
    return None


class Database(Protocol):
    """How a server's config names its store, and how the test run drops it."""

    def config_lines(self) -> list[str]: ...

    def drop(self) -> None: ...


@dataclass
class SQLiteDatabase:
    path: Path

    def config_lines(self) -> list[str]:
        return ["storage:", f"  sqlite_path: {json.dumps(str(self.path))}"]

    def drop(self) -> None:
        """The file stays with the test's other files."""


@dataclass
class PostgresDatabase:
    """One database on a PostgreSQL server, named by `url` (postgres://user@host:port/name)."""

    url: str
    password: str | None = field(repr=False)
    password_env: str | None
    # storage.postgres.timeout, when not the server's default.
    timeout: int | None = None
    # The database to connect to when dropping this one.
    admin_database: str = "postgres"
    # storage.postgres.tls and storage.postgres.ca_file, when given.
    tls: str | None = None
    ca_file: Path | None = None

    @property
    def name(self) -> str:
        return urlsplit(self.url).path.lstrip("/")

    def config_lines(self) -> list[str]:
        lines = ["storage:", "  driver: postgres", "  postgres:", f"    url: {json.dumps(self.url)}"]
        if self.password_env:
            lines.append(f"    password_env: {self.password_env}")
        if self.timeout is not None:
            lines.append(f"    timeout: {self.timeout}")
        if self.tls is not None:
            lines.append(f"    tls: {self.tls}")
        if self.ca_file is not None:
            lines.append(f"    ca_file: {json.dumps(str(self.ca_file))}")
        return lines

    def run_client(self, *command: str, connect_timeout: int = 5) -> subprocess.CompletedProcess[str]:
        """One of PostgreSQL's client programs (`createdb`, `dropdb`, a script of `scripts/`),
        with this server's password and a connect timeout in its environment."""
        env = {**os.environ, "PGCONNECT_TIMEOUT": str(connect_timeout)}
        if self.password is not None:
            env["PGPASSWORD"] = self.password
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=connect_timeout + 30)
        if result.returncode != 0:
            # Say why: a bare exit status hid the cause of a createdb that failed once in a clean run.
            raise ClientFailed(result.returncode, command, result.stdout, result.stderr)
        return result

    def with_database(self, name: str) -> PostgresDatabase:
        parts = urlsplit(self.url)
        return dataclasses.replace(self, url=urlunsplit(parts._replace(path=f"/{name}")))

    def create(self, name: str | None = None, *, track: bool = True) -> PostgresDatabase:
        """A new empty database (`name`, else fieldpass_e2e_<hex>) on this one's server;
        `track`: dropped at the latest when the test session ends."""
        name = name or f"fieldpass_e2e_{uuid.uuid4().hex[:16]}"
        self.run_client("createdb", f"--maintenance-db={self.url}", name)
        created = dataclasses.replace(self.with_database(name), admin_database=self.name)
        if track:
            CREATED.append(created)
        return created

    def drop(self) -> None:
        """Drop this database (its connections too), best effort: a leftover is no failure."""
        maintenance = self.with_database(self.admin_database)
        try:
            self.run_client("dropdb", "--if-exists", "--force", f"--maintenance-db={maintenance.url}", self.name, connect_timeout=3)
        except (OSError, subprocess.SubprocessError):  # the server may be gone; the test's outcome stands
            return
        if self in CREATED:
            CREATED.remove(self)


class ClientFailed(subprocess.CalledProcessError):
    """A PostgreSQL client program that failed, with what it said on stderr."""

    def __str__(self) -> str:
        return f"{super().__str__()}: {(self.stderr or '').strip()[-2000:]}"


# Databases this test run created and has not dropped yet.
CREATED: list[PostgresDatabase] = []


def drop_leftover_databases() -> None:
    """Drop what servers that were never torn down (or only configured) left behind."""
    for database in list(CREATED):
        database.drop()


def postgres_server() -> PostgresDatabase:
    """The PostgreSQL server FIELDPASS_TEST_POSTGRES_URL names (its own database)."""
    url = os.environ.get(POSTGRES_URL_ENV)
    assert url, store_problem()
    password = os.environ.get(POSTGRES_PASSWORD_ENV) or None
    return PostgresDatabase(url, password, POSTGRES_PASSWORD_ENV if password else None)


def fresh_postgres_database() -> PostgresDatabase:
    """A new empty database fieldpass_e2e_<hex> on the test PostgreSQL server."""
    return postgres_server().create()


def fresh_database(workdir: Path) -> Database:
    """Where a new server keeps its state: a SQLite file in `workdir`, or a fresh PostgreSQL
    database, as FIELDPASS_E2E_STORE says."""
    if store_kind() == "postgres":
        return fresh_postgres_database()
    return SQLiteDatabase(workdir / "fieldpass.sqlite")

