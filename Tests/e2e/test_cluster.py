"""Several instances on one PostgreSQL database: a device's socket on one instance gets the
events that others store, the realm feed has no gaps when registrations land everywhere at
once, a revocation made through one instance counts on the others within a second (also
while their LISTEN connections keep being lost), an instance that dies mid-onboarding loses
nothing, and PostgreSQL may restart under a running server.

Instances share their key and their issuer (helpers.cluster): every URL the server hands
out names instance A, the "load balancer"; `on(instance, url)` sends it elsewhere.
PostgreSQL only: on SQLite these tests are deselected (conftest, marker postgres_only).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from helpers.cluster import REPO_ROOT
from helpers import (
    ADMIN_EMAIL,
    AUDIENCE,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    HTTP_TIMEOUT,
    Cluster,
    FieldpassServer,
    IntegrationClient,
    PostgresDatabase,
    MockIdP,
    OwnPostgres,
    Registration,
    assert_api_error,
    assert_json,
    authorize_url,
    describe,
    free_port,
    http_client,
    new_browser,
    idp_redirect,
    is_html,
    login_and_receive_token,
    login_params,
    on,
    onboard_to_data_ready,
    path_and_query,
    percentile,
    poll_until,
    receive,
    receive_until_close,
    server_env,
    server_in,
    sign_in,
    start_cluster,
    unique_email,
    verify_jwt,
    ws_connect,
)

pytestmark = pytest.mark.postgres_only

DEVICE = {"name": "Pixel 8", "platform": "android"}
ONBOARDING = ["token", "realm_initialized", "data_ready"]


def _start(fieldpass_bin: Path, idp: MockIdP, workdir: Path) -> Cluster:
    return start_cluster(fieldpass_bin, idp, workdir, 3, environments=DIRECTORY_ENVIRONMENTS)


@pytest.fixture(scope="module")
def cluster(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Instances A, B and C on one fresh database, with dev's service account."""
    started = _start(fieldpass_bin, idp, tmp_path_factory.mktemp("cluster"))
    yield started
    started.stop()


