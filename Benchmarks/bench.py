"""Fieldpass benchmark: the figures of the design's performance envelope, from one command.

  .venv/bin/python Benchmarks/bench.py [--short] [--store sqlite|postgres|all] [--bin PATH]

It measures ES256 on one core (`openssl speed`), then for each store starts the servers
(SQLite: one instance; PostgreSQL: two on one database, on a throw-away cluster), brings the
database to a realistic size (seed.py), loads each endpoint with wrk, and runs the socket
tool (sockets.py), which also finds the callback rate the servers sustain (push_rate.py).
Every figure is printed as a table and written to bench-results/. Missed goals are
reported, not failed: the exit status is 1 only when the harness itself fails (a server
that does not start, a figure that cannot be produced, errors in more than 1% of the
requests). See README.md.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
sys.path.insert(0, str(REPO_ROOT / "Tests" / "e2e"))

import pytest  # noqa: E402
from helpers import RUNNING, OwnPostgres, SignedIn, sign_in, start_idp, unique_email  # noqa: E402
from helpers.dpop import DeviceKey  # noqa: E402

from deployment import (  # noqa: E402
    BACKEND, DEV_DOMAIN, PUSH_DOMAIN, Deployment, migrate, start_postgres, start_postgres_server, start_sqlite,
)
from cpu import CpuMeter, per_operation, postmaster_pid  # noqa: E402
from loadgen import HarnessError, Job, Load, WrkShape, run_wrk  # noqa: E402
from push_rate import Ladder  # noqa: E402
from report import machine, table, write_results  # noqa: E402
from seed import seed  # noqa: E402
from sockets import Instance, raise_open_file_limit  # noqa: E402
from write_limit import measure_pgbench, measure_registration_rows  # noqa: E402

STORES = ("sqlite", "postgres")
# A figure with more errors than this is no figure: the harness fails.
MAX_ERROR_SHARE = 0.01
# The full run's ladder may take several minutes.
SOCKETS_TIMEOUT = 1800
STARTED = time.monotonic()


@dataclass(frozen=True)
class Mode:
    name: str
    wrk_seconds: float
    openssl_seconds: int
    # wrk's connections in all, unless --connections says; each refresh chain needs a device
    # signed in through the IdP first.
    connections: int
    sockets: int
    # The push's ladder of callback rates (push_rate.py): its rungs and their length.
    push_ladder: Ladder
    # People registered (and refresh tokens rotated) before the figures (seed.py).
    seed: int


MODES = {
    "full": Mode(
        "full", wrk_seconds=10, openssl_seconds=5, connections=64, sockets=10_000, push_ladder=Ladder(250, 1.25, 16, 5),
        seed=10_000,
    ),
    # Every step runs, in about half a minute a store: 1 s figures over 16 connections (20
    # devices a refresh figure, not 80), and three short rungs (250, 500, 1,000/s).
    "short": Mode(
        "short", wrk_seconds=1, openssl_seconds=1, connections=16, sockets=300, push_ladder=Ladder(250, 2, 3, 0.5),
        seed=1_000,
    ),
}


@dataclass(frozen=True)
class Figure:
    """One wrk figure: its script and path, and the limit its req/s is compared with."""

    name: str
    script: str
    path: str
    limit: str | None = None  # "healthz", "sign" or "verify"
    goal: float | None = None  # the least ratio to the limit


FIGURES = (
    Figure("healthz", "plain.lua", "/healthz"),
    Figure("jwks", "plain.lua", "/.well-known/jwks.json", "healthz", 0.9),
    # Also served at /.well-known/openid-configuration: the same bytes (DiscoveryController).
    Figure("discovery", "plain.lua", "/.well-known/oauth-authorization-server", "healthz", 0.9),
    Figure("register_device", "register.lua", "/register_device", "healthz", 0.5),
    Figure("client_credentials", "client_credentials.lua", "/token", "sign", 0.5),
    Figure("refresh_token", "refresh.lua", "/token", "sign", 0.25),
    # The same refreshes of tokens bound to a device's key (DPoP), each with a new proof: what a
    # proof's check and its stored use cost per refresh, in the CPU columns beside refresh_token's.
    Figure("refresh_token_dpop", "refresh.lua", "/token"),
    Figure("me", "me.lua", "/me", "verify", 0.5),
)
PACED_P99_GOAL_MS = 10.0
# The push's p99 (frame - callback sent) at half and at 90 % of the sustained callback rate.
PUSH_P99_GOALS_MS = {"half": 20.0, "ninety": 100.0}
PUSH_SHARES = {"half": "50 %", "ninety": "90 %"}
# register_device and refresh_token on PostgreSQL, as a share of pgbench -N on the same cluster.
WRITE_GOAL = 0.5
WRITE_FIGURES = ("register_device", "refresh_token")
START_GOAL_MS = 300.0
IDLE_RSS_GOAL_MB = 50.0
SOCKET_GOAL_BYTES = 16 * 1024
# Operations per CPU-second of the whole system (Fieldpass and PostgreSQL), PostgreSQL as a
# share of SQLite; and PostgreSQL's CPU per registration as a multiple of its CPU per
# transaction of registration_rows.sql, which writes the same seven rows.
CPU_FIGURES = ("register_device", "refresh_token", "callback")
CPU_SHARE_GOAL = 0.5
CPU_PER_REGISTRATION_GOAL = 1.5


def measure_es256(seconds: int) -> dict[str, float]:
    """ES256 signatures and verifications per second on one core, with a parsed key: the
    limits token issuance and bearer checks are measured against."""
    result = subprocess.run(
        ["openssl", "speed", "-seconds", str(seconds), "ecdsap256"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=4 * seconds + 60,
    )
    # " 256 bits ecdsa (nistp256)   0.0000s   0.0000s  63718.2  21931.0"
    match = re.search(r"256 bits ecdsa \(nistp256\)\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)", result.stdout)
    if result.returncode != 0 or match is None:
        raise HarnessError(f"openssl speed ecdsap256 gave no figures:\n{result.stdout}\n{result.stderr}")
    return {"sign_per_s": float(match.group(1)), "verify_per_s": float(match.group(2))}


class StoreBench:
    """The figures of one running deployment."""

    def __init__(
        self, deployment: Deployment, mode: Mode, shape: WrkShape, es256: dict[str, float], workdir: Path,
        write_limit: dict[str, float | int] | None = None, postmaster: int | None = None,
    ) -> None:
        self.deployment = deployment
        self.postmaster = postmaster
        self.meter = CpuMeter(tuple(deployment.pids), postmaster)
        self.write_limit = write_limit
        self.mode = mode
        self.shape = shape
        self.es256 = es256
        self.workdir = workdir
        self.urls = [instance.url for instance in deployment.instances]
        self.dpop_key = DeviceKey()

    def run(self) -> dict[str, Any]:
        # Before any load: what the instances hold just after they became ready.
        idle_rss_kb = self.deployment.rss_per_instance_kb()
        # Each refresh chain needs its own device, one per connection at least; one more
        # device for /me. The DPoP chains' devices share one key, so that any proof of it
        # goes with any of their tokens.
        progress(f"{self.deployment.store}: onboarding devices")
        chains = self.shape.connections + self.shape.connections // 4
        devices = self._onboard(chains + 1)
        bound = self._onboard(chains, self.dpop_key)
        progress(f"{self.deployment.store}: seeding {self.mode.seed:,} people and as many refresh rotations")
        instances = [Instance(url, pid) for url, pid in zip(self.urls, self.deployment.pids)]
        tokens = [device.refresh_token for device in devices[1:]]
        refresh_tokens, seeded = seed(instances, PUSH_DOMAIN, self.mode.seed, tokens, self.deployment.database)
        http = self._http({"refresh_token": refresh_tokens, "refresh_token_dpop": [d.refresh_token for d in bound]}, devices[0])
        sockets = self._sockets()
        return {
            "instances": len(self.urls),
            "seed": seeded,
            "start_to_ready_ms": [round(value, 1) for value in self.deployment.start_to_ready_ms],
            "idle_rss_kb": idle_rss_kb,
            "http": http,
            "sockets": sockets,
            "write_limit": self.write_limit,
            "other": self._write_limit_rows(http) + self._other_rows(idle_rss_kb, sockets),
        }

    def _onboard(self, count: int, key: DeviceKey | None = None) -> list[SignedIn]:
        """Devices signed in through the mock IdP, as the e2e suite does (8 at a time);
        with `key`, each registration proved by it, which binds the device's tokens to it."""
        instance = self.deployment.instances[0]

        def one(_: int) -> SignedIn:
            proof = key and {"DPoP": key.proof("POST", f"{instance.public_url}/register_device")}
            return sign_in(instance, unique_email("bench-device", DEV_DOMAIN), headers=proof)

        with ThreadPoolExecutor(8) as pool:
            return list(pool.map(one, range(count)))

    def _http(self, refresh_tokens: dict[str, Sequence[str]], me: SignedIn) -> dict[str, dict[str, Any]]:
        basic = base64.b64encode(f"{BACKEND.id}:{BACKEND.secret}".encode()).decode()
        env = {"BENCH_BASIC_AUTH": basic, "BENCH_ACCESS_TOKEN": me.access_token}
        rows: dict[str, dict[str, Any]] = {}
        for figure in FIGURES:
            progress(f"{self.deployment.store}: {figure.name}")
            jobs = self._jobs(figure, refresh_tokens.get(figure.name, ()), rows)
            before = self.meter.read()
            load = run_wrk(figure.script, figure.path, jobs, self.shape, env)
            rows[figure.name] = {**self._row(figure, load, rows), "cpu": per_operation(self.meter.read() - before, load.requests)}
            if figure.name == "register_device":
                rows["register_device_paced"] = self._paced_register(load.req_s / 2)
        return rows

    def _jobs(self, figure: Figure, refresh_tokens: Sequence[str], rows: dict[str, dict[str, Any]]) -> list[Job]:
        """One wrk per instance, with the arguments the figure's script takes."""
        if figure.script == "register.lua":
            tag = os.urandom(3).hex()
            return [Job(url, (f"bench{tag}i{index}", DEV_DOMAIN)) for index, url in enumerate(self.urls)]
        if figure.script == "refresh.lua":
            _, threads = self.shape.per_job(len(self.urls))
            jobs = []
            for index, url in enumerate(self.urls):
                tokens = self._private_lines(f"{figure.name}-{index}.tokens", refresh_tokens[index :: len(self.urls)])
                proofs = self._proofs(figure, index, rows)
                jobs.append(Job(url, (str(tokens), str(threads), *proofs)))
            return jobs
        return [Job(url) for url in self.urls]

    def _proofs(self, figure: Figure, index: int, rows: dict[str, dict[str, Any]]) -> tuple[str, ...]:
        """For the DPoP figure, a file of fresh proofs for one instance's wrk: as many as the
        plain refreshes' rate, half again, would use up in the run (each proof works once,
        and within `dpop.proof_lifetime` of being made, so they are made just before)."""
        if figure.name != "refresh_token_dpop":
            return ()
        count = int(rows["refresh_token"]["req_s"] * self.mode.wrk_seconds * 1.5 / len(self.urls)) + 100
        url = f"{self.deployment.instances[0].public_url}/token"
        return (str(self._private_lines(f"{figure.name}-{index}.proofs", (self.dpop_key.proof("POST", url) for _ in range(count)))),)

    def _private_lines(self, name: str, lines: Iterable[str]) -> Path:
        """`lines` in a new file of the work folder that only its owner reads (they are credentials)."""
        path = self.workdir / name
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.writelines(f"{line}\n" for line in lines)
        return path

    def _paced_register(self, rate: float) -> dict[str, Any]:
        """register_device again at `rate` in all: each connection waits connections / rate
        on average before each request (wrk's delay())."""
        pace_ms = self.shape.connections / rate * 1000
        tag = os.urandom(3).hex()
        jobs = [Job(url, (f"paced{tag}i{index}", DEV_DOMAIN, f"{pace_ms:.3f}")) for index, url in enumerate(self.urls)]
        load = run_wrk("register.lua", "/register_device", jobs, self.shape)
        return {
            **load.as_json(), "target_req_s": round(rate, 1),
            "goal": f"p99 < {PACED_P99_GOAL_MS:g} ms at {rate:,.0f}/s", "met": load.p99_ms < PACED_P99_GOAL_MS,
        }

    def _row(self, figure: Figure, load: Load, rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
        row: dict[str, Any] = load.as_json()
        if figure.limit is None:
            return row
        # healthz runs first: its req/s is the limit of the plain endpoints.
        limit = rows["healthz"]["req_s"] if figure.limit == "healthz" else self.es256[f"{figure.limit}_per_s"]
        ratio = load.req_s / limit
        return {
            **row, "limit": figure.limit, "ratio": round(ratio, 3),
            "goal": f"ratio >= {figure.goal:g} x {figure.limit}", "met": ratio >= figure.goal,
        }

    def _sockets(self) -> dict[str, Any]:
        ladder = self.mode.push_ladder
        progress(f"{self.deployment.store}: {self.mode.sockets} sockets, then the push's ladder from {ladder.start:g}/s")
        instances = [f"--instance={instance.url}={pid}" for instance, pid in zip(self.deployment.instances, self.deployment.pids)]
        log = self.workdir / f"sockets-{self.deployment.store}.log"
        with open(log, "w") as stderr:
            result = subprocess.run(
                [
                    sys.executable, str(BENCH_DIR / "sockets.py"), *instances, "--sockets", str(self.mode.sockets),
                    "--push-seconds", f"{ladder.seconds:g}", "--ladder-start", f"{ladder.start:g}",
                    "--ladder-factor", f"{ladder.factor:g}", "--ladder-rungs", str(ladder.rungs), "--domain", PUSH_DOMAIN,
                    *([f"--postgres-pid={self.postmaster}"] if self.postmaster is not None else []),
                ],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=SOCKETS_TIMEOUT,
            )
        if result.returncode != 0:
            raise HarnessError(f"sockets.py failed (status {result.returncode}):\n{log.read_text()[-3000:]}")
        return json.loads(result.stdout)

    def _write_limit_rows(self, http: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """pgbench -N on the same cluster (PostgreSQL only), and the write figures against it."""
        if self.write_limit is None:
            return []
        tps = self.write_limit["write_tps"]
        rows = self.write_limit["registration_rows"]
        figures = [
            other_row(f"pgbench -N, {self.write_limit['clients']} clients (the limit)", tps, "tx/s"),
            other_row("pgbench -N, PostgreSQL CPU per transaction", self.write_limit["postgres_cpu_ms"], "ms"),
            other_row("pgbench, a registration's 7 rows (the floor)", rows["write_tps"], "tx/s"),
            other_row("pgbench, 7 rows, PostgreSQL CPU per transaction", rows["postgres_cpu_ms"], "ms"),
        ]
        for name in WRITE_FIGURES:
            share = http[name]["req_s"] / tps
            figures.append(other_row(
                f"{name}, share of pgbench -N", round(100 * share, 1), "%", f">= {100 * WRITE_GOAL:g} % of pgbench -N",
                share >= WRITE_GOAL,
            ))
        return figures

    def _other_rows(self, idle_rss_kb: list[int], sockets: dict[str, Any]) -> list[dict[str, Any]]:
        push = sockets["push"]
        start = max(self.deployment.start_to_ready_ms)
        idle_mb = max(idle_rss_kb) / 1024
        per_socket = sockets["bytes_per_socket"]
        return [
            other_row("start to ready (slowest instance)", round(start, 1), "ms", f"< {START_GOAL_MS:g} ms", start < START_GOAL_MS),
            other_row("idle RSS (largest instance)", round(idle_mb, 1), "MB", f"< {IDLE_RSS_GOAL_MB:g} MB", idle_mb < IDLE_RSS_GOAL_MB),
            other_row(f"RSS before {sockets['sockets']} sockets (sum)", round(sockets["rss_before_kb"] / 1024, 1), "MB"),
            other_row(f"RSS with {sockets['opened']} sockets open (sum)", round(sockets["rss_after_kb"] / 1024, 1), "MB"),
            other_row("server bytes per socket", per_socket, "B", f"<= {SOCKET_GOAL_BYTES} B",
                per_socket is not None and per_socket <= SOCKET_GOAL_BYTES),
            *push_rows(push),
            other_row("callback CPU (90 % push), Fieldpass", push["cpu"]["fieldpass_ms"], "ms"),
            other_row("callback CPU (90 % push), PostgreSQL", push["cpu"]["postgres_ms"], "ms"),
            other_row("callbacks per CPU-second (whole system)", push["cpu"]["ops_per_cpu_s"], "/s"),
        ]


# Whose limit ended the ladder (push_rate.py); all but the servers' make the rate a floor.
LIMITS = {
    "service": "servers' limit", "client": "client-limited, floor", "machine": "client starved, floor",
    "ladder top": "all rungs held, floor", "none held": "no rung held",
}


def push_rows(push: dict[str, Any]) -> list[dict[str, Any]]:
    """The sustained callback rate, whose limit it is, and the push latency at 50 % and 90 % of it."""
    rows = [other_row(f"push sustained rate ({LIMITS[push['limit']]})", push["sustained_rate"], "/s")]
    for name, goal in PUSH_P99_GOALS_MS.items():
        run = push[name]
        label = f"push at {PUSH_SHARES[name]}"
        if run is None:
            rows.append(other_row(f"{label}: p99, frame - request sent", None, "ms", f"< {goal:g} ms", False))
            continue
        p99 = run["p99_after_sent_ms"]
        rows += [
            other_row(f"{label}: sent ({run['rate_target']:,.0f}/s wanted)", run["rate_sent"], "/s"),
            other_row(f"{label}: p50, frame - request sent", run["p50_after_sent_ms"], "ms"),
            other_row(f"{label}: p99, frame - request sent", p99, "ms", f"< {goal:g} ms", p99 is not None and p99 < goal),
            other_row(f"{label}: p99, frame - answer received", run["p99_after_answer_ms"], "ms"),
            other_row(f"{label}: errors (of {run['events']} events)", run["errors"], ""),
        ]
    return rows


def ops_per_cpu_s(figures: dict[str, Any], name: str) -> float | None:
    """Operations per CPU-second of the whole system for a wrk figure, or the callback."""
    cpu = figures["sockets"]["push"]["cpu"] if name == "callback" else figures["http"][name]["cpu"]
    return cpu["ops_per_cpu_s"]


def comparison_rows(stores: dict[str, Any]) -> list[dict[str, Any]]:
    """What scaling out costs in CPU: PostgreSQL's operations per CPU-second as a share of
    SQLite's, and PostgreSQL's CPU per registration against its CPU per transaction of the
    same rows (and, for comparison with earlier runs, of pgbench -N). Only when both stores ran."""
    if not all(store in stores for store in STORES):
        return []
    rows = []
    for name in CPU_FIGURES:
        sqlite, postgres = ops_per_cpu_s(stores["sqlite"], name), ops_per_cpu_s(stores["postgres"], name)
        share = postgres / sqlite if sqlite and postgres else None
        rows.append(other_row(
            f"{name} per CPU-s, PG / SQLite", round(share, 2) if share is not None else None, "x",
            f">= {CPU_SHARE_GOAL:g} x", share is not None and share >= CPU_SHARE_GOAL,
        ))
    registration = stores["postgres"]["http"]["register_device"]["cpu"]["postgres_ms"]
    write_limit = stores["postgres"]["write_limit"]
    for floor, label, goal in (
        (write_limit["registration_rows"]["postgres_cpu_ms"], "a same-rows pgbench tx", CPU_PER_REGISTRATION_GOAL),
        (write_limit["postgres_cpu_ms"], "a pgbench -N tx", None),
    ):
        multiple = registration / floor if registration is not None and floor else None
        rows.append(other_row(
            f"PG CPU, registration / {label}", round(multiple, 2) if multiple is not None else None, "x",
            f"<= {goal:g} x" if goal else "", (multiple is not None and multiple <= goal) if goal else None,
        ))
    return rows


def other_row(figure: str, value: float | None, unit: str, goal: str = "", met: bool | None = None) -> dict[str, Any]:
    """One row of the table below the wrk figures."""
    return {"figure": figure, "value": value, "unit": unit, "goal": goal, "met": met}


def progress(step: str) -> None:
    """What the run is doing and since when, on standard error (the table alone goes to
    standard output): where a CI run spends its time."""
    print(f"bench: [{time.monotonic() - STARTED:5.1f} s] {step}", file=sys.stderr, flush=True)


def problems(results: dict[str, Any]) -> list[str]:
    """Error rates that make a figure meaningless (more than 1%)."""
    found = []
    for store, figures in results["stores"].items():
        for name, row in figures["http"].items():
            if row["errors"] > MAX_ERROR_SHARE * row["requests"]:
                found.append(f"{store} {name}: {row['errors']} errors in {row['requests']} requests")
        sockets = figures["sockets"]
        if sockets["socket_errors"] > MAX_ERROR_SHARE * sockets["sockets"]:
            found.append(f"{store} sockets: {sockets['socket_errors']} of {sockets['sockets']} did not open")
        push = sockets["push"]
        if push["sustained_rate"] is None:
            found.append(f"{store} push: no rung of the ladder held, down to its lowest rate")
        for name in PUSH_SHARES:
            run = push[name]
            if run is not None and run["errors"] > MAX_ERROR_SHARE * run["events"]:
                found.append(f"{store} push at {PUSH_SHARES[name]}: {run['errors']} of {run['events']} events lost or wrong")
    return found


def build_config_of(binary: Path) -> str:
    """debug or release from SwiftPM's folder names, else unknown (say it with --build-config)."""
    parts = set(binary.resolve().parts)
    return next((config for config in ("release", "debug") if config in parts), "unknown")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="1 s per figure, 16 connections, 300 sockets, 0.5 s push rungs (CI)")
    parser.add_argument("--store", choices=[*STORES, "all"], default="all")
    parser.add_argument("--bin", type=Path, default=Path(os.environ.get("FIELDPASS_BIN", REPO_ROOT / ".build/release/fieldpass")),
                        help="the fieldpass binary (default: $FIELDPASS_BIN, else .build/release/fieldpass)")
    parser.add_argument("--build-config", help="debug or release (default: from the binary's path)")
    parser.add_argument("--connections", type=int, help="wrk's, in all (default: 64, --short: 16)")
    parser.add_argument("--threads", type=int, default=2)
    # Below Linux's ephemeral ports (32768-60999), so that no client connection holds it: in
    # `make test` the e2e suite makes thousands beside it.
    parser.add_argument("--pg-port", type=int, default=25450, help="port of the throw-away PostgreSQL")
    parser.add_argument("--out-dir", type=Path, default=REPO_ROOT / "bench-results")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    mode = MODES["short" if args.short else "full"]
    stores = STORES if args.store == "all" else (args.store,)
    binary = args.bin.resolve()
    if not os.access(binary, os.X_OK):
        print(f"bench: no fieldpass binary at {binary} (build it, or pass --bin / FIELDPASS_BIN)", file=sys.stderr)
        return 1
    if shutil.which("wrk") is None:
        print("bench: wrk not found (apt-get install -y wrk; `make bench` does it)", file=sys.stderr)
        return 1
    # Servers inherit the limit: each held socket is a descriptor on both sides.
    raise_open_file_limit()
    # SIGTERM (make killed, CI timeout) unwinds like Ctrl-C: the servers stop and the
    # PostgreSQL cluster is destroyed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    connections = args.connections or mode.connections
    shape = WrkShape(mode.wrk_seconds, connections, args.threads)
    now = datetime.now(timezone.utc)
    results: dict[str, Any] = {
        "date": now.isoformat(timespec="seconds"),
        "mode": mode.name,
        "machine": machine(binary, args.build_config or build_config_of(binary)),
        "settings": {
            "wrk_seconds": mode.wrk_seconds, "connections": connections, "threads": args.threads,
            "openssl_seconds": mode.openssl_seconds, "sockets": mode.sockets, "seed_people": mode.seed,
            "push_ladder": asdict(mode.push_ladder),
        },
        "stores": {},
    }
    workdir = Path(tempfile.mkdtemp(prefix="fieldpass-bench-"))
    postgres = OwnPostgres(args.pg_port) if "postgres" in stores else None
    try:
        if postgres is not None:
            # First: its port may be in the ephemeral range, and a port listened on is lent
            # to none of the thousands of connections the SQLite pass makes.
            start_postgres_server(postgres)
        results["es256"] = measure_es256(mode.openssl_seconds)
        idp = start_idp(sys.executable, workdir / "idp")
        for store in stores:
            write_limit = None
            postmaster = None
            if postgres is not None and store == "postgres":
                postmaster = postmaster_pid(postgres.port)
                progress(f"{store}: pgbench -N, the write limit")
                write_limit = measure_pgbench(postgres, mode.wrk_seconds, CpuMeter((), postmaster))
                progress(f"{store}: pgbench of a registration's rows, the floor")
                write_limit["registration_rows"] = measure_registration_rows(
                    postgres, mode.wrk_seconds, CpuMeter((), postmaster),
                    lambda database: migrate(binary, idp, workdir / "registration-rows", database),
                )
            progress(f"{store}: starting")
            if postgres is not None and store == "postgres":
                deployment = start_postgres(binary, idp, workdir, postgres)
            else:
                deployment = start_sqlite(binary, idp, workdir)
            try:
                results["stores"][store] = StoreBench(
                    deployment, mode, shape, results["es256"], workdir, write_limit, postmaster
                ).run()
            finally:
                deployment.stop()
    except (Exception, pytest.fail.Exception) as error:
        print(f"bench: the harness failed: {error}\nbench: logs kept in {workdir}", file=sys.stderr)
        return 1
    finally:
        for process in list(RUNNING):
            process.stop()
        if postgres is not None:
            postgres.destroy()
    shutil.rmtree(workdir, ignore_errors=True)
    results["comparison"] = comparison_rows(results["stores"])
    path = write_results(results, args.out_dir, now)
    print(table(results))
    print(f"\nResults: {path} (and latest.json)")
    found = problems(results)
    for problem in found:
        print(f"bench: too many errors: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
