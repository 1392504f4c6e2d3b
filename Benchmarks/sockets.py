"""Event sockets under load: the server memory each open socket costs, and how fast a
stored event reaches its socket.

It registers N onboarding sessions in an environment with `confirm_device: false`, whose
`login_url` is the IdP's authorization URL and so carries the session's OAuth `state`, and
holds their N event WebSockets open, reading the servers' RSS before and after. Then it
stores `login_failed` events at a fixed rate, each with the cheapest request that stores
one (`GET /auth_callback?state=…&error=access_denied`), and times the frames. The server
stores the event before it answers, so "frame − request sent" bounds the push latency from
above and "frame − answer received" from below (it may be negative).

With several instances, sockets and registrations alternate between them, and half of the
callbacks go to an instance other than the one holding the socket. bench.py runs it; it
also runs by hand against running servers, e.g.
  sockets.py --instance http://127.0.0.1:8080=PID --sockets 1000 --domain push.test
and prints one JSON object.

Its HTTP requests go over bare keep-alive HTTP/1.1 connections (`Connections`) rather than
httpx: httpx costs 1 to 3.5 ms of CPU per request, which at 1,000 events/s on two cores
would make the client, not the server, set the latency; a bare exchange costs about 0.1 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))

from cpu import CpuMeter, per_operation  # noqa: E402
from helpers import login_params, on, percentile, unique_email  # noqa: E402

# Requests in flight while registering and connecting: enough to keep both server cores
# busy without queueing thousands of requests behind each other.
SETUP_CONCURRENCY = 64
# How long the last frames may take after the last callback before they count as lost.
FRAME_GRACE = 10.0
HTTP_TIMEOUT = 30.0


class Connections:
    """Keep-alive HTTP/1.1 connections to one instance, each carrying one request at a time.

    Enough HTTP for Fieldpass's answers, which always have a Content-Length; a connection
    that fails is dropped and replaced by a new one at its next use."""

    def __init__(self, url: str, size: int) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.netloc = parts.hostname or "127.0.0.1", parts.port or 80, parts.netloc
        self.idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = asyncio.Queue()
        for _ in range(size):
            self.idle.put_nowait(None)

    async def request(self, method: str, target: str, body: bytes = b"") -> tuple[int, bytes]:
        """(status, body) of one request; `body`, if any, is sent as JSON."""
        connection = await self.idle.get()
        try:
            if connection is None:
                connection = await asyncio.open_connection(self.host, self.port)
            reader, writer = connection
            head = f"{method} {target} HTTP/1.1\r\nHost: {self.netloc}\r\n"
            if body:
                head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            writer.write(head.encode() + b"\r\n" + body)
            head_bytes = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HTTP_TIMEOUT)
            lines = head_bytes.decode("latin-1").split("\r\n")
            fields = dict(line.lower().split(":", 1) for line in lines[1:] if ":" in line)
            answer = await reader.readexactly(int(fields["content-length"]))
        except BaseException:
            if connection is not None:
                connection[1].close()
            self.idle.put_nowait(None)
            raise
        self.idle.put_nowait(connection)
        return int(lines[0].split()[1]), answer

    async def close(self) -> None:
        while not self.idle.empty():
            connection = self.idle.get_nowait()
            if connection is not None:
                connection[1].close()


@dataclass(frozen=True)
class Instance:
    """A running `fieldpass serve`: its own address and its process id (for its RSS)."""

    url: str
    pid: int

    @classmethod
    def parse(cls, text: str) -> Instance:
        url, _, pid = text.rpartition("=")
        return cls(url.rstrip("/"), int(pid))


@dataclass
class Session:
    """A registered onboarding session, its socket, and the timings of its one event."""

    state: str
    socket_url: str
    home: int  # index of the instance holding the socket
    sent_at: float | None = None
    answered_at: float | None = None
    answer_status: int | None = None
    frame_at: float | None = None
    frame_type: str | None = None


def raise_open_file_limit() -> int:
    """Lift the soft RLIMIT_NOFILE to the hard one (each socket is a file descriptor; its
    child processes inherit it too); returns the limit now in force."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def rss_kb(pids: Iterable[int]) -> int:
    """Resident memory of the processes summed, in KiB (VmRSS of /proc/PID/status)."""
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