@pytest.fixture
def own_cluster(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[Cluster]:
    """A, B and C of the test's own, for a test that kills one of them."""
    started = _start(fieldpass_bin, idp, tmp_path)
    yield started
    started.stop()


def backend(instance: FieldpassServer) -> IntegrationClient:
    """dev's backend integration talking to `instance`."""
    client = IntegrationClient(instance.url, DEV_BACKEND.id, DEV_BACKEND.secret)
    client.authenticate()
    return client


def deliver_callback(instance: FieldpassServer, location: str, browser: httpx.Client) -> None:
    """The IdP's redirect (to the shared address) delivered by `browser` to `instance` instead."""
    assert path_and_query(location).startswith("/auth_callback?"), location
    callback = browser.get(on(instance, location))
    assert callback.status_code == 200 and is_html(callback), describe(callback)


def assert_onboarding_events(events: list[dict[str, Any]], first_seq: int = 1) -> None:
    """token, realm_initialized, data_ready from `first_seq` on: in order, each once."""
    types = [event.get("type") for event in events]
    seqs = [event.get("seq") for event in events]
    expected = ONBOARDING[first_seq - 1 :]
    assert types == expected and seqs == list(range(first_seq, 4)), f"expected {expected}, got {events}"


# --------------------------------------------------------------------------- one device, three instances


def test_onboarding_spread_over_three_instances(cluster: Cluster) -> None:
    a, b, c = cluster.instances
    email = unique_email("cluster")
    registration = a.register(email, DEVICE)
    assert urlsplit(registration.websocket_url).netloc == urlsplit(a.url).netloc, registration.body

    with ws_connect(on(b, registration.websocket_url)) as ws, new_browser() as browser:
        location = idp_redirect(registration.login_url, email, browser=browser)
        assert location.startswith(f"{cluster.public_url}/auth_callback?"), location
        deliver_callback(c, location, browser)
        signed_in = receive(ws, 2)
        realm_path = signed_in[1].get("realm_path")
        with backend(a) as integration:
            assert integration.mark_initialized(realm_path).get("devices_notified") == 1
        rest = receive_until_close(ws)

    assert_onboarding_events(signed_in + rest.events)
    assert rest.closed and rest.close_code == 1000, rest
    jwks = a.jwks()
    assert b.jwks() == jwks and c.jwks() == jwks, "the instances do not publish the same keys"
    claims = verify_jwt(signed_in[0]["access_token"], jwks, issuer=cluster.public_url, audience=AUDIENCE)
    assert claims["email"] == email and realm_path == f"/users/{claims['sub']}", (claims, realm_path)


class Follower:
    """A device following one session's events on one instance: by socket, or by long-polls
    from the last seq it got, until `count` events came (no poll past the last, which would
    end the session)."""

    def __init__(self, registration: Registration, instance: FieldpassServer, *, socket: bool, count: int = 3) -> None:
        self.events: list[dict[str, Any]] = []
        self.closed: bool | None = None
        self.error: BaseException | None = None
        url = registration.websocket_url if socket else registration.events_url
        self._thread = threading.Thread(target=self._follow, args=(on(instance, url), socket, count), daemon=True)
        self._thread.start()

    def _follow(self, url: str, socket: bool, count: int) -> None:
        try:
            if socket:
                with ws_connect(url) as ws:
                    rest = receive_until_close(ws, timeout=30)
                self.events, self.closed = rest.events, rest.closed
            else:
                self.events = [event for polled in poll_until(url, count, timeout=30) for event in polled.events]
        except BaseException as error:  # pytest.fail raises a BaseException
            self.error = error

    def result(self) -> list[dict[str, Any]]:
        self._thread.join(40)
        assert not self._thread.is_alive(), "the follower did not finish"
        if self.error is not None:
            raise self.error
        return self.events


def follow_on(registration: Registration, *instances: FieldpassServer) -> list[Follower]:
    """A socket and a long-poll on each of `instances`, each subscribed before it returns."""
    followers = [Follower(registration, instance, socket=socket) for instance in instances for socket in (True, False)]
    time.sleep(0.5)  # every socket subscribed and every poll waiting: what follows is a push
    return followers


def realm_of(registration: Registration, instance: FieldpassServer) -> str:
    """The realm path of the session's `realm_initialized`, as a device asking `instance` now finds it."""
    stored = poll_until(on(instance, registration.events_url), 2)
    return next(event["realm_path"] for polled in stored for event in polled.events if event["type"] == "realm_initialized")


def test_events_stored_on_either_instance_reach_sockets_and_polls_on_both_in_order_once(cluster: Cluster) -> None:
    # Each instance hands the events it stores to its own readers at commit and the others'
    # through the feed: a session whose events are stored on both reaches readers on both
    # with every event once, in order.
    a, b, _ = cluster.instances
    email = unique_email("both-ways")
    registration = a.register(email, DEVICE)
    followers = follow_on(registration, a, b)
    with new_browser() as browser:
        deliver_callback(b, idp_redirect(registration.login_url, email, browser=browser), browser)  # token, realm on B
    realm_path = realm_of(registration, a)
    with backend(a) as integration:
        assert integration.mark_initialized(realm_path).get("devices_notified") == 1  # data_ready on A
    for follower in followers:
        assert_onboarding_events(follower.result())


def test_events_stored_while_an_instance_restarts_reach_its_readers_once_it_is_back(own_cluster: Cluster) -> None:
    a, b, _ = own_cluster.instances
    email = unique_email("restart")
    registration = a.register(email, DEVICE)
    on_a = follow_on(registration, a)
    assert b.stop() == 0
    with new_browser() as browser:
        deliver_callback(a, idp_redirect(registration.login_url, email, browser=browser), browser)  # on A, B down
    b.launch(new_key=False)
    b.wait_ready()
    on_b = follow_on(registration, b)
    realm_path = realm_of(registration, b)
    with backend(b) as integration:
        assert integration.mark_initialized(realm_path).get("devices_notified") == 1  # data_ready on B
    for follower in on_a + on_b:
        assert_onboarding_events(follower.result())


# --------------------------------------------------------------------------- the feed under load

CROWD = 200


class FeedReader:
    """A backend following the feed from `cursor` with long-polls, alternating instances."""

    def __init__(self, clients: list[IntegrationClient], cursor: str, expected: int, seconds: float) -> None:
        self.clients = clients
        self.cursor = cursor
        self.expected = expected
        self.deadline = time.monotonic() + seconds
        self.entries: list[dict[str, Any]] = []
        self.requests = 0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while len(self.entries) < self.expected and time.monotonic() < self.deadline:
                client = self.clients[self.requests % len(self.clients)]
                page = client.feed(self.cursor, wait=2, limit=50)
                self.requests += 1
                self.entries += page["realms"]
                self.cursor = page["cursor"]
        except BaseException as error:  # pytest.fail raises a BaseException
            self.error = error

    def join(self) -> None:
        self._thread.join(max(0.0, self.deadline - time.monotonic()) + HTTP_TIMEOUT)
        assert not self._thread.is_alive(), "the feed reader did not finish"
        if self.error is not None:
            raise self.error


async def _register_all(urls: list[str], emails: list[str]) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=len(emails), max_keepalive_connections=len(emails))
    async with httpx.AsyncClient(trust_env=False, timeout=HTTP_TIMEOUT * 3, limits=limits) as client:
        return await asyncio.gather(*(
            client.post(f"{url}/register_device", json={"email": email, "device": DEVICE})
            for url, email in zip(urls, emails)
        ))


