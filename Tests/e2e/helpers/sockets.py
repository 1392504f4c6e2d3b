"""A session's WebSocket: connecting, and reading its events within a timeout."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from .settings import EVENT_TIMEOUT, HTTP_TIMEOUT


class EventList:
    """Events as a device got them (over its socket or by long-poll): their types and seqs."""

    events: list[dict[str, Any]]

    @property
    def types(self) -> list[str]:
        return [event.get("type") for event in self.events]

    @property
    def seqs(self) -> list[int]:
        return [event.get("seq") for event in self.events]


@dataclass
class Received(EventList):
    events: list[dict[str, Any]]
    closed: bool
    close_code: int | None


def ws_connect(url: str) -> ClientConnection:
    return connect(url, open_timeout=HTTP_TIMEOUT, close_timeout=5, proxy=None)


def _parse(message: str | bytes) -> dict[str, Any]:
    assert isinstance(message, str), f"expected a text frame, got binary {message!r}"
    event = json.loads(message)
    assert isinstance(event, dict), f"event is not a JSON object: {message}"
    return event


def receive(ws: ClientConnection, count: int, timeout: float = EVENT_TIMEOUT) -> list[dict[str, Any]]:
    """Exactly `count` events within `timeout`, else the test fails."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(events) < count:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError
            events.append(_parse(ws.recv(timeout=remaining)))
        except TimeoutError:
            pytest.fail(f"got {len(events)} of {count} events in {timeout} s: {events}")
        except ConnectionClosed as closed:
            pytest.fail(
                f"socket closed ({closed}) after {len(events)} of {count} events: {events}"
            )
    return events


def receive_until_close(ws: ClientConnection, timeout: float = EVENT_TIMEOUT) -> Received:
    """Every event until the server closes the socket or `timeout` passes. After a terminal
    event the server sends nothing but the close: a duplicate arrives before it."""
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Received(events, closed=False, close_code=None)
        try:
            events.append(_parse(ws.recv(timeout=remaining)))
        except TimeoutError:
            return Received(events, closed=False, close_code=None)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            return Received(events, closed=True, close_code=code)


def assert_silent(ws: ClientConnection, duration: float) -> None:
    """No event (and no close) arrives within `duration` seconds."""
    got = receive_until_close(ws, timeout=duration)
    assert not got.events and not got.closed, (
        f"expected no event within {duration} s, got {got.events} "
        f"(closed={got.closed}, code={got.close_code})"
    )


def assert_event(event: Mapping[str, Any], seq: int, type_: str) -> None:
    assert event.get("seq") == seq and event.get("type") == type_, (
        f"expected seq={seq} type={type_!r}, got {event}"
    )
