"""Benchmark lines: figures a test measures and prints, with the goal beside them, and does not
assert (a timed assertion fails on a busy machine and passes on a fast one for no reason).
They are kept here and written at the end of the run, where `make test`'s output shows them."""

from __future__ import annotations

BENCHMARK_LINES: list[str] = []


def report_benchmark(line: str) -> None:
    BENCHMARK_LINES.append(line)
    print(f"\nbenchmark: {line}")
