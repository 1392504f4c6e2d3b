"""Group commit of registrations, seen from outside.

The server commits concurrent `POST /register_device` requests together, in one write
transaction with a savepoint per registration. To a client nothing of that may show: each
registration must still look as if it had a transaction of its own, stored before it is
answered (its session works the moment the answer arrives) and stored whole or not at all
(user, realm, device and session; one realm feed entry each, at its own position).

The test fires a burst of registrations at once, so that they share transactions, and
uses every session as soon as its answer arrives, while the rest of the burst is still
being committed. It runs on a server of its own (the feed moves only through this module)
whose `dev` environment skips the device confirmation page, so that `login_url` is the
IdP's authorization URL and carries the state that /auth_callback takes back.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import ssl
import time
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from helpers import (
    DEV_BACKEND,
    EMAIL_DOMAIN,
    EVENT_TIMEOUT,
    HTTP_TIMEOUT,
    EnvironmentSpec,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    assert_json,
    cli_users,
    describe,
    is_confirmation_url,
    is_html,
    login_params,
    registrations,
    sign_in,
    start_server,
    store_kind,
    unique_email,
)

BURST = 500
# Sessions used at the same time (each holds a socket and a callback request).
SOCKET_CONCURRENCY = 50
# Connections per HTTP client; BURST / CLIENT_CONNECTIONS clients hold them all at once.
CLIENT_CONNECTIONS = 25
DEVICE = {"name": "Pixel 8", "platform": "android"}
# Only dev, with a service account to read the feed; no bootstrap admin, so nothing but the
# burst adds realms.
ENVIRONMENTS = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), service_accounts=(DEV_BACKEND,)),)
CURSOR_PREFIX = "rf1.dev."


@pytest.fixture(scope="module")
def burst_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A server of this module alone, `confirm_device: false` (login_url leads straight to
    the IdP and holds the state), with dev's service account for the realm feed."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-group-commit"),
        {"ENVIRONMENTS_DEV_CONFIRM_DEVICE": "false"}, environments=ENVIRONMENTS,
    )
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------- the burst


@dataclass
class Outcome:
    """One registration of the burst: its answer, and what using its session showed."""

    email: str
    response: httpx.Response | None = None
    error: str | None = None  # the request itself failed (no answer)
    body: dict[str, Any] | None = None  # the 201 answer's JSON
    session_problem: str | None = None  # None: the session worked
    answered_at: float | None = None
    used_at: float | None = None


def registration_problem(outcome: Outcome) -> str | None:
    """Why an answer is not a 201 with a usable session in it (None: it is). Shows no
    state or URL: they are the session's credentials."""
    if outcome.response is None:
        return f"{outcome.email}: no answer ({outcome.error})"
    if outcome.response.status_code != 201:
        return f"{outcome.email}: {describe(outcome.response)}"
    try:
        body = outcome.response.json()
    except ValueError:
        return f"{outcome.email}: 201 without a JSON body"
    if not isinstance(body, dict):
        return f"{outcome.email}: 201 with a body that is no object"
    missing = [key for key in ("session_id", "login_url", "websocket_url") if not isinstance(body.get(key), str)]
    if missing:
        return f"{outcome.email}: 201 without {missing} (keys: {sorted(body)})"
    if is_confirmation_url(body["login_url"]):
        return f"{outcome.email}: login_url is the confirmation page, not the IdP"
    if not login_params(body["login_url"]).get("state"):
        return f"{outcome.email}: login_url carries no state"
    return None


async def use_session(http: httpx.AsyncClient, base_url: str, body: dict[str, Any]) -> str | None:
    """Open the session's socket, refuse the sign-in as the IdP would send it back, and
    expect exactly one `login_failed` (seq 1, access_denied), then the close. Returns what
    went wrong, or None."""
    state = login_params(body["login_url"])["state"]
    try:
        async with connect(body["websocket_url"], open_timeout=HTTP_TIMEOUT, close_timeout=5, proxy=None) as ws:
            callback = await http.get(f"{base_url}/auth_callback", params={"state": state, "error": "access_denied"})
            # 400 "Sign-in failed" page; an unknown state would also be a 400, but sends no event.
            if callback.status_code != 400 or not is_html(callback):
                return f"callback answered {callback.status_code} [{callback.headers.get('content-type')}]"
            return await expect_login_failed(ws)
    except (OSError, asyncio.TimeoutError, WebSocketException, httpx.HTTPError) as error:
        return f"{type(error).__name__}: {error}"


async def expect_login_failed(ws: ClientConnection) -> str | None:
    """The socket's only frame is login_failed/access_denied with seq 1; then it closes."""
    try:
        frame = await asyncio.wait_for(ws.recv(), EVENT_TIMEOUT)
    except asyncio.TimeoutError:
        return f"no frame within {EVENT_TIMEOUT} s"
    except ConnectionClosed as closed:
        return f"socket closed before any frame ({closed})"
    event = parse_event(frame)
    if not (
        isinstance(event, dict) and event.get("type") == "login_failed"
        and event.get("seq") == 1 and event.get("error") == "access_denied"
    ):
        return f"unexpected first frame {outline(frame)}"
    try:
        extra = await asyncio.wait_for(ws.recv(), EVENT_TIMEOUT)
    except ConnectionClosed:
        return None
    except asyncio.TimeoutError:
        return "socket still open after login_failed"
    return f"a frame after login_failed: {outline(extra)}"


def parse_event(frame: str | bytes) -> dict[str, Any] | None:
    """A text frame's JSON object, else None."""
    try:
        event = json.loads(frame) if isinstance(frame, str) else None
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def outline(frame: str | bytes) -> str:
    """What a frame was, without its values: a token event carries tokens."""
    event = parse_event(frame)
    if event is None:
        return f"{type(frame).__name__} frame (length {len(frame)}), not a JSON object"
    return f"type={event.get('type')!r} seq={event.get('seq')!r} error={event.get('error')!r} keys={sorted(event)}"


async def register_burst(base_url: str, emails: Sequence[str]) -> tuple[list[Outcome], float]:
    """All registrations in flight at once, one connection each; every session is used as
    soon as its 201 arrives, at most SOCKET_CONCURRENCY at a time, while later answers of
    the burst are still on their way. Returns the outcomes and when the burst was sent.

    The connections are spread over several clients of CLIENT_CONNECTIONS each: one httpx
    pool of 500 connections spends more CPU on its own bookkeeping than the server on the
    registrations, which would time the client instead of the server."""
    outcomes = [Outcome(email) for email in emails]
    limits = httpx.Limits(max_connections=CLIENT_CONNECTIONS, max_keepalive_connections=CLIENT_CONNECTIONS)
    tls = ssl.create_default_context()  # unused on http://, but built once instead of per client
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT * 3, limits=limits, verify=tls)
            )
            for _ in range(-(-len(emails) // CLIENT_CONNECTIONS))
        ]
        start = asyncio.Event()
        sockets = asyncio.Semaphore(SOCKET_CONCURRENCY)

        async def one(index: int, outcome: Outcome) -> None:
            http = clients[index // CLIENT_CONNECTIONS]
            await start.wait()
            try:
                outcome.response = await http.post(
                    f"{base_url}/register_device", json={"email": outcome.email, "device": DEVICE}
                )
            except httpx.HTTPError as error:
                outcome.error = f"{type(error).__name__}: {error}"
                return
            outcome.answered_at = time.monotonic()
            if registration_problem(outcome) is not None:
                return
            outcome.body = outcome.response.json()
            async with sockets:
                outcome.session_problem = await use_session(http, base_url, outcome.body)
            outcome.used_at = time.monotonic()

        tasks = [asyncio.create_task(one(index, outcome)) for index, outcome in enumerate(outcomes)]
        await asyncio.sleep(0.2)  # every task waits at `start`: they send together
        released_at = time.monotonic()
        start.set()
        await asyncio.gather(*tasks)
    return outcomes, released_at


# --------------------------------------------------------------------------- the feed


def feed_position(cursor: str) -> int:
    """The feed position a cursor stands for. Cursors are opaque to an integration: sealed
    with AES-256-GCM under a key of the account's secret (FeedCursor.swift). The test holds
    the secret, so it opens them to tie the positions of single entries (the cursor of a
    page of one) to the feed's order."""
    try:
        box = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        pytest.fail(f"the feed cursor {cursor!r} is not base64url")
    key = hashlib.sha256(b"fieldpass feed cursor v1" + hashlib.sha256(DEV_BACKEND.secret.encode()).digest()).digest()
    try:
        text = AESGCM(key).decrypt(box[:12], box[12:], None).decode()
    except InvalidTag:
        pytest.fail(f"the feed cursor {cursor!r} does not open with the backend's key")
    digits = text.removeprefix(CURSOR_PREFIX)
    assert text.startswith(CURSOR_PREFIX) and digits.isdigit(), f"unexpected feed cursor format {text!r}"
    return int(digits)


def assert_contiguous(positions: Sequence[int], after: int, count: int) -> None:
    """`positions` are exactly after+1 ... after+count, in order: no gap, no repeat."""
    expected = list(range(after + 1, after + count + 1))
    if positions != expected:
        gaps = sorted(set(expected) - set(positions))
        repeats = sorted({p for p in positions if positions.count(p) > 1})
        pytest.fail(
            f"feed positions after {after}: {len(positions)} entries, expected {count} contiguous; "
            f"missing {gaps[:10]}, repeated {repeats[:10]}, "
            f"first {positions[:5]}, last {positions[-5:]}"
        )


def feed_positions(backend: IntegrationClient, cursor: str, count: int) -> list[tuple[str, int]]:
    """The next `count` feed entries after `cursor`, each with its position: a page of one
    entry ends at that entry's position."""
    positions = []
    for _ in range(count):
        page = backend.feed(cursor, limit=1)
        assert len(page["realms"]) == 1, f"the feed ended after {len(positions)} of {count} entries"
        cursor = page["cursor"]
        positions.append((page["realms"][0]["realm_path"], feed_position(cursor)))
    return positions


def devices_by_email(server: FieldpassServer, emails: Sequence[str]) -> dict[str, int]:
    """How many devices each of `emails` has, as an admin (made for it, after the burst) sees."""
    admin_email = unique_email("admin")
    assert server.grant_role(admin_email, "admin").returncode == 0
    admin = sign_in(server, admin_email).access_token
    ids = {user["email"]: user["id"] for user in assert_json(server.api("GET", "/admin/users", token=admin))["users"]}
    return {
        email: len(assert_json(server.api("GET", f"/admin/users/{ids[email]}/devices", token=admin))["devices"])
        for email in emails
    }


# --------------------------------------------------------------------------- the test


def test_a_burst_of_500_registrations_behaves_like_500_transactions(burst_server: FieldpassServer) -> None:
    """500 registrations at once: each answered 201, each session usable at once, each
    stored whole, and the feed lists each once, at contiguous positions."""
    server = burst_server
    emails = [unique_email("burst") for _ in range(BURST)]
    users_before = cli_users(server)
    registered_before = registrations(server)
    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
        backend.authenticate()
        _, start_cursor = backend.drain()
        start_position = feed_position(start_cursor)

        outcomes, started = asyncio.run(register_burst(server.url, emails))
        burst_seconds = time.monotonic() - started
        answered = [o.answered_at for o in outcomes if o.answered_at is not None]
        answer_seconds = (max(answered) - started) if answered else float("nan")

        # Every answer: 201 with a session.
        problems = [p for p in map(registration_problem, outcomes) if p is not None]
        assert not problems, f"{len(problems)} of {BURST} registrations failed, e.g. {problems[:3]}"
        session_ids = {o.body["session_id"] for o in outcomes}
        states = {login_params(o.body["login_url"])["state"] for o in outcomes}
        assert len(session_ids) == BURST and len(states) == BURST, (
            f"{len(session_ids)} distinct sessions and {len(states)} distinct states for {BURST} registrations"
        )

        # Every session worked the moment its answer came.
        broken = [f"{o.email}: {o.session_problem}" for o in outcomes if o.session_problem is not None]
        assert not broken, f"{len(broken)} of {BURST} sessions did not deliver login_failed, e.g. {broken[:3]}"

        # The feed from before the burst: the 500, once each, at contiguous positions.
        feed_started = time.monotonic()
        page = backend.feed(start_cursor, limit=1000)
        rest = backend.feed(page["cursor"], limit=1000)
        feed_seconds = time.monotonic() - feed_started
        positioned = feed_positions(backend, start_cursor, BURST)

    entries = page["realms"]
    paths = [entry["realm_path"] for entry in entries]
    assert len(entries) == BURST, f"the feed has {len(entries)} new entries, not {BURST}"
    assert len(set(paths)) == BURST, f"{BURST - len(set(paths))} realm paths repeated in the feed"
    assert sorted(entry["email"] for entry in entries) == sorted(emails), "the feed's emails are not the 500 registered"
    assert all(entry["initialized"] is False for entry in entries), [e for e in entries if e["initialized"] is not False][:3]
    assert rest["realms"] == [], f"the feed went on after the {BURST}: {len(rest['realms'])} more"
    # Each entry's position, read one entry at a time: the same entries in the same order,
    # contiguous after the start cursor, and the page's cursor is the last of them.
    assert [path for path, _ in positioned] == paths, "one entry at a time, the feed lists other realms or another order"
    assert_contiguous([position for _, position in positioned], start_position, BURST)
    assert feed_position(page["cursor"]) == start_position + BURST, "the page's cursor is not after the last entry"

    # Whole: every registration left its user, realm (above), session (it worked) and
    # device, and was counted once; nothing more.
    added_users = sorted(set(cli_users(server)) - set(users_before))
    assert sorted(line.split()[2] for line in added_users) == sorted(emails), f"{len(added_users)} users added"
    assert registrations(server) - registered_before == BURST
    devices = devices_by_email(server, emails)
    assert devices == dict.fromkeys(emails, 1), {email: n for email, n in devices.items() if n != 1}

    used = [o.used_at - o.answered_at for o in outcomes if o.used_at is not None and o.answered_at is not None]
    print(
        f"\n{BURST} registrations ({store_kind()}): all answered in {answer_seconds:.2f} s, "
        f"every session used by {burst_seconds:.2f} s (longest from an answer to its login_failed "
        f"{max(used):.2f} s); feed read in {feed_seconds:.2f} s"
    )