async def limited(tasks: Iterable[Awaitable[None]], concurrency: int) -> None:
    """Await `tasks` with at most `concurrency` of them running at once."""
    gate = asyncio.Semaphore(concurrency)

    async def one(task: Awaitable[None]) -> None:
        async with gate:
            await task

    await asyncio.gather(*(one(task) for task in tasks))


class SocketBench:
    """The sessions and sockets of one run, against `instances`."""

    def __init__(self, instances: Sequence[Instance], domain: str) -> None:
        self.instances = instances
        self.domain = domain
        self.clients = [Connections(instance.url, SETUP_CONCURRENCY) for instance in instances]
        self.sockets: list[ClientConnection] = []
        self.readers: list[asyncio.Task[None]] = []
        self.socket_errors = 0

    async def close(self) -> None:
        await limited((socket.close() for socket in self.sockets), SETUP_CONCURRENCY * 4)
        for reader in self.readers:
            reader.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)
        for client in self.clients:
            await client.close()

    async def register(self, count: int, first: int) -> list[Session]:
        """`count` sessions, registered and later held on instance (first + i) % instances."""
        sessions: list[Session | None] = [None] * count

        async def one(index: int) -> None:
            home = (first + index) % len(self.instances)
            email = unique_email("sockets", self.domain)
            status, answer = await self.clients[home].request(
                "POST", "/register_device", json.dumps({"email": email}).encode()
            )
            if status != 201:
                raise RuntimeError(f"register_device answered {status}: {answer[:200]!r}")
            body = json.loads(answer)
            sessions[index] = Session(
                state=login_params(body["login_url"])["state"],
                socket_url=on(self.instances[home], body["websocket_url"]),
                home=home,
            )

        await limited((one(index) for index in range(count)), SETUP_CONCURRENCY)
        return [session for session in sessions if session is not None]

    async def hold(self, sessions: Sequence[Session]) -> None:
        """Open each session's socket and keep a reader on it that notes its first frame."""

        async def one(session: Session) -> None:
            try:
                # No pings and no compression offer: a held socket costs only what the
                # server needs for it.
                socket = await connect(
                    session.socket_url, ping_interval=None, compression=None, open_timeout=HTTP_TIMEOUT,
                    close_timeout=5, proxy=None,
                )
            except (OSError, TimeoutError, WebSocketException):
                self.socket_errors += 1
                return
            self.sockets.append(socket)
            self.readers.append(asyncio.create_task(read_first_frame(socket, session)))

        await limited((one(session) for session in sessions), SETUP_CONCURRENCY)

    async def push(self, sessions: Sequence[Session], rate: float) -> dict[str, float | int]:
        """One callback per session, `rate` per second; then wait for the frames."""
        instances = len(self.instances)
        callbacks: list[asyncio.Task[None]] = []
        start = time.perf_counter()
        for index, session in enumerate(sessions):
            pause = start + index / rate - time.perf_counter()
            if pause > 0:
                await asyncio.sleep(pause)
            # Every other pair goes to the next instance: half the events cross instances.
            target = (session.home + (index // 2) % 2) % instances
            callbacks.append(asyncio.create_task(deliver_callback(self.clients[target], session)))
        await asyncio.gather(*callbacks)
        sent = [session.sent_at for session in sessions if session.sent_at is not None]
        deadline = time.perf_counter() + FRAME_GRACE
        while any(session.frame_at is None for session in sessions) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        good = [
            session for session in sessions
            if session.frame_type == "login_failed" and session.answer_status == 400
        ]
        after_sent = [(s.frame_at - s.sent_at) * 1000 for s in good]
        after_answer = [(s.frame_at - s.answered_at) * 1000 for s in good]
        return {
            "events": len(sessions),
            "rate_target": rate,
            "rate_sent": round((len(sent) - 1) / (max(sent) - min(sent)), 1) if len(sent) > 1 else 0.0,
            "errors": len(sessions) - len(good),
            "p50_after_sent_ms": round(percentile(after_sent, 0.50), 3) if good else None,
            "p99_after_sent_ms": round(percentile(after_sent, 0.99), 3) if good else None,
            "p50_after_answer_ms": round(percentile(after_answer, 0.50), 3) if good else None,
            "p99_after_answer_ms": round(percentile(after_answer, 0.99), 3) if good else None,
        }


async def read_first_frame(socket: ClientConnection, session: Session) -> None:
    try:
        message = await socket.recv()
    except ConnectionClosed:
        return
    session.frame_at = time.perf_counter()
    event = json.loads(message)
    session.frame_type = event.get("type") if isinstance(event, dict) else None


async def deliver_callback(client: Connections, session: Session) -> None:
    """What the IdP's redirect after "Deny" makes a browser do: it stores `login_failed`."""
    target = "/auth_callback?" + urlencode({"state": session.state, "error": "access_denied"})
    session.sent_at = time.perf_counter()
    try:
        status, _ = await client.request("GET", target)
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, KeyError, ValueError):
        return
    session.answered_at = time.perf_counter()
    session.answer_status = status


async def run(
    instances: Sequence[Instance], sockets: int, push_seconds: float, rate: float, domain: str, postmaster: int | None
) -> dict:
    bench = SocketBench(instances, domain)
    pids = [instance.pid for instance in instances]
    meter = CpuMeter(tuple(pids), postmaster)
    try:
        held = await bench.register(sockets, first=0)
        # Registered but not yet connected: the difference is the sockets alone.
        before = rss_kb(pids)
        await bench.hold(held)
        await asyncio.sleep(1.0)
        after = rss_kb(pids)
        opened = len(bench.sockets)
        # Each event ends its session, so a push longer than the held sockets get more.
        events = int(rate * push_seconds)
        extra = await bench.register(max(0, events - len(held)), first=len(held))
        await bench.hold(extra)
        cpu_before = meter.read()
        push = await bench.push((held + extra)[:events], rate)
        # Over the callbacks and their frames: what each callback cost, with its push.
        push["cpu"] = per_operation(meter.read() - cpu_before, push["events"])
    finally:
        await bench.close()
    return {
        "sockets": sockets,
        "opened": opened,
        "socket_errors": bench.socket_errors,
        "rss_before_kb": before,
        "rss_after_kb": after,
        "bytes_per_socket": round((after - before) * 1024 / opened) if opened else None,
        "push": {**push, "extra_sockets": len(extra)},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instance", action="append", required=True, type=Instance.parse,
                        help="URL=PID of a running instance (repeat for several on one database)")
    parser.add_argument("--sockets", type=int, default=10_000, help="sockets to hold open")
    parser.add_argument("--push-seconds", type=float, default=5.0)
    parser.add_argument("--push-rate", type=float, default=1000.0, help="events per second")
    parser.add_argument("--domain", required=True, help="email domain of an environment with confirm_device: false")
    parser.add_argument("--postgres-pid", type=int, help="the postmaster, to count PostgreSQL's CPU per callback")
    args = parser.parse_args(argv)
    limit = raise_open_file_limit()
    needed = max(args.sockets, int(args.push_rate * args.push_seconds)) + 2 * SETUP_CONCURRENCY + 64
    if limit < needed:
        print(f"error: RLIMIT_NOFILE hard limit {limit} is below the {needed} descriptors needed", file=sys.stderr)
        return 1
    result = asyncio.run(run(args.instance, args.sockets, args.push_seconds, args.push_rate, args.domain, args.postgres_pid))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
