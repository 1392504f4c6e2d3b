"""The backend integration: client_credentials, the realm feed (cursor, long-poll) and
marking realms initialized, which releases the waiting device with data_ready.

The integration is written as a plain HTTP client (helpers.IntegrationClient) against a
server with two environments (the `directory_server` fixture).
"""

from __future__ import annotations

import base64
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import httpx
import pytest

from helpers import (
    ACCESS_TOKEN_TTL,
    AUDIENCE,
    DEV_BACKEND,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    FieldpassServer,
    assert_api_error,
    assert_json,
    IntegrationClient,
    assert_event,
    assert_silent,
    browser_login,
    cli_users,
    describe,
    http_client,
    is_html,
    receive,
    receive_until_close,
    sign_in,
    unique_email,
    ws_connect,
)

DEVICE = {"name": "Pixel 8", "platform": "android"}


def backend_client(server: FieldpassServer, account=DEV_BACKEND) -> IntegrationClient:
    client = IntegrationClient(server.public_url, account.id, account.secret)
    client.authenticate()
    return client


def assert_feed_entry(entry: dict[str, Any], *, email: str | None = None, initialized: bool | None = None) -> None:
    assert set(entry) >= {"realm_path", "user_id", "email", "initialized", "created_at"}, entry
    assert isinstance(entry["user_id"], str) and entry["user_id"], entry
    assert entry["realm_path"] == f"/users/{entry['user_id']}", entry
    if email is not None:
        assert entry["email"] == email, entry
    if initialized is not None:
        assert entry["initialized"] is initialized, entry
    created = entry["created_at"]
    assert isinstance(created, str), f"created_at is not a timestamp string: {entry}"
    when = datetime.fromisoformat(created)
    assert when.tzinfo is not None and abs(when.timestamp() - time.time()) < 600, entry


class LongPoll:
    """One feed request with `wait`, on a thread, timing when it answers."""

    def __init__(self, client: IntegrationClient, cursor: str, **kwargs: Any) -> None:
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.answered_at: float | None = None
        self.started_at = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(client, cursor, kwargs), daemon=True)
        self._thread.start()

    def _run(self, client: IntegrationClient, cursor: str, kwargs: dict[str, Any]) -> None:
        try:
            self.result = client.feed(cursor, **kwargs)
        except BaseException as error:  # pytest.fail raises a BaseException
            self.error = error
        finally:
            self.answered_at = time.monotonic()

    def pending(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float) -> dict[str, Any]:
        self._thread.join(timeout)
        if self._thread.is_alive():
            pytest.fail(f"the long-poll did not answer within {timeout} s")
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


# --------------------------------------------------------------------------- tokens


@pytest.mark.parametrize("account", [DEV_BACKEND, OTHER_BACKEND], ids=lambda a: a.id)
def test_client_credentials_token_is_scoped_to_the_environment(directory_server: FieldpassServer, account) -> None:
    response = directory_server.post_token({"grant_type": "client_credentials"}, auth=(account.id, account.secret))
    assert response.status_code == 200, describe(response)
    body = response.json()
    assert body.get("token_type") == "Bearer", body
    assert body.get("expires_in") == ACCESS_TOKEN_TTL, body
    assert "refresh_token" not in body, f"client_credentials must not issue a refresh token: {body}"
    assert "no-store" in response.headers.get("cache-control", ""), response.headers

    claims = directory_server.verify_access_token(body["access_token"])
    assert claims["sub"] == f"service:{account.id}", claims
    assert claims["env"] == ("dev" if account is DEV_BACKEND else "other"), claims
    assert claims["role"] == "service", claims
    assert claims["realms"] == {"/users/*": "manage"}, claims
    assert claims["aud"] in (AUDIENCE, [AUDIENCE]), claims


# --------------------------------------------------------------------------- the flow


