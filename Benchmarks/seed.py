"""A database of a realistic size before the figures, the same on both stores.

The benchmark's database starts empty and the figures grow its tables a hundredfold in
seconds. PostgreSQL plans a prepared statement, and each foreign-key check, once per
connection and keeps the plan until the table's statistics change: a plan made while a table
holds a few dozen rows scans it sequentially, and stays so while the table grows, until
autovacuum analyzes it again (every `autovacuum_naptime`, a minute, at the soonest). A
deployment's tables grow over days and are analyzed as they grow; the figures are to measure
that steady state, not a new database's first minute.

So before the figures, through the API as a deployment fills up:
  - `people` registrations in the `push` environment, each ended by a denied sign-in
    (`login_failed`): people, devices, sessions, session events, onboarding outcomes and
    lifecycle events;
  - about as many refresh rotations, spread over the devices the `refresh_token` figure uses
    (their newest tokens are handed back to it): refresh tokens;
and on PostgreSQL `VACUUM (ANALYZE)` of the whole database, what autovacuum would have done
by then: every plan made before is invalidated, and every plan made after sees tables of
thousands of rows. SQLite keeps no statistics unless ANALYZE is run (Fieldpass never runs it)
and plans by its rules whatever the size: it gets the same rows, so that both stores work on
databases of the same size, and nothing else.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from helpers import PostgresDatabase
from loadgen import HarnessError
from sockets import SETUP_CONCURRENCY, Connections, Instance, SocketBench, deliver_callback, limited

FORM = "application/x-www-form-urlencoded"


def seed(
    instances: Sequence[Instance], domain: str, people: int, tokens: Sequence[str], database: PostgresDatabase | None,
) -> tuple[list[str], dict[str, Any]]:
    """Seed the database; returns the newest refresh token of each of `tokens`' devices (in
    their order), and what was done."""
    start = time.perf_counter()
    newest = asyncio.run(_seed(instances, domain, people, tokens))
    rotations = math.ceil(people / len(tokens)) * len(tokens) if tokens else 0
    if database is not None:
        # VACUUM cannot run in a transaction: psql -c sends it alone.
        database.run_client("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database.url, "-c", "VACUUM (ANALYZE)")
    return newest, {
        "people": people, "refresh_rotations": rotations, "vacuum_analyze": database is not None,
        "seconds": round(time.perf_counter() - start, 1),
    }


async def _seed(instances: Sequence[Instance], domain: str, people: int, tokens: Sequence[str]) -> list[str]:
    bench = SocketBench(instances, domain)
    try:
        sessions = await bench.register(people, first=0)
        # The same request as the push's callbacks, unpaced: each stores login_failed.
        await limited((deliver_callback(bench.clients[session.home], session) for session in sessions), SETUP_CONCURRENCY)
        wrong = [session.answer_status for session in sessions if session.answer_status != 400]
        if wrong:
            raise HarnessError(f"seeding: {len(wrong)} denied sign-ins not answered 400 (e.g. {wrong[0]})")
        rounds = math.ceil(people / len(tokens)) if tokens else 0
        chains = [
            _rotate(bench.clients[index % len(instances)], token, rounds) for index, token in enumerate(tokens)
        ]
        return list(await asyncio.gather(*chains))
    finally:
        await bench.close()


async def _rotate(client: Connections, token: str, rounds: int) -> str:
    """`rounds` refreshes in a row, each with the token the one before gave; the last token."""
    for _ in range(rounds):
        body = urlencode({"grant_type": "refresh_token", "refresh_token": token}).encode()
        status, answer = await client.request("POST", "/token", body, content_type=FORM)
        if status != 200:
            # The chain is lost: its device's next refresh would be a reuse, which revokes it.
            raise HarnessError(f"seeding: a refresh answered {status}: {answer[:200]!r}")
        token = json.loads(answer)["refresh_token"]
    return token
