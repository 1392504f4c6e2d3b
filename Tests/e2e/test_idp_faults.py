"""An IdP that hangs, fails or crawls, seen through a fault-injecting proxy in front of the
real development IdP (helpers.faulty_idp).

The device gets a clear `login_failed` within `environments.*.idp.timeout` and nothing is
half done: no identity bound, the device not signed in, and the next sign-in works. Discovery
failures are remembered and concurrent discoveries merged, and the unknown-`kid` key
refresh has a cooldown, so a burst of requests is not a burst of IdP calls.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from helpers import (
    FieldpassServer,
    MockIdP,
    admin_cli,
    browser_login,
    cli_users,
    describe,
    is_html,
    onboarding_steps,
    receive_until_close,
    registrations,
    start_server,
    unique_email,
    ws_connect,
)
from helpers.faulty_idp import EMPTY_JWKS, ERROR_500, HANG, TRICKLE, FaultyIdP, faulty_idp
from identity_flows import idp_users, sign_in_as

TIMEOUT = 2
# The callback may take the timeout plus the time to store the failure; never the 10 s default.
WITHIN = TIMEOUT + 2.5


@pytest.fixture(scope="module")
def proxy(idp: MockIdP) -> Iterator[FaultyIdP]:
    with faulty_idp(idp) as proxy:
        yield proxy


def start_behind(proxy: FaultyIdP, workdir: Path, fieldpass_bin: Path) -> FieldpassServer:
    return start_server(fieldpass_bin, proxy.as_idp(), workdir, {"ENVIRONMENTS_DEV_IDP_TIMEOUT": str(TIMEOUT)})


@pytest.fixture(scope="module")
def server(proxy: FaultyIdP, fieldpass_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_behind(proxy, tmp_path_factory.mktemp("idp-faults"), fieldpass_bin)
    try:
        yield server
    finally:
        server.stop()


def sign_in_traces(server: FieldpassServer, email: str) -> tuple[str, int]:
    """What a completed sign-in changes: the device's `last seen` (`fieldpass admin devices`)
    and the sign-ins counted."""
    return admin_cli(server, "devices", email), onboarding_steps(server)["signed_in"]


def assert_nothing_bound(server: FieldpassServer, email: str) -> None:
    """Another IdP account with the same email may still make the first sign-in."""
    (another_subject,) = idp_users(server, email, 1)
    sign_in_as(server, email, another_subject)


@pytest.mark.parametrize(
    ("fault", "says"),
    [(HANG, f"did not answer within {TIMEOUT} s"), (TRICKLE, f"did not answer within {TIMEOUT} s"), (ERROR_500, "answered HTTP 500")],
)
def test_a_failing_token_endpoint_gives_login_failed_in_time(
    server: FieldpassServer, proxy: FaultyIdP, fault: str, says: str
) -> None:
    email = unique_email("idp-fault")
    registration = server.register(email)
    before = sign_in_traces(server, email)
    token_path = proxy.path_of("token_endpoint")
    proxy.faults[token_path] = fault
    try:
        with ws_connect(registration.websocket_url) as ws:
            started = time.monotonic()
            callback = browser_login(registration.login_url, email)
            took = time.monotonic() - started
            got = receive_until_close(ws)
    finally:
        del proxy.faults[token_path]
    assert took < WITHIN, f"the callback took {took:.1f} s with a {fault} token endpoint"
    assert is_html(callback) and callback.status_code >= 400, describe(callback)
    assert got.types == ["login_failed"] and got.closed, got
    failure = got.events[0]
    assert failure["error"] == "idp_unavailable", failure
    assert says in failure["error_description"], failure
    assert sign_in_traces(server, email) == before, "the failed sign-in stored part of a sign-in"
    # The IdP is back: the same worker signs in on a new registration, bound to no account yet.
    assert_nothing_bound(server, email)


def test_concurrent_registrations_share_one_failed_discovery(
    proxy: FaultyIdP, fieldpass_bin: Path, tmp_path: Path
) -> None:
    discovery = "/.well-known/openid-configuration"
    proxy.faults[discovery] = ERROR_500
    try:
        fresh = start_behind(proxy, tmp_path, fieldpass_bin)  # nothing cached yet
        try:
            before = proxy.count(discovery)
            with ThreadPoolExecutor(20) as pool:
                responses = list(pool.map(lambda _: fresh.post_register({"email": unique_email("burst")}), range(40)))
            assert {r.status_code for r in responses} == {503}, [describe(r) for r in responses[:3]]
            assert {r.json()["error"] for r in responses} == {"idp_unavailable"}
            assert proxy.count(discovery) - before == 1, "each registration asked the failing IdP again"
            assert registrations(fresh) == 0
            assert cli_users(fresh) == [], "a refused registration created a user"
        finally:
            fresh.stop()
    finally:
        del proxy.faults[discovery]


def test_unknown_kid_refetches_the_keys_at_most_once_per_cooldown(
    proxy: FaultyIdP, fieldpass_bin: Path, tmp_path: Path
) -> None:
    jwks = proxy.path_of("jwks_uri")
    proxy.faults[jwks] = EMPTY_JWKS  # every ID token's kid is unknown
    try:
        fresh = start_behind(proxy, tmp_path, fieldpass_bin)
        try:
            before = proxy.count(jwks)
            for _ in range(3):
                email = unique_email("kid")
                registration = fresh.register(email)
                with ws_connect(registration.websocket_url) as ws:
                    browser_login(registration.login_url, email)
                    got = receive_until_close(ws)
                assert got.types == ["login_failed"] and got.events[0]["error"] == "invalid_id_token", got
            # The first fetch, then no refresh within the 10 s cooldown: 1, not 2 a sign-in.
            assert proxy.count(jwks) - before == 1
        finally:
            fresh.stop()
    finally:
        del proxy.faults[jwks]
