"""A session's events by HTTP long-poll, `GET /events/poll` (the registration's `events_url`),
for devices whose network or platform breaks WebSockets: the socket's very frames, each once
from `after` on, an answer as soon as an event is stored (by any instance, or by the CLI),
the socket's close rules (a poll past the terminal event ends the session, a finished session
answers at once), the socket's places, and the socket's rate limit.

The device here never opens a socket unless the test says so: every event it gets comes
from polls. The IdP steps are played by one httpx client per person (helpers.browser).
"""

from __future__ import annotations

import secrets
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    Cluster,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    Polled,
    Registration,
    WaitingPoll,
    assert_api_error,
    browser_login,
    cli_output,
    describe,
    http_client,
    idp_redirect,
    is_html,
    new_browser,
    on,
    poll,
    poll_response,
    poll_until,
    receive_until_close,
    running_server,
    start_cluster,
    unique_email,
    ws_connect,
)

DEVICE = {"name": "Pixel 8", "platform": "android"}
# How soon a waiting poll must answer once its event is stored: a push takes milliseconds
# (the socket's, within 100 ms across instances, test_cluster); a second leaves room for a
# loaded machine.
PROMPT = 1.0
# Long enough for a poll sent from a thread to reach the server and wait there.
SETTLE = 0.5


