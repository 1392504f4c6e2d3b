"""Event sockets under load: the server memory each open socket costs, and how fast a
stored event reaches its socket.

It registers N onboarding sessions in an environment with `confirm_device: false`, whose
`login_url` is the IdP's authorization URL and so carries the session's OAuth `state`, and
holds their N event WebSockets open, reading the servers' RSS before and after; then it
closes them. Then it finds the callback rate the servers sustain and times the push below it
(push_rate.py): each push registers fresh sessions, holds their sockets, and stores one
`login_failed` event per session at a fixed rate, each with the cheapest request that
stores one (`GET /auth_callback?state=…&error=access_denied`), and times the frames. The
server stores the event before it answers, so "frame − request sent" bounds the push latency
from above and "frame − answer received" from below (it may be negative).

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
from collections import Counter
from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "e2e"))

from cpu import CpuMeter  # noqa: E402
from helpers import login_params, on, percentile, unique_email  # noqa: E402
from push_rate import Ladder, sustained_push  # noqa: E402

# Requests in flight while registering and connecting: enough to keep both server cores
# busy without queueing thousands of requests behind each other.
SETUP_CONCURRENCY = 64
# Connections per instance the callbacks may use at once: a queue of callbacks behind too few
# connections would be the client's limit, not the servers'. Opened only as needed.
CALLBACK_CONNECTIONS = 256
# Descriptors kept, per instance and in all, for everything but the sockets (HTTP
# connections, the runtime's own).
SPARE_DESCRIPTORS = (SETUP_CONCURRENCY + CALLBACK_CONNECTIONS, 128)
# How long the last frames may take after the last callback before they count as lost.
FRAME_GRACE = 10.0
HTTP_TIMEOUT = 30.0


class Connections:
    """Keep-alive HTTP/1.1 connections to one instance, each carrying one request at a time.

    Enough HTTP for Fieldpass's answers, which always have a Content-Length; a connection
    that fails is dropped and replaced by a new one at its next use. The last connection
    given back is the next one taken, so a new one is opened only when all open ones are busy."""

    def __init__(self, url: str, size: int) -> None:
        parts = urlsplit(url)
        self.host, self.port, self.netloc = parts.hostname or "127.0.0.1", parts.port or 80, parts.netloc
        self.idle: asyncio.LifoQueue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = asyncio.LifoQueue()
        for _ in range(size):
            self.idle.put_nowait(None)

    async def request(
        self, method: str, target: str, body: bytes = b"", content_type: str = "application/json"
    ) -> tuple[int, bytes]:
        """(status, body) of one request; `body`, if any, is sent as `content_type`.

        A kept-alive connection that the server closed while it idled (`server.idle_timeout`)
        answers nothing at all: the server never read the request, which is sent again on a
        new connection, as HTTP clients do."""
        connection = await self.idle.get()
        try:
            reused = connection is not None
            if connection is None:
                connection = await self._open()
            try:
                answer = await self._exchange(connection, method, target, body, content_type)
            except (asyncio.IncompleteReadError, ConnectionResetError) as error:
                if not reused or (isinstance(error, asyncio.IncompleteReadError) and error.partial):
                    raise
                connection[1].close()
                connection = await self._open()
                answer = await self._exchange(connection, method, target, body, content_type)
        except BaseException:
            if connection is not None:
                connection[1].close()
            self.idle.put_nowait(None)
            raise
        self.idle.put_nowait(connection)
        return answer

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port)

    async def _exchange(
        self, connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], method: str, target: str, body: bytes, content_type: str
    ) -> tuple[int, bytes]:
        reader, writer = connection
        head = f"{method} {target} HTTP/1.1\r\nHost: {self.netloc}\r\n"
        if body:
            head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"\r\n" + body)
        head_bytes = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HTTP_TIMEOUT)
        lines = head_bytes.decode("latin-1").split("\r\n")
        fields = dict(line.lower().split(":", 1) for line in lines[1:] if ":" in line)
        answer = await reader.readexactly(int(fields["content-length"]))
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


@dataclass
class Held:
    """Sockets held open, each with a reader that notes its session's first frame."""

    sockets: list[ClientConnection] = field(default_factory=list)
    readers: list[asyncio.Task[None]] = field(default_factory=list)
    errors: int = 0  # sockets that did not open


