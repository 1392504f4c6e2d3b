"""The servers under test, built from the e2e helpers: one instance on SQLite, or two
instances on one PostgreSQL database (one key, one issuer), each with a generated config
and key in the benchmark's temporary folder, where they also log.

Two environments share the mock IdP: `dev` (example.com) with a service account for
client_credentials, and `push` (push.test) with `confirm_device: false`, so that a
registration's login_url carries its OAuth state (what the socket tool needs to store
`login_failed` events).
"""

from __future__ import annotations

import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from helpers import (
    STARTUP_TIMEOUT,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    OwnPostgres,
    PostgresDatabase,
    ServiceAccountSpec,
    SQLiteDatabase,
    cli_output,
    cluster_in,
    http_client,
    server_env,
    server_in,
)
from loadgen import HarnessError
from sockets import rss_kb

DEV_DOMAIN = "example.com"
PUSH_DOMAIN = "push.test"
BACKEND = ServiceAccountSpec("bench-backend", "BENCH_BACKEND_SECRET", secrets.token_urlsafe(24))
ENVIRONMENTS = (
    EnvironmentSpec("dev", (DEV_DOMAIN,), service_accounts=(BACKEND,)),
    EnvironmentSpec("push", (PUSH_DOMAIN,)),
)
# The generated config has no per-environment switch for this; the override is the
# documented way (README, "Configuration").
EXTRA_ENV = {"ENVIRONMENTS_PUSH_CONFIRM_DEVICE": "false"}
READY_POLL = 0.001
PORT_WAIT = 70.0


@dataclass
class Deployment:
    """Running instances of one store, and how long each took from spawn to ready."""

    store: str
    instances: list[FieldpassServer]
    start_to_ready_ms: list[float]
    database: PostgresDatabase | None = None  # on PostgreSQL

    @property
    def pids(self) -> list[int]:
        return [instance.process.proc.pid for instance in self.instances if instance.process]

    def rss_per_instance_kb(self) -> list[int]:
        return [rss_kb([pid]) for pid in self.pids]

    def stop(self) -> None:
        for instance in self.instances:
            instance.stop()


def start_sqlite(binary: Path, idp: MockIdP, workdir: Path) -> Deployment:
    folder = workdir / "sqlite"
    instance = server_in(
        folder, binary, idp, server_env(EXTRA_ENV, ENVIRONMENTS), environments=ENVIRONMENTS,
        database=SQLiteDatabase(folder / "fieldpass.sqlite"),
    )
    return _start("sqlite", [instance])


def start_postgres_server(postgres: OwnPostgres) -> None:
    """A fresh throw-away cluster. A port given in the ephemeral range (the default, 25450, is
    below it) can be held by a connection, or one of an earlier run lingering in TIME_WAIT
    for up to 60 s, and keep PostgreSQL from binding it: that is waited out."""
    deadline = time.monotonic() + PORT_WAIT
    while True:
        postgres.destroy()
        try:
            postgres.start()
            return
        except AssertionError as error:
            if "Address already in use" not in str(error) or time.monotonic() > deadline:
                raise
        print(f"bench: port {postgres.port} still held by an old connection, waiting", file=sys.stderr, flush=True)
        time.sleep(5)


def start_postgres(binary: Path, idp: MockIdP, workdir: Path, postgres: OwnPostgres) -> Deployment:
    database = postgres.server().create("fieldpass_bench", track=False)
    cluster = cluster_in(
        binary, idp, workdir / "postgres", 2, environments=ENVIRONMENTS, extra_env=EXTRA_ENV, database=database
    )
    deployment = _start("postgres", cluster.instances)
    deployment.database = database
    return deployment


def migrate(binary: Path, idp: MockIdP, workdir: Path, database: PostgresDatabase) -> None:
    """Fieldpass's schema and indexes on `database`, by `fieldpass migrate`: for a pgbench
    script that writes Fieldpass's own rows (write_limit.py)."""
    instance = server_in(workdir, binary, idp, server_env(EXTRA_ENV, ENVIRONMENTS), environments=ENVIRONMENTS, database=database)
    workdir.mkdir(parents=True, exist_ok=True)
    instance.write_config()
    migrated = instance.cli("migrate", "--config", str(instance.config_path))
    if migrated.returncode != 0:
        raise HarnessError(f"fieldpass migrate failed on {database.name}:\n{cli_output(migrated)}")


def _start(store: str, instances: list[FieldpassServer]) -> Deployment:
    """Key and schema first (`fieldpass migrate`), so that each timed start is a restart on
    an existing database; instances start one after the other, each timed alone."""
    deployment = Deployment(store, instances, [])
    try:
        instances[0].generate_key()
        migrated = instances[0].cli("migrate", "--config", str(instances[0].config_path))
        if migrated.returncode != 0:
            raise HarnessError(f"fieldpass migrate failed on {store}:\n{cli_output(migrated)}")
        for instance in instances:
            deployment.start_to_ready_ms.append(_timed_start(instance))
    except BaseException:
        deployment.stop()
        raise
    return deployment


def _timed_start(instance: FieldpassServer) -> float:
    """Spawn `fieldpass serve`; milliseconds until /readyz first answers 200, asked every 1 ms."""
    start = time.perf_counter()
    instance.launch(new_key=False)
    with http_client(timeout=1.0) as client:
        while time.perf_counter() - start < STARTUP_TIMEOUT:
            if instance.process is None or not instance.process.alive():
                raise HarnessError(f"fieldpass serve exited before it was ready\n{instance.log_tail()}")
            try:
                if client.get(f"{instance.url}/readyz").status_code == 200:
                    return (time.perf_counter() - start) * 1000
            except httpx.TransportError:
                pass
            time.sleep(READY_POLL)
    raise HarnessError(f"{instance.url}/readyz not ready after {STARTUP_TIMEOUT:.0f} s\n{instance.log_tail()}")
