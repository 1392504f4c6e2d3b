"""What the stall benchmarks share (`scim_stall.py`, `badge_stall.py`): their arguments, a
server with two environments and the mock IdP, the other environment's timed `GET /me`, and
how their figures and goal are printed."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "Tests" / "e2e"))

import scim_bulk  # noqa: E402
from helpers import OTHER_DOMAIN, RUNNING, EnvironmentSpec, FieldpassServer, sign_in, start_idp, start_server  # noqa: E402

# The other environment's requests wait at most this much longer than on a quiet server.
GOAL_MS = 100.0


class Timer(threading.Thread):
    """Sends one request after another until stopped, keeping each one's milliseconds."""

    def __init__(self, send: Callable[[], int], wanted: int) -> None:
        super().__init__(daemon=True)
        self.send = send
        self.wanted = wanted
        self.samples: list[float] = []
        self.failure: str | None = None
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            started = time.perf_counter()
            status = self.send()
            self.samples.append((time.perf_counter() - started) * 1000)
            if status != self.wanted:
                self.failure = f"a timed request answered {status}"
                return

    def during(self, work: Callable[[], None]) -> list[float]:
        """The samples taken while `work` ran (and 0.2 s after it)."""
        self.start()
        time.sleep(0.3)
        before = len(self.samples)
        work()
        time.sleep(0.2)
        self.stopped.set()
        self.join()
        if self.failure:
            raise RuntimeError(self.failure)
        return self.samples[before:]


def figures(samples: Sequence[float]) -> str:
    ordered = sorted(samples)
    return (f"n={len(ordered)} p50 {ordered[len(ordered) // 2]:.1f} ms, mean {sum(ordered) / len(ordered):.1f} ms, "
            f"p99 {ordered[len(ordered) * 99 // 100]:.1f} ms, max {ordered[-1]:.1f} ms")


def arguments(doc: str, short: str, argv: Sequence[str] | None, *, resets: bool = False) -> argparse.Namespace:
    """`--short` (what `make test` runs, described by `short`), `--bin`, `--rounds` and, when
    `resets`, `--resets`."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help=f"{short} (make test)")
    parser.add_argument("--bin", type=Path, default=Path(os.environ.get("FIELDPASS_BIN", REPO_ROOT / ".build/release/fieldpass")))
    parser.add_argument("--rounds", type=int, default=3)
    if resets:
        parser.add_argument("--resets", action="store_true", help="time eight PIN resets at once instead of a crew's sign-ins")
    return parser.parse_args(argv)


def other_me(server: FieldpassServer) -> Callable[[], int]:
    """`GET /me` of a person of the other environment (`OTHER_DOMAIN`), answering its status."""
    worker = sign_in(server, f"worker@{OTHER_DOMAIN}")
    headers = {"authorization": f"Bearer {worker.access_token}"}
    return lambda: scim_bulk.request(server.port, "GET", "/me", None, headers)[0]


def report_goal(worst: float, quiet: Sequence[float], during: str) -> None:
    delay = worst - max(quiet)
    verdict = "met" if delay <= GOAL_MS else "missed"
    print(f"goal: /me waits at most {GOAL_MS:.0f} ms longer during {during}: {verdict} ({delay:.1f} ms longer)")


def run(name: str, binary: Path, environments: Sequence[EnvironmentSpec], body: Callable[[FieldpassServer], None]) -> int:
    """`body` on a server of `binary` with `environments`; 1 when the harness fails, saying so
    and keeping the logs."""
    binary = binary.resolve()
    if not os.access(binary, os.X_OK):
        print(f"{name}: no fieldpass binary at {binary} (build it, or pass --bin / FIELDPASS_BIN)", file=sys.stderr)
        return 1
    workdir = Path(tempfile.mkdtemp(prefix=f"fieldpass-{name.replace('_', '-')}-"))
    try:
        idp = start_idp(sys.executable, workdir / "idp")
        body(start_server(binary, idp, workdir / "server", environments=environments))
    except Exception as error:  # the harness failed: say so, keep the logs
        print(f"{name}: the harness failed: {error}\n{name}: logs kept in {workdir}", file=sys.stderr)
        return 1
    finally:
        for process in list(RUNNING):
            process.stop()
    return 0