def test_200_registrations_on_three_instances_reach_the_feed_once_each(cluster: Cluster) -> None:
    emails = [unique_email("crowd") for _ in range(CROWD)]
    urls = [cluster[index % 3].url for index in range(CROWD)]
    clients = [backend(instance) for instance in cluster.instances]
    try:
        _, start = clients[0].drain()
        reader = FeedReader(clients, start, CROWD, seconds=25)
        responses = asyncio.run(_register_all(urls, emails))
        reader.join()
        # Nothing more after what the reader saw, asked of another instance.
        extra, _ = clients[(reader.requests + 1) % 3].drain(reader.cursor)
    finally:
        for client in clients:
            client.close()

    failed = [describe(response) for response in responses if response.status_code != 201]
    assert not failed, f"{len(failed)} of {CROWD} registrations failed, e.g. {failed[:3]}"
    seen = [entry["email"] for entry in reader.entries]
    paths = [entry["realm_path"] for entry in reader.entries]
    assert len(seen) == len(set(seen)) and len(paths) == len(set(paths)), "the feed repeated realms"
    missing = set(emails) - set(seen)
    assert not missing, f"the reader missed {len(missing)} realms (a gap in the feed), e.g. {sorted(missing)[:3]}"
    assert sorted(seen) == sorted(emails), f"not exactly the {CROWD} new people: {len(seen)} entries"
    assert all(entry["initialized"] is False for entry in reader.entries), reader.entries[:3]
    assert extra == [], f"the feed went on after the {CROWD}: {extra[:3]}"
    assert reader.requests >= 3, f"the reader used {reader.requests} requests, not every instance"


# --------------------------------------------------------------------------- push latency

SAMPLES = 60
LATENCY_LIMIT = 0.100


def pending_login(instance: FieldpassServer, browser: httpx.Client) -> tuple[Registration, str]:
    """A session registered on `instance`, confirmed in `browser`; its state, which the IdP
    would send back to that browser."""
    registration = instance.register(unique_email("latency"), DEVICE)
    return registration, login_params(authorize_url(registration.login_url, browser))["state"]


def test_an_event_stored_on_a_reaches_a_socket_on_b_within_100_ms(cluster: Cluster, tmp_path: Path) -> None:
    a, b, _ = cluster.instances
    latencies: list[float] = []  # from the callback's answer on A to the frame on B
    round_trips: list[float] = []  # from sending the callback to A to the frame on B
    with ExitStack() as stack:
        # Each person in a browser of their own: a binding cookie is per browser.
        browsers = [stack.enter_context(new_browser()) for _ in range(SAMPLES)]
        sessions = [pending_login(a, browser) for browser in browsers]
        sockets = [stack.enter_context(ws_connect(on(b, registration.websocket_url))) for registration, _ in sessions]
        time.sleep(0.5)  # every socket subscribed: what follows is a push, not a read at connect
        for (registration, state), ws, browser in zip(sessions, sockets, browsers):
            sent = time.perf_counter()
            response = browser.get(f"{a.url}/auth_callback", params={"error": "access_denied", "state": state})
            returned = time.perf_counter()
            frame = receive(ws, 1)[0]
            arrived = time.perf_counter()
            latencies.append(arrived - returned)
            round_trips.append(arrived - sent)
            assert response.status_code in {200, *range(400, 500)} and is_html(response), describe(response)
            assert frame.get("type") == "login_failed" and frame.get("seq") == 1, frame
            assert frame.get("error") == "access_denied", frame
            rest = receive_until_close(ws, timeout=5)
            assert rest.events == [] and rest.closed, f"{registration.session_id}: {rest}"

    def ms(samples: list[float]) -> str:
        return (
            f"p50 {percentile(samples, 0.50) * 1000:.1f} ms, p99 {percentile(samples, 0.99) * 1000:.1f} ms, "
            f"max {max(samples) * 1000:.1f} ms"
        )

    report = (
        f"cross-instance push (stored via A, socket on B), {len(latencies)} samples: "
        f"from A's answer to the frame {ms(latencies)}; from sending to A {ms(round_trips)}"
    )
    (tmp_path / "latency.txt").write_text(
        report + "\n" + "after answer ms, after send ms\n"
        + "".join(f"{late * 1000:.2f}, {trip * 1000:.2f}\n" for late, trip in zip(latencies, round_trips))
    )
    print(f"\n{report} (samples in {tmp_path / 'latency.txt'})")
    assert len(latencies) >= 50
    assert percentile(latencies, 0.99) < LATENCY_LIMIT, report


# --------------------------------------------------------------------------- revocations everywhere

# README, "Several instances on PostgreSQL": the longest a revocation may go unnoticed by
# another instance; the margin covers this test's polling and its requests.
STALENESS = 1.0
MARGIN = 0.5


def me_status(instance: FieldpassServer, token: str) -> int:
    return instance.api("GET", "/me", token=token).status_code


def active_on(instance: FieldpassServer, token: str) -> bool:
    """Whether `instance` itself (not the shared address) introspects `token` as active."""
    with http_client() as client:
        response = client.post(
            f"{instance.url}/introspect", data={"token": token}, auth=(DEV_BACKEND.id, DEV_BACKEND.secret)
        )
    return assert_json(response)["active"] is True


def revoke_on(instance: FieldpassServer, token: str) -> None:
    with http_client() as client:
        response = client.post(f"{instance.url}/revoke", data={"token": token})
    assert response.status_code == 200, describe(response)


def call_on(instance: FieldpassServer, token: str, method: str, path: str) -> dict[str, Any]:
    return assert_json(instance.api(method, path, token=token))


