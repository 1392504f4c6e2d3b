"""Shared devices' long-polls (`GET /shared_devices/events?wait=`) wait in places of their
own, never the integration feed's, and the environments share them fairly
(`sessions.max_sockets` of them, each environment's devices an equal part): one company's
devices cannot make another company's backend feed or device events answer 503. A device
waits once: its newer poll answers its older one at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from helpers import (
    ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, OTHER_ADMIN_EMAIL, OTHER_BACKEND, EventsReader, FieldpassServer, IntegrationClient,
    MockIdP, assert_api_error, assert_json, describe, running_server, sign_in, unique_email,
)
from test_shifts import Tablet, enrolled_tablet, events, shift_sign_in, sign_out, tablet_at_two_instances

WAIT = 30  # the longest a poll may wait: the held polls outlast every check


class HeldPolls:
    """A long-poll of each tablet, each in its own thread, until answered."""

    def __init__(self, server: FieldpassServer, tablets: list[Tablet]) -> None:
        self.answers: dict[str, httpx.Response] = {}
        self.threads = [
            threading.Thread(target=lambda t=tablet: self.answers.setdefault(t.device_id, events(server, t, wait=WAIT)))
            for tablet in tablets
        ]
        for thread in self.threads:
            thread.start()
        time.sleep(3.0)  # every poll is waiting by now

    def join(self, timeout: float) -> dict[str, httpx.Response]:
        """The answers of the polls that ended within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return dict(self.answers)


def answered_again(server: FieldpassServer, tablets: list[Tablet]) -> set[int]:
    """Each tablet polls again, all at once: its newer poll ends the waiting one. The statuses."""
    with ThreadPoolExecutor(max_workers=len(tablets)) as pool:
        return set(pool.map(lambda tablet: events(server, tablet, wait=1).status_code, tablets))


@pytest.fixture(scope="module")
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    # Rate limits off: 64 devices poll from one address.
    with running_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("device-polls"), environments=DIRECTORY_ENVIRONMENTS,
    ) as started:
        yield started


def test_64_waiting_polls_of_one_environment_leave_the_other_its_feed_and_device_events(server: FieldpassServer) -> None:
    admin, other_admin = sign_in(server, ADMIN_EMAIL), sign_in(server, OTHER_ADMIN_EMAIL)
    tablets = [enrolled_tablet(server, admin) for _ in range(64)]
    other_tablet = enrolled_tablet(server, other_admin)
    with IntegrationClient(server.public_url, OTHER_BACKEND.id, OTHER_BACKEND.secret) as backend:
        backend.authenticate()
        _, realm_cursor = backend.drain()
        lifecycle = EventsReader(server.public_url, OTHER_BACKEND)
        try:
            _, event_cursor = lifecycle.drain()
            held = HeldPolls(server, tablets)
            try:
                realms = backend.feed_response(realm_cursor, wait=1)
                lifecycle_events = lifecycle.response(event_cursor, wait=1)
                device_events = events(server, other_tablet, wait=1)
                early = held.join(0)
            finally:
                again = answered_again(server, tablets)
                answers = held.join(15)
        finally:
            lifecycle.close()
    assert realms.status_code == 200, f"the other environment's realm feed was shut out: {describe(realms)}"
    assert lifecycle_events.status_code == 200, f"its lifecycle feed was shut out: {describe(lifecycle_events)}"
    assert device_events.status_code == 200, f"its device was shut out: {describe(device_events)}"
    assert device_events.json() == {"events": []}, describe(device_events)
    assert early == {}, f"held polls answered before anything ended them: {[describe(r) for r in early.values()]}"
    # Each newer poll answered the waiting one of its device at once, with nothing new.
    assert again == {200}, again
    assert len(answers) == len(tablets), f"{len(tablets) - len(answers)} polls still waited after their device polled again"
    assert {r.status_code for r in answers.values()} == {200}, [describe(r) for r in answers.values() if r.status_code != 200][:3]
    assert all(r.json() == {"events": []} for r in answers.values())


def test_an_environments_devices_wait_within_its_share(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    # 4 places between two environments: 2 each.
    with running_server(
        fieldpass_bin, idp, tmp_path, {"SESSIONS_MAX_SOCKETS": "4"}, environments=DIRECTORY_ENVIRONMENTS,
    ) as small:
        admin, other_admin = sign_in(small, ADMIN_EMAIL), sign_in(small, OTHER_ADMIN_EMAIL)
        first, second, third = (enrolled_tablet(small, admin) for _ in range(3))
        other_tablet = enrolled_tablet(small, other_admin)
        held = HeldPolls(small, [first, second])
        try:
            refused = events(small, third, wait=1)
            without_wait = events(small, third)
            other = events(small, other_tablet, wait=1)
            # A device that waits already polls again in its own place.
            again = events(small, first, wait=1)
        finally:
            again_both = answered_again(small, [first, second])
            answers = held.join(15)
    assert_api_error(refused, 503, "server_busy")
    assert refused.headers["retry-after"] == "1"
    assert without_wait.status_code == 200, "a poll without wait takes no place"
    assert other.status_code == 200, f"the other environment's device was shut out: {describe(other)}"
    assert again.status_code == 200, describe(again)
    assert again_both == {200}, again_both
    assert {r.status_code for r in answers.values()} == {200} and len(answers) == 2, answers


@pytest.mark.postgres_only
def test_a_shift_ended_at_one_instance_answers_the_devices_poll_at_the_other(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    with tablet_at_two_instances(fieldpass_bin, idp, tmp_path) as (a, b, _, tablet):
        shift_sign_in(a, tablet, unique_email("a"))
        answer: dict[str, httpx.Response] = {}
        thread = threading.Thread(target=lambda: answer.setdefault("r", events(b, tablet, after=1, wait=WAIT)))
        thread.start()
        try:
            time.sleep(1.0)  # the poll waits at b by now
            assert sign_out(a, tablet).status_code == 204
        finally:
            thread.join(WAIT + 10)
    body = assert_json(answer["r"])
    assert [(e["seq"], e["type"], e["reason"]) for e in body["events"]] == [(2, "shift_ended", "signed_out")], body
