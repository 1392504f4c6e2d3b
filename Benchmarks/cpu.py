"""CPU seconds the processes under test spent, read from /proc: Fieldpass's instances, and
PostgreSQL's whole cluster (the postmaster, every backend and helper it started, and those
of them that exited meanwhile, which the kernel adds to the postmaster's children's times).

A reading is taken before and after a load; the difference over the operations done is the
CPU each operation cost, whatever else the machine did meanwhile.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from helpers.process_cpu import fields_seconds, process_seconds, stat_fields


def cluster_seconds(postmaster: int) -> float:
    """User and system CPU of a PostgreSQL cluster: the postmaster with its reaped children,
    and every live child."""
    own = stat_fields(postmaster)
    if own is None:
        return 0.0
    total = fields_seconds(own, children=True)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := stat_fields(int(entry.name))) is not None and int(fields[1]) == postmaster:
            total += fields_seconds(fields, children=False)
    return total


def postmaster_pid(port: int) -> int:
    """The postmaster of the throw-away cluster on `port` (scripts/postgres-cluster's folder)."""
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"fieldpass-pg-{port}" / "data"
    return int((folder / "postmaster.pid").read_text().split()[0])


@dataclass(frozen=True)
class CpuReading:
    fieldpass: float
    postgres: float

    def __sub__(self, earlier: CpuReading) -> CpuReading:
        return CpuReading(self.fieldpass - earlier.fieldpass, self.postgres - earlier.postgres)


@dataclass(frozen=True)
class CpuMeter:
    """Reads the CPU of Fieldpass's instances and, on PostgreSQL, of its cluster."""

    fieldpass_pids: tuple[int, ...]
    postmaster: int | None = None

    def read(self) -> CpuReading:
        postgres = cluster_seconds(self.postmaster) if self.postmaster is not None else 0.0
        return CpuReading(process_seconds(self.fieldpass_pids), postgres)


def per_operation(spent: CpuReading, operations: int) -> dict[str, float | None]:
    """Milliseconds of CPU each operation cost, and operations per CPU-second of the whole
    system (Fieldpass and PostgreSQL together)."""
    total = spent.fieldpass + spent.postgres
    if operations <= 0 or total <= 0:
        return {"fieldpass_ms": None, "postgres_ms": None, "ops_per_cpu_s": None}
    return {
        "fieldpass_ms": round(1000 * spent.fieldpass / operations, 3),
        "postgres_ms": round(1000 * spent.postgres / operations, 3),
        "ops_per_cpu_s": round(operations / total, 1),
    }