def signed_in(server: FieldpassServer, email: str) -> tuple[Registration, list[dict[str, Any]]]:
    """A registration whose sign-in finished (token and realm_initialized stored), and those
    two events as a long-poll gets them."""
    registration = server.register(email, DEVICE)
    callback = browser_login(registration.login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    events = [event for answer in poll_until(registration.events_url, 2) for event in answer.events]
    assert [(event["seq"], event["type"]) for event in events] == [(1, "token"), (2, "realm_initialized")], events
    return registration, events


def mark_initialized(server: FieldpassServer, realm_path: str) -> None:
    """The company's backend, played by `fieldpass realms mark-initialized` (another process)."""
    result = server.mark_initialized(realm_path)
    assert result.returncode == 0, cli_output(result)


def answered_across(events_url: str, cause: Callable[[], object], *, after: int = 0) -> Polled:
    """The answer of a poll (wait=30, from `after`) that waits while `cause()` stores its
    event: it came after `cause` began (it waited for it), and within PROMPT of its return."""
    waiting = WaitingPoll(events_url, after=after, wait=30)
    time.sleep(SETTLE)
    caused_at = time.monotonic()
    cause()
    stored_at = time.monotonic()
    answer = waiting.answer()
    assert waiting.answered_at is not None and waiting.answered_at >= caused_at, (
        f"answered {caused_at - waiting.answered_at:.3f} s before the event was caused: {answer}"
    )
    gap = waiting.answered_at - stored_at
    assert gap < PROMPT, f"answered {gap:.3f} s after the event was stored (allowed {PROMPT} s)"
    print(f"\nlong-poll answered {gap * 1000:.0f} ms after the request that stored its event returned")
    return answer


def waiting_through_onboarding(registration: Registration, email: str, instance: FieldpassServer) -> tuple[Polled, Polled]:
    """Polls waiting on the registration's events_url, first while the person's browser
    delivers the IdP's redirect to `instance`, then while dev's backend marks the realm
    initialized through `instance`: the two answers (see answered_across)."""
    with new_browser() as browser:
        location = idp_redirect(registration.login_url, email, browser=browser)

        def deliver_callback() -> None:
            callback = browser.get(on(instance, location))
            assert callback.status_code == 200 and is_html(callback), describe(callback)

        signed = answered_across(registration.events_url, deliver_callback)
    assert signed.seqs[0] == 1 and signed.types[0] == "token" and not signed.ended, signed
    realm_path = poll_until(registration.events_url, 1, after=1)[0].events[0]["realm_path"]
    with IntegrationClient(instance.url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
        backend.authenticate()
        ready = answered_across(registration.events_url, lambda: backend.mark_initialized(realm_path), after=2)
    assert ready.types == ["data_ready"] and ready.seqs == [3] and ready.ended, ready
    return signed, ready


# --------------------------------------------------------------------------- the flow


def test_the_whole_onboarding_by_long_poll_alone(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    assert registration.events_url == f"{server.public_url}/events/poll?session_id={registration.session_id}"
    before = poll(registration.events_url)
    callback = browser_login(registration.login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    answers = poll_until(registration.events_url, 2)
    token_event, realm_event = [event for answer in answers for event in answer.events]
    realm_path = realm_event["realm_path"]
    mark_initialized(server, realm_path)
    last = poll(registration.events_url, after=2, wait=10)
    after_end = poll(registration.events_url, after=3, wait=0)

    assert (before.events, before.ended) == ([], False), before
    assert (token_event["seq"], token_event["type"], realm_event["seq"], realm_event["type"]) == (
        1, "token", 2, "realm_initialized"), answers
    assert not any(answer.ended for answer in answers), answers
    assert [(event["seq"], event["type"]) for event in last.events] == [(3, "data_ready")], last
    assert last.events[0]["realm_path"] == realm_path and last.ended, last
    assert (after_end.events, after_end.ended) == ([], True), after_end
    # Verified with the published JWKS alone (PyJWT), as a sync server would.
    claims = server.verify_access_token(token_event["access_token"])
    assert claims["email"] == email and realm_path == f"/users/{claims['sub']}", (claims, realm_path)
    assert isinstance(token_event.get("refresh_token"), str) and token_event["refresh_token"], token_event


def test_a_waiting_poll_is_answered_within_a_second_of_the_event(directory_server: FieldpassServer, email: str) -> None:
    """Once for the event the callback stores, once for the one the backend's call stores."""
    registration = directory_server.register(email, DEVICE)
    waiting_through_onboarding(registration, email, directory_server)


def test_polling_on_from_after_gives_each_event_once_and_the_sockets_frames(server: FieldpassServer, email: str) -> None:
    registration, first_two = signed_in(server, email)
    from_one = poll(registration.events_url, after=1)
    nothing_new = poll(registration.events_url, after=2)
    mark_initialized(server, first_two[1]["realm_path"])
    third = poll(registration.events_url, after=2, wait=10)
    unacknowledged = poll(registration.events_url, after=0)
    acknowledged = poll(registration.events_url, after=3)
    everything = poll(registration.events_url, after=0)
    tail = poll(registration.events_url, after=1)
    with ws_connect(f"{registration.websocket_url}&after=0") as ws:
        socket = receive_until_close(ws)

    assert from_one.events == first_two[1:], (from_one, first_two)
    assert (nothing_new.events, nothing_new.ended) == ([], False), nothing_new
    assert third.seqs == [3] and third.ended, third
    pieced = first_two + third.events
    assert [event["seq"] for event in pieced] == [1, 2, 3], f"a gap or a repeat: {pieced}"
    # Until the device asks past the terminal event, every event stays, token included.
    assert unacknowledged.events == pieced and unacknowledged.ended, (unacknowledged, pieced)
    assert (acknowledged.events, acknowledged.ended) == ([], True), acknowledged
    # Ended, the session keeps no token event (Docs/api.md: deleted when the session ends).
    assert everything.events == pieced[1:] and everything.ended, (everything, pieced)
    assert tail.events == pieced[1:], tail
    assert socket.events == everything.events and socket.closed, f"the socket sent other frames: {socket}"


def test_an_ended_session_answers_at_once(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    callback = browser_login(registration.login_url, email, deny=True)
    assert callback.status_code == 400 and is_html(callback), describe(callback)
    failed = poll(registration.events_url, wait=30)
    again = poll(registration.events_url, wait=30)
    beyond = poll(registration.events_url, after=1, wait=30)

    assert failed.types == ["login_failed"] and failed.events[0]["error"] == "access_denied", failed
    assert failed.ended and again.ended and beyond.ended, (failed, again, beyond)
    assert again.events == failed.events and beyond.events == [], (again, beyond)
    for answer in (failed, again, beyond):
        assert answer.seconds < SETTLE, f"an ended session's poll took {answer.seconds:.3f} s"


# --------------------------------------------------------------------------- delivered means received


def finished(server: FieldpassServer, email: str) -> Registration:
    """A registration whose onboarding has finished (token, realm_initialized and data_ready
    stored), none of it acknowledged by the device yet."""
    registration, first_two = signed_in(server, email)
    mark_initialized(server, first_two[1]["realm_path"])
    return registration


def lose_an_answer(events_url: str) -> None:
    """A poll whose answer never reaches the device: the connection is dropped as soon as the
    answer starts, its body unread (a train tunnel, a proxy that cuts a long response)."""
    with http_client() as client, client.stream("GET", httpx.URL(events_url).copy_merge_params({"after": "0"})) as answer:
        assert answer.status_code == 200, answer.status_code


def test_a_lost_answer_comes_again_token_included_until_the_device_acknowledges(server: FieldpassServer, email: str) -> None:
    registration = finished(server, email)
    lose_an_answer(registration.events_url)
    read_but_lost = poll(registration.events_url, after=0)
    again = poll(registration.events_url, after=0)
    acknowledgement = poll(registration.events_url, after=3)
    after_end = poll(registration.events_url, after=0)

    assert read_but_lost.types == ["token", "realm_initialized", "data_ready"] and read_but_lost.ended, read_but_lost
    assert again.events == read_but_lost.events and again.ended, (again, read_but_lost)
    assert (acknowledgement.events, acknowledgement.ended) == ([], True), acknowledgement
    assert after_end.types == ["realm_initialized", "data_ready"] and after_end.ended, after_end
    # The token given again is the one token: it refreshes, once.
    refreshed = server.refresh(read_but_lost.events[0]["refresh_token"])
    assert refreshed.status_code == 200, describe(refreshed)


def test_a_socket_cut_before_its_frames_are_read_loses_nothing(server: FieldpassServer, email: str) -> None:
    registration = finished(server, email)
    cut = ws_connect(registration.websocket_url)
    cut.close_socket()  # no close handshake, nothing read: the connection is simply gone
    with ws_connect(f"{registration.websocket_url}&after=0") as ws:
        again = receive_until_close(ws)
    with ws_connect(f"{registration.websocket_url}&after=3") as ws:
        acknowledgement = receive_until_close(ws)
    with ws_connect(f"{registration.websocket_url}&after=0") as ws:
        after_end = receive_until_close(ws)

    assert again.types == ["token", "realm_initialized", "data_ready"], again
    assert again.closed and again.close_code == 1000, again
    assert acknowledgement.events == [] and acknowledgement.close_code == 1000, acknowledgement
    assert after_end.types == ["realm_initialized", "data_ready"], after_end
    assert after_end.events == again.events[1:], (after_end, again)


# --------------------------------------------------------------------------- bad input

WELL_FORMED = "A" * 43
HUGE = "9223372036854775808"  # one more than the largest 64-bit integer

BAD_POLLS: dict[str, tuple[dict[str, str], str]] = {
    "session_id-short": ({"session_id": "abc"}, "session_id"),
    "session_id-empty": ({"session_id": ""}, "session_id"),
    "session_id-42": ({"session_id": "A" * 42}, "session_id"),
    "session_id-44": ({"session_id": "A" * 44}, "session_id"),
    "session_id-bad-character": ({"session_id": "A" * 42 + "="}, "session_id"),
    "after-negative": ({"after": "-1"}, "after"),
    "after-word": ({"after": "abc"}, "after"),
    "after-fraction": ({"after": "1.5"}, "after"),
    "after-empty": ({"after": ""}, "after"),
    "after-huge": ({"after": HUGE}, "after"),
    "wait-negative": ({"wait": "-1"}, "wait"),
    "wait-fraction": ({"wait": "1.5"}, "wait"),
    "wait-word": ({"wait": "soon"}, "wait"),
    "wait-huge": ({"wait": HUGE}, "wait"),
}


@pytest.mark.parametrize(("query", "naming"), BAD_POLLS.values(), ids=BAD_POLLS.keys())
def test_a_malformed_poll_is_refused(server: FieldpassServer, email: str, query: dict[str, str], naming: str) -> None:
    registration = server.register(email, DEVICE)
    response = poll_response(registration.events_url, **query)
    payload = assert_api_error(response, 400, "invalid_request")
    assert naming in payload["error_description"], describe(response)
    # The session is none the worse.
    still = poll(registration.events_url)
    assert (still.events, still.ended) == ([], False), still


def test_a_poll_without_a_session_id_is_refused(server: FieldpassServer) -> None:
    response = server.get("/events/poll?after=0&wait=1")
    assert "session_id" in assert_api_error(response, 400, "invalid_request")["error_description"], describe(response)


@pytest.mark.parametrize("session_id", [WELL_FORMED, secrets.token_urlsafe(32)], ids=["all-A", "random"])
def test_an_unknown_session_is_not_found(server: FieldpassServer, session_id: str) -> None:
    started = time.monotonic()
    response = server.get(f"/events/poll?session_id={session_id}&wait=30")
    assert_api_error(response, 404, "unknown_session")
    assert time.monotonic() - started < SETTLE, "an unknown session's poll waited"


# --------------------------------------------------------------------------- places and rate limit

PLACES = 3  # sessions.max_sockets_per_session, by default
TRY_AGAIN_LATER = 1013


def test_a_waiting_poll_needs_one_of_the_sessions_socket_places(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    with ExitStack() as stack:
        sockets = [stack.enter_context(ws_connect(registration.websocket_url)) for _ in range(PLACES)]
        with ws_connect(registration.websocket_url) as one_too_many:
            refused = receive_until_close(one_too_many, timeout=2)
        assert refused.closed and refused.close_code == TRY_AGAIN_LATER, f"the places were not all taken: {refused}"
        busy = poll_response(registration.events_url, wait=5)
        not_waiting = poll(registration.events_url, wait=0)
        sockets[0].close()
        deadline = time.monotonic() + 5
        while (freed := poll_response(registration.events_url, wait=1)).status_code == 503:
            assert time.monotonic() < deadline, "a closed socket's place did not come free"

    assert_api_error(busy, 503, "server_busy")
    assert busy.headers.get("retry-after") == "1", busy.headers
    assert (not_waiting.events, not_waiting.ended) == ([], False), not_waiting
    assert freed.status_code == 200, describe(freed)


def test_a_newer_poll_ends_the_older_ones_wait(server: FieldpassServer, email: str) -> None:
    """A device polls again when its connection drops, and the server cannot see the old
    request's client go: the newer poll ends the older one's wait (an empty answer)."""
    registration = server.register(email, DEVICE)
    older = WaitingPoll(registration.events_url, wait=30)
    time.sleep(SETTLE)
    newer = WaitingPoll(registration.events_url, wait=2)
    answer = older.answer()
    assert (answer.events, answer.ended) == ([], False), answer
    assert older.answered_at is not None and older.answered_at - newer.sent_at < PROMPT, "the older poll kept waiting"
    assert newer.answer().seconds >= 1.5, "the newer poll did not wait"


def test_abandoned_polls_do_not_shut_the_device_out(server: FieldpassServer, email: str) -> None:
    """More polls than the session has socket places, each given up by its client after a
    moment (a phone losing its connection mid-poll): the device's next poll still waits, and
    its socket still opens."""
    registration = server.register(email, DEVICE)
    for _ in range(PLACES + 1):
        with pytest.raises(httpx.TimeoutException), http_client(timeout=0.3) as client:
            client.get(httpx.URL(registration.events_url).copy_merge_params({"wait": "30"}))
    waiting = poll_response(registration.events_url, wait=1)
    with ws_connect(registration.websocket_url) as socket:
        opened = receive_until_close(socket, timeout=1)
    assert waiting.status_code == 200, describe(waiting)
    assert not opened.closed, f"the socket was refused: {opened}"


def test_shutdown_answers_a_waiting_poll_at_once(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    """SIGTERM (drain_time 0) while a poll waits: the poll is answered, empty, and the process
    exits without waiting out the poll's 30 s, so the device asks another instance."""
    with running_server(fieldpass_bin, idp, tmp_path) as stopping:
        registration = stopping.register(unique_email("shutdown"), DEVICE)
        waiting = WaitingPoll(registration.events_url, wait=30)
        time.sleep(SETTLE)
        started = time.monotonic()
        assert stopping.process is not None
        stopping.process.proc.send_signal(signal.SIGTERM)
        stopping.process.proc.wait(10)
        exited = time.monotonic() - started
        answer = waiting.answer()
    assert exited < 5, f"the server took {exited:.1f} s to exit"
    assert (answer.events, answer.ended) == ([], False), answer


def test_shutdown_closes_a_waiting_socket_as_going_away(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    """SIGTERM while a socket waits for its session's events: it closes with 1001 ("going
    away"), which tells the app to reconnect elsewhere, and not with 1000, which would say
    that the session's events are over."""
    with running_server(fieldpass_bin, idp, tmp_path) as stopping:
        registration = stopping.register(unique_email("socket-shutdown"), DEVICE)
        with ws_connect(registration.websocket_url) as socket:
            time.sleep(SETTLE)
            assert stopping.process is not None
            stopping.process.proc.send_signal(signal.SIGTERM)
            closed = receive_until_close(socket, timeout=5)
        stopping.process.proc.wait(10)
    assert closed.closed and closed.events == [] and closed.close_code == 1001, closed


@pytest.fixture(scope="module")
def limited_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """`limits.events` at a burst of 3 and one a minute (nothing refills during the test)."""
    limits = {"events": {"per_minute": 1, "burst": 3}}
    with running_server(fieldpass_bin, idp, tmp_path_factory.mktemp("poll-limits"), limits=limits) as server:
        yield server


def test_polls_and_sockets_share_the_events_rate_limit(limited_server: FieldpassServer) -> None:
    """Three polls use the address's burst: then the socket's route refuses too (asked without
    an upgrade, as test_rate_limits does: a refused upgrade is a bare 400), and so do polls."""
    registration = limited_server.register(unique_email("poller"), DEVICE)
    answers = [poll_response(registration.events_url) for _ in range(3)]
    socket_route = limited_server.get(f"/events?session_id={registration.session_id}")
    refused = poll_response(registration.events_url)

    assert [answer.status_code for answer in answers] == [200] * 3, [describe(answer) for answer in answers]
    assert_api_error(socket_route, 429, "rate_limited")
    assert_api_error(refused, 429, "rate_limited")
    assert 1 <= int(refused.headers["retry-after"]) <= 60, refused.headers


# --------------------------------------------------------------------------- several instances


@pytest.fixture(scope="module")
def pair(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Instances A and B on one fresh PostgreSQL database, with dev's service account."""
    started = start_cluster(fieldpass_bin, idp, tmp_path_factory.mktemp("poll-pair"), 2, environments=DIRECTORY_ENVIRONMENTS)
    yield started
    started.stop()


@pytest.mark.postgres_only
def test_a_poll_waiting_on_a_gets_what_b_stored_within_a_second(pair: Cluster, email: str) -> None:
    """The sign-in finishes on B, then the backend marks the realm initialized through B;
    each time the poll waiting on A answers within a second (PostgreSQL NOTIFY)."""
    a, b = pair.instances
    registration = a.register(email, DEVICE)
    assert urlsplit(registration.events_url).netloc == urlsplit(a.url).netloc, registration.body
    _, ready = waiting_through_onboarding(registration, email, b)
    # The device acknowledges the end on A; B then serves the same frames (but the token's,
    # deleted as the session ended), and knows it ended.
    acknowledged = poll(registration.events_url, after=3)
    assert (acknowledged.events, acknowledged.ended) == ([], True), acknowledged
    on_b = poll(on(b, registration.events_url), after=0, wait=30)
    assert on_b.seqs == [2, 3] and on_b.ended and on_b.seconds < SETTLE, on_b
    assert on_b.events[1] == ready.events[0], (on_b, ready)


@pytest.mark.postgres_only
def test_a_lost_answer_comes_again_from_the_other_instance_until_acknowledged_there(pair: Cluster, email: str) -> None:
    a, b = pair.instances
    registration = finished(a, email)
    lost_on_a = poll(registration.events_url, after=0)
    again_on_b = poll(on(b, registration.events_url), after=0)
    acknowledged_on_b = poll(on(b, registration.events_url), after=3)
    after_end_on_a = poll(registration.events_url, after=0)

    assert lost_on_a.types == ["token", "realm_initialized", "data_ready"], lost_on_a
    assert again_on_b.events == lost_on_a.events, (again_on_b, lost_on_a)
    assert (acknowledged_on_b.events, acknowledged_on_b.ended) == ([], True), acknowledged_on_b
    assert after_end_on_a.types == ["realm_initialized", "data_ready"] and after_end_on_a.ended, after_end_on_a


@pytest.mark.postgres_only
def test_what_the_cli_stores_reaches_a_poll_within_a_second(pair: Cluster, email: str) -> None:
    """`fieldpass realms mark-initialized` is another process: it announces its change before
    it exits, so a poll waiting on A answers within a second, not at A's safety-net look."""
    a, _ = pair.instances
    registration, _ = signed_in(a, email)
    realm_path = poll(registration.events_url, after=1).events[0]["realm_path"]
    ready = answered_across(registration.events_url, lambda: mark_initialized(a, realm_path), after=2)
    assert ready.types == ["data_ready"] and ready.ended, ready