class SocketBench:
    """The sessions and sockets of one run, against `instances`."""

    def __init__(self, instances: Sequence[Instance], domain: str) -> None:
        self.instances = instances
        self.domain = domain
        self.clients = [Connections(instance.url, SETUP_CONCURRENCY) for instance in instances]
        self.callers = [Connections(instance.url, CALLBACK_CONNECTIONS) for instance in instances]

    async def close(self) -> None:
        for client in [*self.clients, *self.callers]:
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

    async def hold(self, sessions: Sequence[Session]) -> Held:
        """Open each session's socket and keep a reader on it that notes its first frame."""
        held = Held()

        async def one(session: Session) -> None:
            try:
                # No pings and no compression offer: a held socket costs only what the
                # server needs for it.
                socket = await connect(
                    session.socket_url, ping_interval=None, compression=None, open_timeout=HTTP_TIMEOUT,
                    close_timeout=5, proxy=None,
                )
            except (OSError, TimeoutError, WebSocketException):
                held.errors += 1
                return
            held.sockets.append(socket)
            held.readers.append(asyncio.create_task(read_first_frame(socket, session)))

        await limited((one(session) for session in sessions), SETUP_CONCURRENCY)
        return held

    @staticmethod
    async def release(held: Held) -> None:
        """Close the sockets (a session's terminal event closed its socket already) and stop
        the readers."""
        await limited((socket.close() for socket in held.sockets), SETUP_CONCURRENCY * 4)
        for reader in held.readers:
            reader.cancel()
        await asyncio.gather(*held.readers, return_exceptions=True)

    async def push(self, sessions: Sequence[Session], rate: float) -> dict[str, Any]:
        """One callback per session, `rate` per second; then wait for the frames."""
        instances = len(self.instances)
        callbacks: list[asyncio.Task[None]] = []
        cpu_before, start = client_cpu_seconds(), time.perf_counter()
        for index, session in enumerate(sessions):
            pause = start + index / rate - time.perf_counter()
            if pause > 0:
                await asyncio.sleep(pause)
            # Every other pair goes to the next instance: half the events cross instances.
            target = (session.home + (index // 2) % 2) % instances
            callbacks.append(asyncio.create_task(deliver_callback(self.callers[target], session)))
        await asyncio.gather(*callbacks)
        # The client's own CPU while it sent and read answers and frames, as a share of one
        # core: near 1, its one event loop was the bottleneck.
        client_cpu = (client_cpu_seconds() - cpu_before) / (time.perf_counter() - start)
        sent = sorted(session.sent_at for session in sessions if session.sent_at is not None)
        # How late the client sent each callback against its schedule.
        lag = [(s.sent_at - start - index / rate) * 1000 for index, s in enumerate(sessions) if s.sent_at is not None]
        deadline = time.perf_counter() + FRAME_GRACE
        while any(session.frame_at is None for session in sessions) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        answered = [session for session in sessions if session.answer_status == 400]
        framed = [session for session in sessions if session.frame_type == "login_failed"]
        # In the order sent: a queue that grows shows as later callbacks waiting longer.
        good = sorted((s for s in answered if s.frame_type == "login_failed"), key=lambda s: s.sent_at or 0.0)
        after_sent = [(s.frame_at - s.sent_at) * 1000 for s in good]
        after_answer = [(s.frame_at - s.answered_at) * 1000 for s in good]
        quarter = len(good) // 4
        statuses = Counter(str(session.answer_status) for session in sessions)
        return {
            "events": len(sessions),
            "rate_target": round(rate, 1),
            "rate_sent": sent_rate(sent),
            "errors": len(sessions) - len(good),
            "unanswered": len(sessions) - len(answered),
            "lost_frames": len(sessions) - len(framed),
            "statuses": dict(statuses),
            "p50_after_sent_ms": round(percentile(after_sent, 0.50), 3) if good else None,
            "p99_after_sent_ms": round(percentile(after_sent, 0.99), 3) if good else None,
            "p50_after_answer_ms": round(percentile(after_answer, 0.50), 3) if good else None,
            "p99_after_answer_ms": round(percentile(after_answer, 0.99), 3) if good else None,
            # The median of the last quarter sent minus that of the first quarter.
            "growth_ms": round(percentile(after_sent[-quarter:], 0.5) - percentile(after_sent[:quarter], 0.5), 3)
            if quarter else None,
            "client_cpu": round(client_cpu, 2),
            "send_lag_p99_ms": round(percentile(lag, 0.99), 3) if lag else None,
        }


def sent_rate(sent: Sequence[float]) -> float:
    """Requests per second between the first and the last percent of `sent` (sorted): a
    pause of the client's at either end does not count, a slower pace throughout does."""
    first, last = len(sent) // 100, len(sent) - 1 - len(sent) // 100
    return round((last - first) / (sent[last] - sent[first]), 1) if last > first else 0.0


def client_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


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
    instances: Sequence[Instance], sockets: int, ladder: Ladder, domain: str, postmaster: int | None, max_events: int
) -> dict:
    bench = SocketBench(instances, domain)
    pids = [instance.pid for instance in instances]
    try:
        held = await bench.register(sockets, first=0)
        # Registered but not yet connected: the difference is the sockets alone.
        before = rss_kb(pids)
        sockets_held = await bench.hold(held)
        try:
            await asyncio.sleep(1.0)
            after = rss_kb(pids)
        finally:
            # Their descriptors are the pushes' (each push opens its sessions' sockets).
            await bench.release(sockets_held)
        push = await sustained_push(bench, ladder, CpuMeter(tuple(pids), postmaster), max_events)
    finally:
        await bench.close()
    opened = len(sockets_held.sockets)
    return {
        "sockets": sockets,
        "opened": opened,
        "socket_errors": sockets_held.errors,
        "rss_before_kb": before,
        "rss_after_kb": after,
        "bytes_per_socket": round((after - before) * 1024 / opened) if opened else None,
        "push": push,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instance", action="append", required=True, type=Instance.parse,
                        help="URL=PID of a running instance (repeat for several on one database)")
    parser.add_argument("--sockets", type=int, default=10_000, help="sockets to hold open")
    parser.add_argument("--push-seconds", type=float, default=5.0, help="seconds of each push")
    parser.add_argument("--ladder-start", type=float, default=250.0, help="callbacks per second of the first rung")
    parser.add_argument("--ladder-factor", type=float, default=1.25, help="each rung's rate over the one below")
    parser.add_argument("--ladder-rungs", type=int, default=16, help="the most rungs up from the first")
    parser.add_argument("--domain", required=True, help="email domain of an environment with confirm_device: false")
    parser.add_argument("--postgres-pid", type=int, help="the postmaster, to count PostgreSQL's CPU per callback")
    args = parser.parse_args(argv)
    limit = raise_open_file_limit()
    per_instance, fixed = SPARE_DESCRIPTORS
    spare = per_instance * len(args.instance) + fixed
    if limit < args.sockets + spare:
        print(f"error: RLIMIT_NOFILE hard limit {limit} is below the {args.sockets + spare} descriptors needed", file=sys.stderr)
        return 1
    ladder = Ladder(args.ladder_start, args.ladder_factor, args.ladder_rungs, args.push_seconds)
    # A push opens as many sockets as it has callbacks: no more than the limit leaves.
    result = asyncio.run(run(args.instance, args.sockets, ladder, args.domain, args.postgres_pid, limit - spare))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
