"""The callback rate the servers sustain, and the push latency below it.

A ladder of rising rates: each rung registers fresh sessions (a callback ends its session),
holds their sockets, and stores one `login_failed` per session at the rung's rate for the
rung's seconds (SocketBench.push). A rung holds when

  - every callback was answered 400 and every socket got its `login_failed` frame,
  - the client sent at least SEND_SHARE of the rate, between its first and last percent of
    callbacks (else the client fell behind its schedule: the rung measured less load),
  - the p99 of frame − request sent is below LATENCY_CEILING_MS, and
  - the latency did not keep growing: the median of the last quarter of the callbacks (in
    the order sent) is less than QUEUE_GROWTH_MS above that of the first quarter. A queue
    that grows through the rung is a rate the servers do not keep up with, however short
    the rung.

The ladder stops at the first rung that fails; the sustained rate is the highest rung that
held. If the first rung fails, it goes down by halves instead, to MIN_RATE. A failed rung
says whose limit it found:
  - the servers' ("service") when callbacks went unanswered or frames were lost, or when
    only the latency failed while the client kept its schedule;
  - the client's ("client") when it fell behind its schedule, or only the latency failed,
    while its one event loop was busy CLIENT_CPU_LIMIT of a core (its timestamps lag too);
  - the machine's ("machine") when the client fell behind without being busy: it waited for
    a core that the servers, or anything else on the machine, held.
Only the first is the servers' sustained rate; the others are floors of it. Then one push
at 50 % and one at 90 % of the sustained rate give the latency the goals are about.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cpu import CpuMeter, CpuReading, per_operation

if TYPE_CHECKING:
    from sockets import SocketBench

SEND_SHARE = 0.95
LATENCY_CEILING_MS = 1000.0
QUEUE_GROWTH_MS = 100.0
CLIENT_CPU_LIMIT = 0.9
MIN_RATE = 25.0
# Fewer events than this give no p99 worth the name: a slow rung is made longer instead.
MIN_EVENTS = 100
# The measured pushes at these shares of the sustained rate.
SHARES = {"half": 0.5, "ninety": 0.9}
# Between opening a push's sockets and its first callback (at most the push's own length):
# the servers finish what each new socket starts (its replay of stored events) first.
SETTLE_SECONDS = 1.0


@dataclass(frozen=True)
class Ladder:
    """Rungs start, start × factor, … (`rungs` of them at most), each `seconds` long."""

    start: float
    factor: float
    rungs: int
    seconds: float

    def rates(self) -> list[float]:
        return [rounded(self.start * self.factor**step) for step in range(self.rungs)]

    def below(self) -> list[float]:
        """The rates tried when the first rung fails: halves, down to MIN_RATE."""
        rates = []
        rate = self.start / 2
        while rate >= MIN_RATE:
            rates.append(rounded(rate))
            rate /= 2
        return rates


def rounded(rate: float) -> float:
    return float(round(rate, -1) if rate >= 100 else max(5, round(rate / 5) * 5))


def verdict(push: dict[str, Any]) -> tuple[list[str], str | None]:
    """Why a push is not a rate the servers sustain (nothing: it is), and whose limit it
    found: "service", "client" (its one event loop was busy), "machine" (the client fell
    behind without being busy: it waited for a core the servers, or anything else, held)."""
    reasons = []
    if push["unanswered"]:
        other = {status: count for status, count in push["statuses"].items() if status != "400"}
        reasons.append(f"{push['unanswered']} callbacks not answered 400 ({other})")
    if push["lost_frames"]:
        reasons.append(f"{push['lost_frames']} frames lost")
    errors = bool(reasons)
    short = push["rate_sent"] < SEND_SHARE * push["rate_target"]
    if short:
        reasons.append(f"client sent {push['rate_sent']:,.0f}/s, p99 {push['send_lag_p99_ms']:,.0f} ms late")
    p99 = push["p99_after_sent_ms"]
    if p99 is not None and p99 >= LATENCY_CEILING_MS:
        reasons.append(f"p99 {p99:,.0f} ms")
    growth = push["growth_ms"]
    if growth is not None and growth >= QUEUE_GROWTH_MS:
        reasons.append(f"latency grew {growth:,.0f} ms")
    if not reasons:
        return reasons, None
    busy = push["client_cpu"] >= CLIENT_CPU_LIMIT
    reasons.append(f"client CPU {push['client_cpu']:.2f} of a core")
    if errors:
        return reasons, "service"
    if short:
        return reasons, "client" if busy else "machine"
    # Only the latency failed: with the client's loop busy, its own timestamps lagged too.
    return reasons, "client" if busy else "service"


async def push_fresh(
    bench: SocketBench, rate: float, seconds: float, max_events: int, meter: CpuMeter | None = None,
) -> dict[str, Any]:
    """Fresh sessions and their sockets, then `seconds` of callbacks at `rate` (at least
    MIN_EVENTS, at most `max_events`); with `meter`, the CPU each callback cost."""
    events = min(max_events, max(MIN_EVENTS, round(rate * seconds)))
    sessions = await bench.register(events, first=0)
    held = await bench.hold(sessions)
    try:
        await asyncio.sleep(min(SETTLE_SECONDS, seconds))
        before = meter.read() if meter is not None else None
        push = await bench.push(sessions, rate)
        if meter is not None and before is not None:
            # Over the callbacks and their frames: what each callback cost, with its push.
            push["cpu"] = per_operation(meter.read() - before, push["events"])
    finally:
        await bench.release(held)
    reasons, limit = verdict(push)
    return {
        **push, "seconds": round(events / rate, 2), "socket_errors": held.errors,
        "holds": not reasons, "reasons": reasons, "limit": limit,
    }


async def sustained_push(bench: SocketBench, ladder: Ladder, meter: CpuMeter, max_events: int) -> dict[str, Any]:
    """The ladder, the sustained rate and whose limit ended it, and the pushes at 50 % and
    90 % of it (the CPU per callback is the 90 % push's)."""
    rungs: list[dict[str, Any]] = []
    sustained: float | None = None
    limit = "ladder top"
    for rate in ladder.rates():
        rung = await push_fresh(bench, rate, ladder.seconds, max_events)
        rungs.append(rung)
        if not rung["holds"]:
            limit = rung["limit"]
            break
        sustained = rate
    if sustained is None:
        for rate in ladder.below():
            rung = await push_fresh(bench, rate, ladder.seconds, max_events)
            rungs.append(rung)
            if rung["holds"]:
                sustained = rate
                break
            limit = rung["limit"]
    measured: dict[str, dict[str, Any] | None] = dict.fromkeys(SHARES)
    if sustained is not None:
        for name, share in SHARES.items():
            measured[name] = await push_fresh(
                bench, sustained * share, ladder.seconds, max_events, meter if name == "ninety" else None
            )
    ninety = measured["ninety"]
    return {
        "rung_seconds": ladder.seconds,
        "criteria": {
            "send_share": SEND_SHARE, "p99_ceiling_ms": LATENCY_CEILING_MS, "queue_growth_ms": QUEUE_GROWTH_MS,
            "client_cpu_limit": CLIENT_CPU_LIMIT,
        },
        "ladder": rungs,
        "sustained_rate": sustained,
        "limit": limit if sustained is not None else "none held",
        **measured,
        "cpu": ninety["cpu"] if ninety is not None else per_operation(CpuReading(0.0, 0.0), 0),
    }
