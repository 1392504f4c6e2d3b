"""CPU seconds a process spent, read from /proc/PID/stat: what a test prints of the server's
work, and what the benchmarks' meters add up (Benchmarks/cpu.py)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name, or None for a process gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def fields_seconds(fields: list[str], children: bool) -> float:
    # After the name: state, ppid, …; utime and stime are the 12th and 13th, the reaped
    # children's cutime and cstime the 14th and 15th.
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if children else 0)
    return ticks / TICKS


def process_seconds(pids: Sequence[int]) -> float:
    """User and system CPU of `pids` (processes gone count nothing)."""
    return sum(fields_seconds(fields, children=False) for pid in pids if (fields := stat_fields(pid)) is not None)
