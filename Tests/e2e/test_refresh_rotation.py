"""The refresh token's life: rotation, the reuse grace (including concurrent refreshes),
reuse after the grace, and the absolute lifetime.

Refresh-token expiries are read through introspection (`exp`, unix seconds). Servers with a non-default token configuration are started per module through the
environment (TOKENS_*).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from helpers import (
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    MockIdP,
    assert_json,
    cli_devices,
    http_client,
    sign_in,
    start_server,
)
from oauth_flows import assert_active, assert_me_refused, assert_me_works, assert_refresh_refused, refreshed

GRACE = 10
MAX_LIFETIME = 3600
CONCURRENT_REFRESHES = 20


# --------------------------------------------------------------------------- servers


def _own_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory, name: str, extra_env: dict[str, str]
) -> Iterator[FieldpassServer]:
    """A server with both environments (and their service accounts) and `extra_env`."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp(name), extra_env, environments=DIRECTORY_ENVIRONMENTS
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def grace_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """Refresh tokens may be retried for GRACE seconds after their rotation."""
    yield from _own_server(fieldpass_bin, idp, tmp_path_factory, "server-grace", {"TOKENS_REFRESH_REUSE_GRACE": str(GRACE)})


@pytest.fixture(scope="module")
def longest_grace_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """The longest grace (300 s): a retry made after two sign-ins is still within it."""
    yield from _own_server(fieldpass_bin, idp, tmp_path_factory, "server-longest-grace", {"TOKENS_REFRESH_REUSE_GRACE": "300"})


@pytest.fixture(scope="module")
def short_grace_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """A grace of one second, short enough to wait out."""
    yield from _own_server(fieldpass_bin, idp, tmp_path_factory, "server-short-grace", {"TOKENS_REFRESH_REUSE_GRACE": "1"})


@pytest.fixture(scope="module")
def lifetime_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """Refresh tokens live at most MAX_LIFETIME seconds after the sign-in (the shortest allowed)."""
    yield from _own_server(
        fieldpass_bin, idp, tmp_path_factory, "server-lifetime", {"TOKENS_REFRESH_TOKEN_MAX_LIFETIME": str(MAX_LIFETIME)}
    )



# --------------------------------------------------------------------------- reuse grace


def test_retry_within_the_grace_returns_the_same_successor(grace_server: FieldpassServer, email: str) -> None:
    server = grace_server
    device = sign_in(server, email)

    first = refreshed(server, device.refresh_token)
    retry = refreshed(server, device.refresh_token)

    assert retry["refresh_token"] == first["refresh_token"], (first, retry)
    retry_claims = server.verify_access_token(retry["access_token"])
    assert retry_claims["sub"] == device.user_id and retry_claims["device_id"] == device.claims["device_id"], retry_claims
    assert retry_claims["jti"] != server.verify_access_token(first["access_token"])["jti"], "no fresh access token"
    assert_me_works(server, retry["access_token"])
    # The successor rotates as usual, and its own successor works too.
    second = refreshed(server, first["refresh_token"])
    assert second["refresh_token"] not in (device.refresh_token, first["refresh_token"]), second
    third = refreshed(server, second["refresh_token"])
    assert third["refresh_token"] != second["refresh_token"], third


def test_a_grace_retry_after_a_new_sign_in_of_the_installation_is_refused(
    longest_grace_server: FieldpassServer, email: str,
) -> None:
    server = longest_grace_server
    installed = {"name": "iPhone", "platform": "ios", "install_id": uuid.uuid4().hex}
    first = sign_in(server, email, installed)
    rotated = refreshed(server, first.refresh_token)
    # The same installation signs in anew: the first sign-in's tokens, used or not, end.
    second = sign_in(server, email, installed)
    assert second.claims["device_id"] == first.claims["device_id"], (first.claims, second.claims)

    assert_refresh_refused(server, first.refresh_token)
    assert_refresh_refused(server, rotated["refresh_token"])
    # Refused as ended, not taken for a stolen copy: the new sign-in's token still works.
    assert cli_devices(server, email)[second.claims["device_id"]] == "active"
    assert_me_works(server, refreshed(server, second.refresh_token)["access_token"])


def _refresh_at_once(server: FieldpassServer, refresh_token: str, count: int) -> list[httpx.Response]:
    """`count` refreshes with one token, each from its own client, released together."""
    barrier = threading.Barrier(count, timeout=10)

    def one() -> httpx.Response:
        with http_client() as client:
            barrier.wait()
            return client.post(
                f"{server.public_url}/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token}
            )

    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(one) for _ in range(count)]
        return [future.result(timeout=30) for future in futures]


def test_concurrent_refreshes_within_the_grace_share_one_successor(grace_server: FieldpassServer, email: str) -> None:
    server = grace_server
    device = sign_in(server, email)

    responses = _refresh_at_once(server, device.refresh_token, CONCURRENT_REFRESHES)

    bodies = [assert_json(response) for response in responses]
    successors = {body["refresh_token"] for body in bodies}
    assert len(successors) == 1, f"{len(successors)} different successors: {successors}"
    (successor,) = successors
    assert successor != device.refresh_token
    for body in bodies:
        assert server.verify_access_token(body["access_token"])["device_id"] == device.claims["device_id"], body
    refreshed(server, successor)


@pytest.mark.parametrize(
    ("server_fixture", "wait"),
    [pytest.param("server", 0.0, id="grace-0"), pytest.param("short_grace_server", 2.0, id="grace-1-waited-2s")],
)
def test_reuse_after_the_grace_is_refused_and_burns_the_successor(
    request: pytest.FixtureRequest, server_fixture: str, wait: float, email: str
) -> None:
    server: FieldpassServer = request.getfixturevalue(server_fixture)
    device = sign_in(server, email)
    successor = refreshed(server, device.refresh_token)
    time.sleep(wait)

    assert_refresh_refused(server, device.refresh_token)

    assert_refresh_refused(server, successor["refresh_token"])


def test_reuse_after_the_grace_revokes_the_device(server: FieldpassServer, email: str) -> None:
    device = sign_in(server, email)
    successor = refreshed(server, device.refresh_token)
    assert_me_works(server, successor["access_token"])

    assert_refresh_refused(server, device.refresh_token)

    assert cli_devices(server, email)[device.claims["device_id"]] == "revoked", "the device was not revoked"
    assert_me_refused(server, successor["access_token"])


# --------------------------------------------------------------------------- absolute lifetime


def test_rotation_never_extends_the_absolute_lifetime(lifetime_server: FieldpassServer, email: str) -> None:
    """Refresh tokens would live 30 days; each one's expiry, as introspection tells it, is
    the limit counted from the sign-in."""
    server = lifetime_server
    started = time.time()
    device = sign_in(server, email)
    signed_in = time.time()
    limit = assert_active(server, device.refresh_token)["exp"]
    assert started - 1 <= limit - MAX_LIFETIME <= signed_in + 1, (started, limit, signed_in)

    time.sleep(1.1)  # a limit counted from the rotation would now move by a second
    token = refreshed(server, device.refresh_token)["refresh_token"]
    rotated = [assert_active(server, token)["exp"]]
    token = refreshed(server, token)["refresh_token"]
    rotated.append(assert_active(server, token)["exp"])
    assert all(limit - 1 <= exp <= limit for exp in rotated), f"rotation moved the limit {limit}: {rotated}"