def test_backend_long_poll_sees_new_realm_and_releases_device(directory_server: FieldpassServer, email: str) -> None:
    server = directory_server
    with backend_client(server) as backend:
        _, cursor = backend.drain(initialized=False)

        # The integration is waiting before the device exists.
        poll = LongPoll(backend, cursor, initialized=False, wait=10)
        time.sleep(0.7)
        assert poll.pending(), f"the long-poll answered with nothing new: {poll.result} {poll.error}"

        registered_at = time.monotonic()
        registration = server.register(email, DEVICE)
        page = poll.join(timeout=15)
        latency = poll.answered_at - registered_at
        assert latency < 3.0, f"the long-poll answered {latency:.2f} s after the registration"

        assert len(page["realms"]) == 1, page
        entry = page["realms"][0]
        assert_feed_entry(entry, email=email, initialized=False)
        realm_path = entry["realm_path"]
        assert page["cursor"] != cursor, page

        # The device signs in: token and realm_initialized for that same realm.
        with ws_connect(registration.websocket_url) as ws:
            callback = browser_login(registration.login_url, email)
            assert callback.status_code == 200 and is_html(callback), describe(callback)
            token_event, realm_event = receive(ws, 2)
            assert_event(token_event, 1, "token")
            assert_event(realm_event, 2, "realm_initialized")
            assert realm_event["realm_path"] == realm_path
            assert server.verify_access_token(token_event["access_token"])["sub"] == entry["user_id"]
            assert_silent(ws, 0.3)

            # The backend has filled the realm: the device is released.
            marked = backend.mark_initialized(realm_path)
            assert marked.get("devices_notified") == 1, marked
            rest = receive_until_close(ws)
        assert rest.types == ["data_ready"] and rest.seqs == [3], rest
        assert rest.events[0].get("realm_path") == realm_path, rest.events
        assert rest.closed and rest.close_code == 1000, rest

        # With initialized=false the realm never shows up again ...
        later, _ = backend.drain(page["cursor"], initialized=False)
        assert realm_path not in [e["realm_path"] for e in later], later
        # ... and the full feed shows it once more, now initialized.
        moved, end = backend.drain(page["cursor"])
        assert [e["realm_path"] for e in moved] == [realm_path], moved
        assert_feed_entry(moved[0], email=email, initialized=True)

        # Marking again is harmless: nobody left to notify, no new feed entry.
        again = backend.mark_initialized(realm_path)
        assert again.get("devices_notified") == 0, again
        assert backend.drain(end)[0] == [], "marking an initialized realm again moved it in the feed"


def test_long_poll_without_news_waits_and_answers_empty(directory_server: FieldpassServer) -> None:
    with backend_client(directory_server) as backend:
        _, cursor = backend.drain()
        started = time.monotonic()
        page = backend.feed(cursor, wait=1)
        elapsed = time.monotonic() - started
    assert page["realms"] == [], page
    assert 0.8 <= elapsed < 5, f"wait=1 answered after {elapsed:.2f} s"
    # The cursor of an empty answer still works and still points at the end.
    with backend_client(directory_server) as backend:
        assert backend.feed(page["cursor"])["realms"] == []


def test_returning_user_adds_no_feed_entry(directory_server: FieldpassServer, email: str) -> None:
    with backend_client(directory_server) as backend:
        _, cursor = backend.drain()
        directory_server.register(email, DEVICE)
        first, cursor = backend.drain(cursor)
        assert [e["email"] for e in first] == [email], first
        directory_server.register(email, {"name": "Tablet", "platform": "ios"})
        directory_server.register(email, DEVICE)
        assert backend.drain(cursor)[0] == [], "a known user's realm showed up in the feed again"


def test_feed_never_shows_another_environments_realms(directory_server: FieldpassServer) -> None:
    server = directory_server
    dev_email = unique_email("scoped")
    other_email = unique_email("scoped", OTHER_DOMAIN)
    with backend_client(server) as dev, backend_client(server, OTHER_BACKEND) as other:
        _, dev_cursor = dev.drain()
        _, other_cursor = other.drain()

        other_poll = LongPoll(other, other_cursor, wait=2)
        server.register(dev_email, DEVICE)
        assert other_poll.join(timeout=10)["realms"] == [], "a dev realm reached the other environment"

        server.register(other_email, DEVICE)
        (dev_page,) = [dev.feed(dev_cursor, wait=5)]
        assert [e["email"] for e in dev_page["realms"]] == [dev_email], dev_page
        assert dev.drain(dev_page["cursor"])[0] == [], "the other environment's realm reached dev"
        other_entries, _ = other.drain(other_cursor)
        assert [e["email"] for e in other_entries] == [other_email], other_entries

        # From the very start: each sees only its own environment's people.
        dev_all, _ = dev.drain()
        other_all, _ = other.drain()
    assert dev_all and all(not e["email"].endswith("@" + OTHER_DOMAIN) for e in dev_all), dev_all
    assert other_all and all(e["email"].endswith("@" + OTHER_DOMAIN) for e in other_all), other_all
    assert not {e["realm_path"] for e in dev_all} & {e["realm_path"] for e in other_all}


def test_a_cursor_tells_nothing_and_serves_only_the_account_it_was_given_to(directory_server: FieldpassServer) -> None:
    """Feed positions are shared by every environment: a cursor must neither show one nor
    let another company's backend, or a made-up value, probe how far the feed reaches."""
    server = directory_server
    with backend_client(server) as dev, backend_client(server, OTHER_BACKEND) as other:
        _, dev_cursor = dev.drain()
        _, other_cursor = other.drain()
        events = assert_json(dev.http.get(f"{server.public_url}/integration/events", headers={"authorization": f"Bearer {dev.token}"}))
        for cursor in [dev_cursor, other_cursor, events["cursor"], *(e["cursor"] for e in events["events"][:3])]:
            raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
            # Sealed: a nonce, the text and a tag (28 bytes more than the text), never the text itself.
            assert len(raw) >= 28 + len("rf1.dev.0") and not re.fullmatch(rb"[\x20-\x7e]*\d", raw), f"a cursor shows a position: {raw!r}"
        assert dev_cursor != dev.drain()[1], "two cursors for one position must differ (sealed anew)"
        for foreign in (other_cursor, events["cursor"], base64.urlsafe_b64encode(b"rf1.1").decode().rstrip("=")):
            assert_api_error(dev.feed_response(foreign), 400, "invalid_cursor")
        assert_api_error(other.feed_response(dev_cursor), 400, "invalid_cursor")
        assert dev.feed(dev_cursor)["realms"] == []


def test_service_account_cannot_release_another_environments_realm(directory_server: FieldpassServer) -> None:
    server = directory_server
    signed_in = sign_in(server, unique_email("held"))
    with backend_client(server, OTHER_BACKEND) as other, backend_client(server) as dev:
        response = other.mark_initialized_response(signed_in.realm_path)
        assert response.status_code == 404, describe(response)
        assert response.json().get("error") == "unknown_realm", describe(response)
        # Still waiting: the dev backend's feed lists it as not initialized, and marking it
        # now notifies the waiting session.
        entries, _ = dev.drain(initialized=False)
        assert signed_in.realm_path in [e["realm_path"] for e in entries]
        assert dev.mark_initialized(signed_in.realm_path).get("devices_notified") == 1


# --------------------------------------------------------------------------- many at once


CROWD = 200


def test_200_simultaneous_registrations_appear_once_each(directory_server: FieldpassServer) -> None:
    server = directory_server
    emails = [unique_email("crowd") for _ in range(CROWD)]
    with backend_client(server) as backend, backend_client(server) as follower:
        _, start = backend.drain()

        # A second integration follows the feed live while the registrations land.
        followed: list[dict[str, Any]] = []
        follow_errors: list[BaseException] = []

        def follow() -> None:
            cursor, deadline = start, time.monotonic() + 20
            try:
                while len(followed) < CROWD and time.monotonic() < deadline:
                    page = follower.feed(cursor, initialized=False, wait=2, limit=50)
                    followed.extend(page["realms"])
                    cursor = page["cursor"]
            except BaseException as error:
                follow_errors.append(error)

        follow_thread = threading.Thread(target=follow, daemon=True)
        follow_thread.start()

        barrier = threading.Barrier(CROWD)
        limits = httpx.Limits(max_connections=CROWD, max_keepalive_connections=CROWD)
        with http_client(limits=limits) as client:

            def register(email: str) -> httpx.Response:
                barrier.wait(timeout=10)
                return client.post(
                    f"{server.public_url}/register_device", json={"email": email, "device": DEVICE}
                )

            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=CROWD) as pool:
                responses = list(pool.map(register, emails))
            elapsed = time.monotonic() - started
        failed = [describe(r) for r in responses if r.status_code != 201]
        assert not failed, f"{len(failed)} of {CROWD} registrations failed, e.g. {failed[:3]}"

        # Read from the cursor taken before, 50 at a time, until empty.
        pages: list[list[dict[str, Any]]] = []
        cursor = start
        for _ in range(CROWD):
            page = backend.feed(cursor, limit=50)
            cursor = page["cursor"]
            if not page["realms"]:
                break
            pages.append(page["realms"])
        follow_thread.join(timeout=25)
        assert not follow_thread.is_alive(), "the live follower did not finish"

    assert [len(p) for p in pages] == [50, 50, 50, 50], [len(p) for p in pages]
    entries = [entry for page in pages for entry in page]
    paths = [entry["realm_path"] for entry in entries]
    assert len(set(paths)) == len(paths), "realm paths repeated in the feed"
    for entry in entries:
        assert_feed_entry(entry, initialized=False)
    assert sorted(entry["email"] for entry in entries) == sorted(emails), "not exactly the 200 new people"

    # Each entry is the personal realm of the user the directory lists with that email.
    ids = {line.split()[2]: line.split()[0] for line in cli_users(server)}
    assert {entry["email"]: entry["user_id"] for entry in entries} == {email: ids[email] for email in emails}, (
        "feed and directory disagree"
    )

    # The live follower got the same 200, each once.
    if follow_errors:
        raise follow_errors[0]
    followed_paths = [entry["realm_path"] for entry in followed]
    assert len(followed_paths) == CROWD and set(followed_paths) == set(paths), (
        f"live follower: {len(followed_paths)} entries, {len(set(followed_paths))} distinct, "
        f"{len(set(followed_paths) - set(paths))} unexpected, {len(set(paths) - set(followed_paths))} missing"
    )
    print(f"{CROWD} registrations took {elapsed:.2f} s")


# --------------------------------------------------------------------------- more of the feed


def test_long_poll_wakes_when_a_realm_is_marked_initialized(directory_server: FieldpassServer) -> None:
    server = directory_server
    signed_in = sign_in(server, unique_email())
    with backend_client(server) as backend, backend_client(server) as marker:
        entries, cursor = backend.drain()
        (created,) = [e for e in entries if e["realm_path"] == signed_in.realm_path]
        poll = LongPoll(backend, cursor, wait=10)
        time.sleep(0.5)
        assert poll.pending(), (poll.result, poll.error)
        marked_at = time.monotonic()
        marker.mark_initialized(signed_in.realm_path)
        page = poll.join(timeout=15)
    assert poll.answered_at - marked_at < 3.0, f"answered {poll.answered_at - marked_at:.2f} s after the change"
    assert [e["realm_path"] for e in page["realms"]] == [signed_in.realm_path], page
    assert_feed_entry(page["realms"][0], email=signed_in.email, initialized=True)
    assert page["realms"][0]["created_at"] == created["created_at"], "marking changed the creation time"


def test_long_poll_sees_a_change_made_by_the_cli(directory_server: FieldpassServer) -> None:
    """Another process (the CLI) marks the realm initialized: the waiting feed still answers."""
    server = directory_server
    signed_in = sign_in(server, unique_email())
    with backend_client(server) as backend:
        _, cursor = backend.drain()
        poll = LongPoll(backend, cursor, wait=10, initialized=True)
        time.sleep(0.3)
        assert poll.pending(), (poll.result, poll.error)
        result = server.mark_initialized(signed_in.realm_path)
        assert result.returncode == 0, result.stderr
        done_at = time.monotonic()
        page = poll.join(timeout=15)
    assert poll.answered_at - done_at < 3.0, f"answered {poll.answered_at - done_at:.2f} s after the CLI"
    assert [e["realm_path"] for e in page["realms"]] == [signed_in.realm_path], page


def test_wait_longer_than_the_cap_is_accepted(directory_server: FieldpassServer) -> None:
    with backend_client(directory_server) as backend:
        _, cursor = backend.drain()
        email = unique_email()
        directory_server.register(email, DEVICE)
        started = time.monotonic()
        page = backend.feed(cursor, wait=1000)
    assert time.monotonic() - started < 3.0
    assert [e["email"] for e in page["realms"]] == [email], page


def test_initialized_filter_true(directory_server: FieldpassServer) -> None:
    server = directory_server
    done, waiting = sign_in(server, unique_email()), sign_in(server, unique_email())
    with backend_client(server) as backend:
        _, cursor = backend.drain()
        backend.mark_initialized(done.realm_path)
        initialized, _ = backend.drain(cursor, initialized=True)
        pending, _ = backend.drain(initialized=False)
    assert [e["realm_path"] for e in initialized] == [done.realm_path], initialized
    assert all(e["initialized"] is True for e in initialized)
    pending_paths = [e["realm_path"] for e in pending]
    assert waiting.realm_path in pending_paths and done.realm_path not in pending_paths
    assert all(e["initialized"] is False for e in pending)


def test_every_waiting_device_of_the_user_gets_data_ready(directory_server: FieldpassServer, email: str) -> None:
    """Two signed-in devices wait; a third registered but has not signed in yet: it gets
    data_ready only after its own token, at once."""
    server = directory_server
    phone = server.register(email, {"name": "Phone", "platform": "ios"})
    tablet = server.register(email, {"name": "Tablet", "platform": "android"})
    late = server.register(email, {"name": "Laptop", "platform": "web"})
    with backend_client(server) as backend, ws_connect(phone.websocket_url) as ws_phone, \
            ws_connect(tablet.websocket_url) as ws_tablet, ws_connect(late.websocket_url) as ws_late:
        realm_paths = set()
        for registration, ws in ((phone, ws_phone), (tablet, ws_tablet)):
            callback = browser_login(registration.login_url, email)
            assert callback.status_code == 200 and is_html(callback), describe(callback)
            token_event, realm_event = receive(ws, 2)
            assert_event(token_event, 1, "token")
            realm_paths.add(realm_event["realm_path"])
        (realm_path,) = realm_paths

        marked = backend.mark_initialized(realm_path)
        assert marked.get("devices_notified") == 2, marked
        for ws in (ws_phone, ws_tablet):
            rest = receive_until_close(ws)
            assert rest.types == ["data_ready"] and rest.seqs == [3], rest
            assert rest.closed and rest.close_code == 1000, rest
        assert_silent(ws_late, 0.5)

        callback = browser_login(late.login_url, email)
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        got = receive_until_close(ws_late)
    assert got.types == ["token", "realm_initialized", "data_ready"] and got.seqs == [1, 2, 3], got
    assert got.closed and got.close_code == 1000, got


def test_many_waiting_long_polls_all_wake_and_block_nothing(directory_server: FieldpassServer) -> None:
    server = directory_server
    # All of dev's fair share: the default 64 places split between the two environments.
    waiters = 32
    clients = [backend_client(server) for _ in range(waiters)]
    try:
        _, cursor = clients[0].drain()
        polls = [LongPoll(client, cursor, wait=10) for client in clients]
        time.sleep(0.5)
        assert all(poll.pending() for poll in polls), "a long-poll answered with nothing new"

        # The waiting requests hold no thread the rest of the service needs.
        started = time.monotonic()
        assert server.get("/healthz").status_code == 200
        email = unique_email("awaited")
        server.register(email, DEVICE)
        registered_at = time.monotonic()
        assert registered_at - started < 2.0, f"healthz + register took {registered_at - started:.2f} s"

        for poll in polls:
            page = poll.join(timeout=15)
            assert [e["email"] for e in page["realms"]] == [email], page
        slowest = max(poll.answered_at for poll in polls) - registered_at
        assert slowest < 3.0, f"the last of {waiters} long-polls answered {slowest:.2f} s after the registration"
    finally:
        for client in clients:
            client.close()
