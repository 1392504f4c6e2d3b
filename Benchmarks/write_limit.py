"""The PostgreSQL write limit: what the same cluster commits per second on its own.

`pgbench -N` (the TPC-B-like script without the contended branch and teller updates: a few
updates and an insert per transaction, each commit its own WAL flush) with 32 clients, on a
database of its own in the throw-away cluster the PostgreSQL figures use, before Fieldpass
starts on it. Fieldpass's write figures on PostgreSQL are compared with it.

And the floor of a registration: `registration_rows.sql`, the seven rows a newcomer's
registration writes, in one transaction, on a database with Fieldpass's own schema and
indexes. PostgreSQL's CPU per registration is compared with its CPU per transaction of it.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Callable

from cpu import CpuMeter
from helpers import OwnPostgres, PostgresDatabase
from loadgen import HarnessError

CLIENTS = 32
DATABASE = "pgbench_limit"
ROWS_DATABASE = "registration_rows"
ROWS_SCRIPT = Path(__file__).resolve().parent / "registration_rows.sql"


def measure_pgbench(postgres: OwnPostgres, seconds: float, meter: CpuMeter) -> dict[str, float | int]:
    """Write transactions per second of `pgbench -N`, the CPU PostgreSQL spent on each
    (`meter` reads the cluster), and how it was run."""
    database = postgres.server().create(DATABASE, track=False)
    try:
        _run(["pgbench", "-i", "-q", "-s", "1", *_target(postgres, database)], _env(postgres))
        return _timed(postgres, database, ["-N"], seconds, meter)
    finally:
        database.drop()


def measure_registration_rows(
    postgres: OwnPostgres, seconds: float, meter: CpuMeter, migrate: Callable[[PostgresDatabase], None]
) -> dict[str, float | int]:
    """The floor of a registration: `registration_rows.sql` (the seven rows a newcomer's
    registration writes, in one transaction) on a database `migrate` gives Fieldpass's schema
    and indexes, with as many clients as `pgbench -N`: transactions per second and
    PostgreSQL's CPU per transaction."""
    database = postgres.server().create(ROWS_DATABASE, track=False)
    try:
        migrate(database)
        return _timed(postgres, database, ["-M", "prepared", "-f", str(ROWS_SCRIPT)], seconds, meter)
    finally:
        database.drop()


def _timed(
    postgres: OwnPostgres, database: PostgresDatabase, script: list[str], seconds: float, meter: CpuMeter
) -> dict[str, float | int]:
    """One pgbench run of `script` for `seconds`, metered."""
    duration = max(1, round(seconds))
    before = meter.read()
    output = _run(
        ["pgbench", *script, "-n", "-c", str(CLIENTS), "-j", "2", "-T", str(duration), *_target(postgres, database)], _env(postgres)
    )
    spent = meter.read() - before
    found = re.search(r"tps = ([\d.]+)", output)
    done = re.search(r"number of transactions actually processed: (\d+)", output)
    if found is None or done is None or int(done.group(1)) == 0:
        raise HarnessError(f"pgbench printed no tps or transaction count:\n{output[-2000:]}")
    return {
        "write_tps": round(float(found.group(1)), 1), "clients": CLIENTS, "seconds": duration,
        "postgres_cpu_ms": round(1000 * spent.postgres / int(done.group(1)), 3),
    }


def _target(postgres: OwnPostgres, database: PostgresDatabase) -> list[str]:
    return ["-h", "127.0.0.1", "-p", str(postgres.port), "-U", "fieldpass", database.name]


def _env(postgres: OwnPostgres) -> dict[str, str]:
    return {**os.environ, "PGPASSWORD": postgres.password}


def _run(command: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise HarnessError(f"{command[0]} {command[1]} failed (status {result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout
