"""Rate limits and the long-poll cap (`limits.*`, `server.trusted_proxies`).

Each limited route answers 429 with `Retry-After` and the JSON error `rate_limited` once a
client address has used its burst, and a refused request stores nothing. `X-Forwarded-For`
picks the bucket only when the peer is a trusted proxy; an IPv6 client counts by its
`limits.ipv6_prefix` network. Wrong client secrets are limited per client id
(`client_authentication`), from however many addresses. The integration feed lets
`limits.integration_long_polls` long-polls wait at once, each environment its fair share,
and answers the next 503 `server_busy`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    OTHER_BACKEND,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    browser_login,
    cli_users,
    describe,
    feed_realms,
    http_client,
    registrations,
    start_server,
    sign_in,
    unique_email,
)

from scim_flows import DEV_TOKEN, SCIM_ENVIRONMENTS

BURST = 3
# One token a minute: nothing refills while a test runs.
SLOW = {"per_minute": 1, "burst": BURST}
# Another loopback address than the tests' own: a client with buckets of its own.
ANOTHER_ADDRESS = "127.0.0.2"
LIMITED = ("register_device", "confirmation", "auth_callback", "events", "token", "revoke", "introspect")


def start(
    workdir: Path, fieldpass_bin: Path, idp: MockIdP, limits: dict[str, Any], extra: dict[str, str] | None = None,
    host: str = "127.0.0.1",
) -> FieldpassServer:
    return start_server(fieldpass_bin, idp, workdir, extra, environments=DIRECTORY_ENVIRONMENTS, limits=limits, host=host)


@pytest.fixture
def limited(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> Iterator[FieldpassServer]:
    """Every per-address limit at BURST; the per-email limit out of the way."""
    limits: dict[str, Any] = {name: SLOW for name in LIMITED}
    limits["register_device_email"] = {"per_minute": 1000, "burst": 1000}
    server = start(tmp_path, fieldpass_bin, idp, limits)
    try:
        yield server
    finally:
        server.stop()


def assert_rate_limited(response: httpx.Response, *, what: str) -> None:
    assert response.status_code == 429, describe(response)
    assert response.headers["content-type"].startswith("application/json"), describe(response)
    body = response.json()
    assert body["error"] == "rate_limited", body
    assert what in body["error_description"], body
    retry_after = int(response.headers["retry-after"])
    # One token a minute: the next is up to 60 s away.
    assert 1 <= retry_after <= 60, retry_after


def burst(send: Callable[[], httpx.Response], count: int) -> list[httpx.Response]:
    return [send() for _ in range(count)]


def test_register_device_burst_is_refused_and_stores_nothing(limited: FieldpassServer) -> None:
    before = registrations(limited)
    emails = [unique_email("burst") for _ in range(BURST + 2)]
    responses = [limited.post_register({"email": email}) for email in emails]
    assert [r.status_code for r in responses] == [201] * BURST + [429, 429], [describe(r) for r in responses]
    assert_rate_limited(responses[-1], what="from this address")
    assert registrations(limited) - before == BURST
    users = {line.split()[2] for line in cli_users(limited)}
    realms = {realm["email"] for realm in feed_realms(limited, DEV_BACKEND).values()}
    assert set(emails[:BURST]) <= users & realms, (users, realms)
    left = set(emails[BURST:]) & (users | realms)
    assert not left, f"a refused registration left {left} behind"


@pytest.mark.parametrize(
    ("name", "method", "path"),
    [
        ("confirmation", "GET", "/login/not-a-login-id"),
        ("auth_callback", "GET", "/auth_callback?state=forged&code=forged"),
        # Someone guessing session ids.
        ("events", "GET", "/events?session_id=" + "A" * 43),
        ("token", "POST", "/token"),
        ("revoke", "POST", "/revoke"),
        ("introspect", "POST", "/introspect"),
    ],
)
def test_each_limited_route_answers_429_after_its_burst(limited: FieldpassServer, name: str, method: str, path: str) -> None:
    with http_client() as client:
        responses = burst(lambda: client.request(method, f"{limited.url}{path}", data={"token": "x"}), BURST + 1)
    assert all(r.status_code != 429 for r in responses[:BURST]), [describe(r) for r in responses]
    assert_rate_limited(responses[BURST], what="from this address")


def test_a_refused_refresh_rotates_nothing(limited: FieldpassServer) -> None:
    device = sign_in(limited, unique_email("refresh"))
    with http_client() as client:
        for _ in range(BURST):
            assert client.post(f"{limited.url}/token", data={"grant_type": "nope"}).status_code == 400
        refused = client.post(
            f"{limited.url}/token", data={"grant_type": "refresh_token", "refresh_token": device.refresh_token}
        )
    assert_rate_limited(refused, what="from this address")
    # Presented again from another address (another bucket), the token is still the device's
    # latest: had the refused refresh rotated it, this reuse would revoke the device.
    with http_client(transport=httpx.HTTPTransport(local_address=ANOTHER_ADDRESS)) as elsewhere:
        rotated = elsewhere.post(
            f"{limited.url}/token", data={"grant_type": "refresh_token", "refresh_token": device.refresh_token}
        )
    assert rotated.status_code == 200, describe(rotated)


def test_a_burst_from_one_email_is_refused(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, {"register_device_email": {"per_minute": 1, "burst": 2}})
    try:
        email = unique_email("flood")
        responses = [server.post_register({"email": email}) for _ in range(3)]
        assert [r.status_code for r in responses] == [201, 201, 429], [describe(r) for r in responses]
        assert_rate_limited(responses[2], what="for this email")
        # The email's case does not make another bucket.
        assert_rate_limited(server.post_register({"email": email.upper()}), what="for this email")
        assert registrations(server) == 2
        assert server.post_register({"email": unique_email("other")}).status_code == 201
    finally:
        server.stop()


def test_forwarded_for_counts_only_from_a_trusted_proxy(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    limits = {"revoke": SLOW}
    trusting = start(tmp_path / "trusting", fieldpass_bin, idp, limits, {"SERVER_TRUSTED_PROXIES": "127.0.0.0/8"})
    try:
        with http_client() as client:
            def revoke(client_address: str) -> int:
                headers = {"x-forwarded-for": f"203.0.113.99, {client_address}"}
                return client.post(f"{trusting.url}/revoke", data={"token": "x"}, headers=headers).status_code
            assert [revoke("198.51.100.1") for _ in range(BURST + 1)][-1] == 429
            # Another client behind the same proxy has its own bucket; the spoofed left entry is ignored.
            assert revoke("198.51.100.2") != 429
    finally:
        trusting.stop()
    untrusting = start(tmp_path / "untrusting", fieldpass_bin, idp, limits)
    try:
        with http_client() as client:
            statuses = [
                client.post(f"{untrusting.url}/revoke", data={"token": "x"}, headers={"x-forwarded-for": f"198.51.100.{i}"}).status_code
                for i in range(BURST + 1)
            ]
        assert statuses[-1] == 429, "a client picked its own bucket by sending X-Forwarded-For"
    finally:
        untrusting.stop()


def forwarded_revokes(server: FieldpassServer) -> Callable[[str], int]:
    """`POST /revoke` as relayed by a trusted proxy for `client_address`: its status."""
    def revoke(client_address: str) -> int:
        with http_client() as client:
            headers = {"x-forwarded-for": client_address}
            return client.post(f"{server.url}/revoke", data={"token": "x"}, headers=headers).status_code
    return revoke


def test_ipv6_clients_count_by_their_64_network(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, {"revoke": SLOW}, {"SERVER_TRUSTED_PROXIES": "::1"}, host="::1")
    try:
        revoke = forwarded_revokes(server)
        # Another address for each request, all in one /64: one bucket.
        one_host = [f"2001:db8:aa:bb:{i:x}::{i + 1:x}" for i in range(BURST + 1)]
        statuses = [revoke(address) for address in one_host]
        assert statuses[:BURST] == [200] * BURST and statuses[BURST] == 429, statuses
        assert revoke("2001:DB8:AA:BB:FFFF:FFFF:FFFF:FFFF") == 429, "the same /64 written otherwise"
        assert revoke("2001:db8:aa:bc::1") == 200, "the next /64 is another client"
        # An IPv4-mapped address is its IPv4 address.
        assert [revoke("198.51.100.7") for _ in range(BURST)] == [200] * BURST
        assert revoke("::ffff:198.51.100.7") == 429
        assert revoke("::ffff:198.51.100.8") == 200
        # The peer itself, an IPv6 address without a proxy in front, is limited too.
        with http_client() as client:
            direct = [client.post(f"{server.url}/revoke", data={"token": "x"}).status_code for _ in range(BURST + 1)]
        assert direct[-1] == 429, direct
    finally:
        server.stop()


def test_limits_ipv6_prefix_sets_the_network(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    limits = {"revoke": SLOW, "ipv6_prefix": 128}
    server = start(tmp_path, fieldpass_bin, idp, limits, {"SERVER_TRUSTED_PROXIES": "127.0.0.1"})
    try:
        revoke = forwarded_revokes(server)
        assert [revoke("2001:db8:aa:bb::1") for _ in range(BURST + 1)][-1] == 429
        assert revoke("2001:db8:aa:bb::2") == 200, "with /128 each address is its own client"
    finally:
        server.stop()


def test_wrong_secrets_for_one_client_id_are_limited_from_any_address(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, {"client_authentication": SLOW}, {"SERVER_TRUSTED_PROXIES": "127.0.0.1"})
    try:
        with http_client() as client:
            def authenticate(path: str, client_id: str, secret: str, address: str) -> httpx.Response:
                form = {"grant_type": "client_credentials"} if path == "/token" else {"token": "x"}
                headers = {"x-forwarded-for": address}
                return client.post(f"{server.url}{path}", data=form, auth=(client_id, secret), headers=headers)

            # The backend works from its own address before anyone starts guessing.
            home = "203.0.113.50"
            assert authenticate("/token", DEV_BACKEND.id, DEV_BACKEND.secret, home).status_code == 200
            # Each guess from another address, each endpoint: all charge the one client id.
            guesses = [
                authenticate(path, DEV_BACKEND.id, f"guess-{i}", f"198.51.100.{i + 1}")
                for i, path in enumerate(["/token", "/introspect", "/revoke"])
            ]
            assert [r.status_code for r in guesses] == [401] * BURST, [describe(r) for r in guesses]
            refused = authenticate("/token", DEV_BACKEND.id, "guess-4", "198.51.100.4")
            assert_rate_limited(refused, what="for this client")
            # While the bucket is empty the right secret is refused too, before it is checked...
            for path in ("/token", "/introspect"):
                assert_rate_limited(authenticate(path, DEV_BACKEND.id, DEV_BACKEND.secret, "203.0.113.1"), what="for this client")
            # ...except from where the backend last authenticated: guessing cannot lock it out.
            assert authenticate("/token", DEV_BACKEND.id, DEV_BACKEND.secret, home).status_code == 200
            # Another client id is not affected, from the very same addresses.
            assert authenticate("/token", OTHER_BACKEND.id, OTHER_BACKEND.secret, "198.51.100.4").status_code == 200
            assert authenticate("/token", OTHER_BACKEND.id, "wrong", "198.51.100.4").status_code == 401
            # An id nobody configured never gets a bucket: it fails, but is never limited by id.
            unknown = [authenticate("/token", "no-such-client", "x", f"192.0.2.{i}").status_code for i in range(BURST + 2)]
            assert unknown == [401] * (BURST + 2), unknown
            metrics = client.get(f"{server.url}/metrics").text
        refusals = {
            sample.labels.get("limit"): sample.value
            for family in text_string_to_metric_families(metrics) for sample in family.samples
            if sample.name == "fieldpass_rate_limited_total"
        }
        assert refusals == {"client_authentication": 3}, refusals
    finally:
        server.stop()


def test_a_whole_sign_in_fits_the_default_limits(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, {"enabled": True})
    try:
        registration = server.register(unique_email("defaults"))
        browser_login(registration.login_url, registration.email)
    finally:
        server.stop()


def test_long_polls_beyond_the_cap_get_503(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    server = start(tmp_path, fieldpass_bin, idp, {"integration_long_polls": 1})
    try:
        with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as waiting, \
                IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as second:
            waiting.authenticate()
            second.authenticate()
            _, cursor = waiting.drain()
            outcome: dict[str, httpx.Response] = {}
            thread = threading.Thread(target=lambda: outcome.setdefault("first", waiting.feed_response(cursor, wait=4)))
            thread.start()
            try:
                time.sleep(1.0)  # the first long-poll is waiting by now
                refused = second.feed_response(cursor, wait=1)
            finally:
                thread.join(10)
            assert refused.status_code == 503, describe(refused)
            assert refused.json()["error"] == "server_busy", describe(refused)
            assert refused.headers["retry-after"] == "1"
            assert outcome["first"].status_code == 200, describe(outcome["first"])
            # A request without wait never waits, so the cap does not apply to it.
            assert second.feed_response(cursor).status_code == 200
            assert second.feed_response(cursor, wait=1).status_code == 200, "the place came free"
    finally:
        server.stop()


def test_one_environment_cannot_hold_every_long_poll(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    # Two environments with service accounts share 2 places: one each.
    server = start(tmp_path, fieldpass_bin, idp, {"integration_long_polls": 2})
    try:
        with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as dev, \
                IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as dev_again, \
                IntegrationClient(server.public_url, OTHER_BACKEND.id, OTHER_BACKEND.secret) as other:
            for client in (dev, dev_again, other):
                client.authenticate()
            _, dev_cursor = dev.drain()
            _, other_cursor = other.drain()
            outcome: dict[str, httpx.Response] = {}
            thread = threading.Thread(target=lambda: outcome.setdefault("dev", dev.feed_response(dev_cursor, wait=4)))
            thread.start()
            try:
                time.sleep(1.0)  # dev's long-poll is waiting by now, holding dev's share
                refused = dev_again.feed_response(dev_cursor, wait=1)
                served = other.feed_response(other_cursor, wait=1)
            finally:
                thread.join(10)
            assert refused.status_code == 503, describe(refused)
            assert refused.json()["error"] == "server_busy", describe(refused)
            assert served.status_code == 200, f"the other environment was shut out: {describe(served)}"
            assert outcome["dev"].status_code == 200, describe(outcome["dev"])
    finally:
        server.stop()


def test_wrong_scim_tokens_are_limited_per_address(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    """A guesser's address is cut off, right token or not; the IdP's own address goes on."""
    server = start_server(
        fieldpass_bin, idp, tmp_path, {"SERVER_TRUSTED_PROXIES": "127.0.0.1"}, environments=SCIM_ENVIRONMENTS,
        limits={"scim_authentication": SLOW},
    )
    try:
        with http_client() as client:
            def users(token: str, address: str) -> httpx.Response:
                headers = {"authorization": f"Bearer {token}", "x-forwarded-for": address}
                return client.get(f"{server.url}/scim/v2/Users", headers=headers)

            guesser, idp_address = "198.51.100.7", "203.0.113.9"
            guesses = [users(f"guess-{i}-of-sufficient-length-0123456789", guesser) for i in range(BURST)]
            assert [r.status_code for r in guesses] == [401] * BURST, [describe(r) for r in guesses]
            for token in ("guess-4-of-sufficient-length-0123456789", DEV_TOKEN):
                refused = users(token, guesser)
                assert refused.status_code == 429, describe(refused)
                assert refused.headers["content-type"].startswith("application/scim+json"), describe(refused)
                assert "wrong SCIM token from this address" in refused.json()["detail"], describe(refused)
                assert 1 <= int(refused.headers["retry-after"]) <= 60, describe(refused)
            assert users(DEV_TOKEN, idp_address).status_code == 200
    finally:
        server.stop()
