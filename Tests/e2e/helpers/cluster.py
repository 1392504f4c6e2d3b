"""Several `fieldpass serve` instances on one PostgreSQL database, and a PostgreSQL server
of a test's own that it can stop and start.

The instances share one signing key (generated once, every instance's `tokens.keys_dir`
points at it) and one issuer: every `server.public_url` is instance A's address, the
address a load balancer would have. So the URLs the server hands out (login_url,
websocket_url, the IdP's redirect to /auth_callback) name A; `on(instance, url)` sends
one of them to another instance instead.
"""

from __future__ import annotations

import math
import secrets
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

import pytest

from .database import PostgresDatabase, fresh_postgres_database
from .environments import EnvironmentSpec
from .idp import MockIdP
from .processes import REPO_ROOT, _die_with_parent, cli_output
from .server import FieldpassServer, server_env, server_in

POSTGRES_CLUSTER = REPO_ROOT / "scripts" / "postgres-cluster"


class Addressed(Protocol):
    """Anything with its own base URL: a FieldpassServer, or an instance known by address only."""

    @property
    def url(self) -> str: ...


def on(instance: Addressed, url: str) -> str:
    """`url` (which names the shared public address) sent to `instance` instead."""
    parts = urlsplit(url)
    own = urlsplit(instance.url)
    return urlunsplit(parts._replace(netloc=own.netloc))


def path_and_query(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass
class Cluster:
    """Instances A, B, C, ... of one deployment: one database, one key, one issuer."""

    instances: list[FieldpassServer]
    database: PostgresDatabase

    def __getitem__(self, index: int) -> FieldpassServer:
        return self.instances[index]

    @property
    def public_url(self) -> str:
        return self.instances[0].public_url

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()
        self.database.drop()


def cluster_in(
    binary: Path, idp: MockIdP, workdir: Path, count: int,
    *, environments: Sequence[EnvironmentSpec] | None = None,
    extra_env: Mapping[str, str] | None = None,
    database: PostgresDatabase | None = None,
) -> Cluster:
    """`count` instances (not started) on `database`, else on a fresh database of the test
    server: one key folder (no key yet), one issuer."""
    if database is None:
        database = fresh_postgres_database()
    env = server_env(extra_env, environments)
    instances: list[FieldpassServer] = []
    for index in range(count):
        instance = server_in(
            workdir / f"instance-{chr(ord('a') + index)}", binary, idp, dict(env),
            environments=environments, database=database,
        )
        instance.keys_dir = workdir / "keys"
        instance.shared_public_url = instances[0].url if instances else instance.url
        instances.append(instance)
    return Cluster(instances, database)


def start_cluster(
    binary: Path, idp: MockIdP, workdir: Path, count: int,
    *, environments: Sequence[EnvironmentSpec] | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Cluster:
    """`count` instances on a fresh database, started at once (they take turns migrating
    the empty database)."""
    cluster = cluster_in(binary, idp, workdir, count, environments=environments, extra_env=extra_env)
    instances = cluster.instances
    try:
        instances[0].generate_key()
        for instance in instances:
            instance.launch(new_key=False)
        for instance in instances:
            instance.wait_ready()
    except BaseException:
        cluster.stop()
        raise
    return cluster


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest sample with `fraction` of them at or below it."""
    ordered = sorted(samples)
    rank = min(max(1, math.ceil(fraction * len(ordered))), len(ordered))
    return ordered[rank - 1]


@dataclass
class OwnPostgres:
    """A throw-away PostgreSQL on `port` (scripts/postgres-cluster), with a random password;
    with `tls_dir` (server.crt, server.key), TLS only."""

    port: int
    password: str = field(default_factory=lambda: secrets.token_urlsafe(18), repr=False)
    password_env: str = "FIELDPASS_E2E_OWN_PG_PASSWORD"
    tls_dir: Path | None = None

    def _run(self, action: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        options = ["--tls", str(self.tls_dir)] if action == "start" and self.tls_dir is not None else []
        try:
            result = subprocess.run(
                [str(POSTGRES_CLUSTER), action, str(self.port), *options],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                env={**server_env(None, None), "FIELDPASS_PG_PASSWORD": self.password},
                preexec_fn=_die_with_parent,
            )
        except subprocess.TimeoutExpired as error:
            pytest.fail(f"postgres-cluster {action} {self.port} did not finish in {timeout} s: {error}")
        assert result.returncode == 0, f"postgres-cluster {action} {self.port}: {cli_output(result)}"
        return result

    def start(self) -> None:
        self._run("start")

    def stop(self) -> None:
        self._run("stop")

    def destroy(self) -> None:
        self._run("destroy")

    def server(self, timeout: int | None = None) -> PostgresDatabase:
        """Its `postgres` database (create others from it), `timeout` for the servers' config."""
        return PostgresDatabase(
            f"postgres://fieldpass@127.0.0.1:{self.port}/postgres", self.password, self.password_env,
            timeout=timeout,
        )
