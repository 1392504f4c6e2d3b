"""wrk runs: one wrk process per instance at once, their results merged into one figure.

Every script in Benchmarks/wrk prints a `BENCH_RESULT {...}` line from its done() (see
wrk/report.lua), so nothing depends on wrk's human-readable summary.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

WRK_DIR = Path(__file__).resolve().parent / "wrk"
RESULT_PREFIX = "BENCH_RESULT "
# wrk's own request timeout: a debug build under 64 connections can take a while, and a
# timed-out request counts as an error rather than stretching the run.
REQUEST_TIMEOUT = "5s"


class HarnessError(Exception):
    """The benchmark could not produce a figure (as opposed to a figure missing its goal)."""


@dataclass(frozen=True)
class Job:
    """One wrk process: the instance it loads and the arguments its script gets."""

    url: str
    script_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Load:
    """The summed (or worst) result of the wrk processes of one figure."""

    requests: int
    req_s: float
    p50_ms: float
    p99_ms: float
    errors: int

    def as_json(self) -> dict[str, float | int]:
        return {
            "requests": self.requests, "req_s": round(self.req_s, 1), "p50_ms": round(self.p50_ms, 3),
            "p99_ms": round(self.p99_ms, 3), "errors": self.errors,
        }


@dataclass(frozen=True)
class WrkShape:
    """How hard to push: total connections and threads, split over the jobs of a figure."""

    seconds: float
    connections: int
    threads: int

    def per_job(self, jobs: int) -> tuple[int, int]:
        """Connections and threads of each of `jobs` processes: the totals stay the same, so
        that two instances get the same client as one."""
        threads = max(1, self.threads // jobs)
        connections = max(threads, self.connections // jobs)
        return connections, threads


def run_wrk(
    script: str, path: str, jobs: Sequence[Job], shape: WrkShape,
    env: Mapping[str, str] | None = None,
) -> Load:
    """Run one wrk per job at once against `path`, wait for all, and merge: req/s and errors
    summed, p50 and p99 the worse of the processes."""
    connections, threads = shape.per_job(len(jobs))
    environment = {**os.environ, **(env or {})}
    processes = [
        subprocess.Popen(
            [
                "wrk", "--threads", str(threads), "--connections", str(connections),
                "--duration", f"{shape.seconds:g}s", "--timeout", REQUEST_TIMEOUT,
                "--script", str(WRK_DIR / script), job.url + path, "--", *job.script_args,
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=environment,
        )
        for job in jobs
    ]
    try:
        outputs = [process.communicate(timeout=shape.seconds + 60) for process in processes]
    except subprocess.TimeoutExpired as error:
        for process in processes:
            process.kill()
            process.wait()
        raise HarnessError(f"wrk with {script} did not finish: {error}") from error
    results = [_parse(script, process.returncode, out, err) for process, (out, err) in zip(processes, outputs)]
    return Load(
        requests=sum(result["requests"] for result in results),
        req_s=sum(result["requests"] / (result["duration_us"] / 1e6) for result in results),
        p50_ms=max(result["p50_us"] for result in results) / 1000,
        p99_ms=max(result["p99_us"] for result in results) / 1000,
        errors=sum(result["socket_errors"] + result["status_errors"] for result in results),
    )


def _parse(script: str, status: int, stdout: str, stderr: str) -> dict[str, int]:
    for line in stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            result = json.loads(line[len(RESULT_PREFIX):])
            if status == 0 and result["requests"] > 0:
                return result
    raise HarnessError(f"wrk with {script} failed (status {status}):\n{stdout[-2000:]}\n{stderr[-2000:]}")
