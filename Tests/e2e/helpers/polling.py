"""A session's events by HTTP long-poll (`GET /events/poll`, the registration's `events_url`),
as a device that cannot keep a WebSocket reads them: one request at a time, or one waiting in
a thread while the test causes the event it waits for."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from .settings import EVENT_TIMEOUT, HTTP_TIMEOUT
from .sockets import EventList
from .web import assert_json, http_client


@dataclass
class Polled(EventList):
    """One 200 answer: the events (the socket's frames), whether the session has ended, and
    how long the request took."""

    events: list[dict[str, Any]]
    ended: bool
    seconds: float


def poll_response(
    events_url: str, *, after: int | str | None = None, wait: int | str | None = None,
    session_id: str | None = None,
) -> httpx.Response:
    """`GET events_url` with `after` and `wait` added as given (bad values too); `session_id`
    replaces the URL's own."""
    params = {name: str(value) for name, value in (("after", after), ("wait", wait), ("session_id", session_id))
              if value is not None}
    waits = wait if isinstance(wait, int) else 0
    with http_client(timeout=HTTP_TIMEOUT + min(waits, 30)) as client:
        # httpx's own `params` would replace the URL's query (session_id) instead of adding to it.
        return client.get(httpx.URL(events_url).copy_merge_params(params))


def poll(events_url: str, *, after: int | None = None, wait: int | None = None) -> Polled:
    """One long-poll that must answer 200 with `{"events": [...], "ended": bool}`, the events
    each once, in order, all after `after`."""
    started = time.monotonic()
    response = poll_response(events_url, after=after, wait=wait)
    seconds = time.monotonic() - started
    body = assert_json(response)
    assert isinstance(body, dict) and set(body) == {"events", "ended"}, body
    assert isinstance(body["events"], list) and isinstance(body["ended"], bool), body
    polled = Polled(body["events"], body["ended"], seconds)
    assert all(isinstance(seq, int) and seq > (after or 0) for seq in polled.seqs), body
    assert polled.seqs == sorted(set(polled.seqs)), f"not in order, or repeated: {body}"
    return polled


def poll_until(events_url: str, count: int, *, after: int = 0, timeout: float = EVENT_TIMEOUT) -> list[Polled]:
    """Long-polls, each from the last seq got, until `count` events came; every answer."""
    answers: list[Polled] = []
    got = 0
    deadline = time.monotonic() + timeout
    while got < count:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"got {got} of {count} events in {timeout} s: {answers}")
        answers.append(poll(events_url, after=after, wait=max(1, int(remaining))))
        got += len(answers[-1].events)
        after = answers[-1].seqs[-1] if answers[-1].events else after
    return answers


class WaitingPoll:
    """A long-poll sent from a thread at once, so that the test can cause what it waits for;
    answer() gives its answer, and `answered_at` says when it came (time.monotonic())."""

    def __init__(self, events_url: str, *, after: int = 0, wait: int = 30) -> None:
        self.sent_at = time.monotonic()
        self.answered_at: float | None = None
        self._answer: Polled | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(events_url, after, wait), daemon=True)
        self._thread.start()

    def _run(self, events_url: str, after: int, wait: int) -> None:
        try:
            self._answer = poll(events_url, after=after, wait=wait)
            self.answered_at = time.monotonic()
        except BaseException as error:  # pytest.fail raises a BaseException
            self._error = error

    def answer(self, timeout: float = HTTP_TIMEOUT) -> Polled:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), f"the long-poll did not answer within {timeout} s more"
        if self._error is not None:
            raise self._error
        assert self._answer is not None
        return self._answer