def seconds_until(condition: Callable[[], bool], what: str, limit: float = STALENESS + MARGIN) -> float:
    """Polls `condition` until it holds; how long that took, or a failure after `limit`."""
    started = time.monotonic()
    while not condition():
        elapsed = time.monotonic() - started
        if elapsed > limit:
            pytest.fail(f"{what}: still not so {elapsed:.2f} s later (allowed {STALENESS} s + {MARGIN} s margin)")
        time.sleep(0.01)
    return time.monotonic() - started


@pytest.mark.parametrize("revoked", ["refresh_token", "access_token"])
def test_a_revocation_through_a_refuses_the_token_on_b_within_a_second(cluster: Cluster, revoked: str) -> None:
    a, b, _ = cluster.instances
    device = sign_in(a, unique_email("revoked"))
    # B has checked this person's token before: what follows is its memory being told.
    assert me_status(b, device.access_token) == 200 and active_on(b, device.access_token)

    revoke_on(a, device.token_event[revoked])
    assert me_status(a, device.access_token) == 401, "the instance that revoked must refuse at once"
    took = seconds_until(lambda: me_status(b, device.access_token) == 401, "B still accepts the revoked token")
    assert not active_on(b, device.access_token)
    print(f"\n{revoked} revoked through A: refused by B after {took * 1000:.0f} ms")


def test_disabling_through_a_refuses_on_b_and_enabling_lets_the_person_back(cluster: Cluster) -> None:
    a, b, c = cluster.instances
    admin = sign_in(a, ADMIN_EMAIL)
    person = sign_in(a, unique_email("disabled"))
    assert me_status(b, person.access_token) == 200

    call_on(a, admin.access_token, "POST", f"/admin/users/{person.user_id}/disable")
    seconds_until(lambda: me_status(b, person.access_token) == 401, "B still accepts a disabled person")
    assert me_status(c, person.access_token) == 401

    # Enabled again, the person signs in anew (disabling revoked their devices); B, which
    # refused them while disabled, must accept them now.
    call_on(c, admin.access_token, "POST", f"/admin/users/{person.user_id}/enable")
    again = sign_in(a, person.email)
    seconds_until(lambda: me_status(b, again.access_token) == 200, "B still takes the person for disabled")


class ListenerKiller:
    """Terminates every instance's LISTEN connection to `database`, again and again, as a lost
    connection would; counts the connections it ended."""

    def __init__(self, database: PostgresDatabase) -> None:
        self.database = database
        self.terminated = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ListenerKiller:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        script = str(REPO_ROOT / "scripts" / "postgres-end-listeners")
        while not self._stop.is_set():
            ended = self.database.run_client(script, self.database.url, self.database.name)
            self.terminated += int(ended.stdout.strip() or 0)
            time.sleep(0.02)


def test_revocations_count_while_the_listen_connections_keep_being_lost(cluster: Cluster) -> None:
    a, b, _ = cluster.instances
    devices = [sign_in(a, unique_email("unheard")) for _ in range(2)]
    for device in devices:
        assert me_status(b, device.access_token) == 200

    with ListenerKiller(cluster.database) as killer:
        seconds_until(lambda: killer.terminated >= 3, "no LISTEN connection was found to end", limit=10)
        revoke_on(a, devices[0].refresh_token)
        seconds_until(lambda: me_status(b, devices[0].access_token) == 401, "B missed a revocation without LISTEN")
        assert me_status(b, devices[1].access_token) == 200, "B refuses a token nobody revoked"

    # Listening again, B hears of the next revocation as before.
    revoke_on(a, devices[1].access_token)
    seconds_until(lambda: me_status(b, devices[1].access_token) == 401, "B missed a revocation after LISTEN came back")


# --------------------------------------------------------------------------- an instance dies


def test_killed_instance_loses_no_event(own_cluster: Cluster) -> None:
    a, b, c = own_cluster.instances
    done_email, pending_email = unique_email("killed-after"), unique_email("killed-before")
    # The person still signing in keeps one browser from the IdP to the callback on B.
    with new_browser() as pending_browser:
        done = a.register(done_email, DEVICE)
        pending = a.register(pending_email, DEVICE)
        with ExitStack() as stack:  # both sockets on A
            done_ws = stack.enter_context(ws_connect(done.websocket_url))
            pending_ws = stack.enter_context(ws_connect(pending.websocket_url))
            _, realm_event = login_and_receive_token(done_ws, done, done_email)
            last_seq = realm_event["seq"]
            # The second person is back from the IdP, but the redirect has not reached us yet.
            location = idp_redirect(pending.login_url, pending_email, browser=pending_browser)

            a.kill()
            for ws in (done_ws, pending_ws):
                dropped = receive_until_close(ws, timeout=5)
                assert dropped.closed and dropped.events == [], dropped

        # The device that had signed in comes back on B and takes only what follows seq N.
        with ws_connect(f"{on(b, done.websocket_url)}&after={last_seq}") as ws, backend(c) as integration:
            assert integration.mark_initialized(realm_event["realm_path"]).get("initialized") is True
            rest = receive_until_close(ws)
        assert_onboarding_events(rest.events, first_seq=last_seq + 1)
        assert rest.closed and rest.close_code == 1000, rest

        # The other completes its sign-in on B.
        deliver_callback(b, location, pending_browser)
        with ws_connect(on(b, pending.websocket_url)) as ws, backend(c) as integration:
            signed_in = receive(ws, 2)
            integration.mark_initialized(signed_in[1].get("realm_path"))
            rest = receive_until_close(ws)
        assert_onboarding_events(signed_in + rest.events)
        claims = b.verify_access_token(signed_in[0]["access_token"])
        assert claims["email"] == pending_email, claims


# --------------------------------------------------------------------------- PostgreSQL restarts


def wait_for_registration(server: FieldpassServer, seconds: float) -> float:
    """Register until one answers 201; returns how long that took."""
    started = time.monotonic()
    last = None
    while time.monotonic() - started < seconds:
        last = server.post_register({"email": unique_email("recovery"), "device": DEVICE})
        if last.status_code == 201:
            return time.monotonic() - started
        time.sleep(0.25)
    pytest.fail(f"registration did not work again within {seconds} s: {describe(last) if last else 'no answer'}")


def test_server_rides_out_a_postgres_restart(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    own = OwnPostgres(free_port())
    own.start()
    server = None
    try:
        database = own.server(timeout=2).create(track=False)
        server = server_in(tmp_path / "server", fieldpass_bin, idp, server_env(None, None), database=database)
        server.start()
        pid = server.process.proc.pid
        assert server.post_register({"email": unique_email(), "device": DEVICE}).status_code == 201

        own.stop()
        started = time.monotonic()
        refused = server.post_register({"email": unique_email(), "device": DEVICE})
        elapsed = time.monotonic() - started
        assert_api_error(refused, 503, "store_unavailable")
        assert elapsed < 5, f"503 came after {elapsed:.1f} s with storage.postgres.timeout 2"
        health = server.get("/healthz")
        assert health.status_code == 200, describe(health)
        ready = server.get("/readyz")
        assert ready.status_code == 503 and ready.json().get("status") == "unavailable", describe(ready)

        own.start()
        recovered = wait_for_registration(server, 15)
        ready = server.get("/readyz")
        assert ready.status_code == 200 and ready.json().get("status") == "ready", describe(ready)
        # Every statement is prepared per connection: the new connections prepare them again,
        # and once the store is back no request fails.
        for _ in range(20):
            again = server.post_register({"email": unique_email("after-restart"), "device": DEVICE})
            assert again.status_code == 201, describe(again)
        onboard_to_data_ready(server, unique_email("after-restart"))
        assert server.process.alive() and server.process.proc.pid == pid, "the server was restarted"
        print(f"\nstore_unavailable after {elapsed:.2f} s; registration worked again {recovered:.2f} s after restart")
    finally:
        if server is not None:
            server.stop()
        own.destroy()
