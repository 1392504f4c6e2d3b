"""The PostgreSQL write limit: what the same cluster commits per second on its own.

`pgbench -N` (the TPC-B-like script without the contended branch and teller updates: a few
updates and an insert per transaction, each commit its own WAL flush) with 32 clients, on a
database of its own in the throw-away cluster the PostgreSQL figures use, before Fieldpass
starts on it. Fieldpass's write figures on PostgreSQL are compared with it.
"""

from __future__ import annotations

import os
import re
import subprocess

from cpu import CpuMeter
from helpers import OwnPostgres
from loadgen import HarnessError

CLIENTS = 32
DATABASE = "pgbench_limit"


def measure_pgbench(postgres: OwnPostgres, seconds: float, meter: CpuMeter) -> dict[str, float | int]:
    """Write transactions per second of `pgbench -N`, the CPU PostgreSQL spent on each
    (`meter` reads the cluster), and how it was run."""
    server = postgres.server()
    database = server.create(DATABASE, track=False)
    env = {**os.environ, "PGPASSWORD": postgres.password}
    target = ["-h", "127.0.0.1", "-p", str(postgres.port), "-U", "fieldpass", database.name]
    try:
        _run(["pgbench", "-i", "-q", "-s", "1", *target], env)
        before = meter.read()
        output = _run(["pgbench", "-N", "-n", "-c", str(CLIENTS), "-j", "2", "-T", str(max(1, round(seconds))), *target], env)
        spent = meter.read() - before
    finally:
        database.drop()
    found = re.search(r"tps = ([\d.]+)", output)
    done = re.search(r"number of transactions actually processed: (\d+)", output)
    if found is None or done is None or int(done.group(1)) == 0:
        raise HarnessError(f"pgbench printed no tps or transaction count:\n{output[-2000:]}")
    return {
        "write_tps": round(float(found.group(1)), 1), "clients": CLIENTS, "seconds": max(1, round(seconds)),
        "postgres_cpu_ms": round(1000 * spent.postgres / int(done.group(1)), 3),
    }


def _run(command: list[str], env: dict[str, str]) -> str:
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise HarnessError(f"{command[0]} {command[1]} failed (status {result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout
