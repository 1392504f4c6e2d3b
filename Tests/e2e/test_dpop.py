"""DPoP (RFC 9449): a registration proved by a key binds the sign-in's refresh token to it.

The device's key and its proofs are made here with `cryptography` and PyJWT, as an app
would. A copy of the refresh token (a thief's) is refused without that key's proof, and the
refusal costs the owner nothing: their next proven refresh works. Each proof works once,
on every instance. With `dpop.nonce`, a proof needs a nonce the server gave, and any
instance's will do; with `dpop.bind_access_tokens`, the access token counts only as
`DPoP <token>` with a proof of its hash.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from helpers import (
    DIRECTORY_ENVIRONMENTS, Browser, Cluster, FieldpassServer, MockIdP, assert_event, http_client, receive, start_cluster,
    start_server, ws_connect,
)
from helpers.dpop import DeviceKey, token_hash
from helpers.onboarding import login_and_receive_token
from oauth_flows import introspection


def bound_sign_in(server: FieldpassServer, email: str, key: DeviceKey, browser: Browser) -> dict[str, Any]:
    """Registers with `key`'s proof, signs in at the IdP in Chromium as a person would, and
    returns the token event the app hears."""
    registration = server.register(email, headers={"DPoP": key.proof("POST", f"{server.public_url}/register_device")})
    with ws_connect(registration.websocket_url) as app:
        browser.open(registration.login_url)
        browser.press("Continue to sign in")
        browser.sign_in_at_idp(email)
        assert browser.heading == "Signed in", browser.describe()
        token_event, realm_event = receive(app, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    return token_event


def refresh(server: FieldpassServer, refresh_token: str, proof: str | None = None) -> httpx.Response:
    headers = {"DPoP": proof} if proof else {}
    with http_client() as client:
        return client.post(
            f"{server.url}/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token}, headers=headers
        )


def assert_dpop_refused(response: httpx.Response) -> None:
    assert response.status_code == 400, (response.status_code, response.text)
    assert response.json()["error"] == "invalid_dpop_proof", response.text


def test_discovery_lists_the_proof_algorithms(server: FieldpassServer) -> None:
    metadata = server.get("/.well-known/oauth-authorization-server").json()
    assert metadata["dpop_signing_alg_values_supported"] == ["ES256", "RS256"]


def test_a_stolen_refresh_token_is_refused_without_the_key_and_the_owner_keeps_refreshing(
    directory_server: FieldpassServer, browser: Browser,
) -> None:
    server = directory_server
    key = DeviceKey()
    token_event = bound_sign_in(server, "dpop-owner@example.com", key, browser)
    token_url = f"{server.public_url}/token"
    stolen = token_event["refresh_token"]
    assert introspection(server, stolen)["cnf"] == {"jkt": key.thumbprint}

    # The thief: no proof, then a proof by a key of their own.
    assert_dpop_refused(refresh(server, stolen))
    assert_dpop_refused(refresh(server, stolen, DeviceKey().proof("POST", token_url)))
    # A proof of the right key for another URL, or too old.
    assert_dpop_refused(refresh(server, stolen, key.proof("POST", f"{server.public_url}/revoke")))
    assert_dpop_refused(refresh(server, stolen, key.proof("POST", token_url, iat=int(time.time()) - 600)))
    # Nor may the thief sign the owner out with the copy.
    with http_client() as client:
        assert_dpop_refused(client.post(f"{server.url}/revoke", data={"token": stolen}))

    # The owner's refresh, proven, still works: nothing the thief did revoked or rotated it.
    proof = key.proof("POST", token_url)
    owner = refresh(server, stolen, proof)
    assert owner.status_code == 200, owner.text
    successor = owner.json()["refresh_token"]
    assert introspection(server, successor)["cnf"] == {"jkt": key.thumbprint}
    # The same proof again is a replay, whatever token it comes with.
    assert_dpop_refused(refresh(server, successor, proof))
    assert_dpop_refused(refresh(server, successor))
    again = refresh(server, successor, key.proof("POST", token_url))
    assert again.status_code == 200, again.text


def test_a_registration_with_a_broken_proof_is_refused(server: FieldpassServer) -> None:
    key = DeviceKey()
    url = f"{server.public_url}/register_device"
    body = {"email": "dpop-broken@example.com", "device": {"name": "Pixel 8", "platform": "android"}}
    unsigned = jwt.encode({"htm": "POST", "htu": url, "iat": int(time.time()), "jti": "x"}, None, algorithm="none",
                          headers={"typ": "dpop+jwt", "jwk": key.jwk})
    for proof in (unsigned, key.proof("GET", url), key.proof("POST", "https://elsewhere.example/register_device"), "not-a-jwt"):
        assert_dpop_refused(server.post_register(body, headers={"DPoP": proof}))


@pytest.fixture(scope="module")
def required_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """The `dev` environment says `dpop: required`."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-dpop-required"), {"ENVIRONMENTS_DEV_DPOP": "required"},
        environments=DIRECTORY_ENVIRONMENTS,
    )
    try:
        yield server
    finally:
        server.stop()


def test_dpop_required_refuses_a_plain_registration(required_server: FieldpassServer, browser: Browser) -> None:
    body = {"email": "dpop-plain@example.com", "device": {"name": "Pixel 8", "platform": "android"}}
    assert_dpop_refused(required_server.post_register(body))
    # Nothing was stored: the person a registration creates does not exist.
    devices = required_server.cli(
        "admin", "devices", "dpop-plain@example.com", "--env", "dev", "--config", str(required_server.config_path))
    assert devices.returncode == 1 and "no user dpop-plain@example.com " in devices.stderr, devices.stderr
    key = DeviceKey()
    token_event = bound_sign_in(required_server, "dpop-required@example.com", key, browser)
    assert introspection(required_server, token_event["refresh_token"])["cnf"] == {"jkt": key.thumbprint}


@pytest.fixture(scope="module")
def nonce_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """`dpop.nonce: true` and `dpop.bind_access_tokens: true`."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-dpop-nonce"),
        {"DPOP_NONCE": "true", "DPOP_BIND_ACCESS_TOKENS": "true"}, environments=DIRECTORY_ENVIRONMENTS,
    )
    try:
        yield server
    finally:
        server.stop()


def assert_nonce_wanted(response: httpx.Response, status: int = 400) -> str:
    """The answer asks for a nonce and gives one."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.json()["error"] == "use_dpop_nonce", response.text
    return fresh_nonce(response)


def fresh_nonce(response: httpx.Response) -> str:
    nonce = response.headers.get("DPoP-Nonce")
    assert nonce, f"no DPoP-Nonce in {dict(response.headers)}"
    return nonce


def me(server: FieldpassServer, authorization: str, proof: str | None = None) -> httpx.Response:
    headers = {"Authorization": authorization, **({"DPoP": proof} if proof else {})}
    with http_client() as client:
        return client.get(f"{server.url}/me", headers=headers)


def test_with_nonces_a_proof_is_answered_use_dpop_nonce_and_the_retry_with_the_nonce_succeeds(
    nonce_server: FieldpassServer,
) -> None:
    server = nonce_server
    key = DeviceKey()
    url = f"{server.public_url}/register_device"
    body = {"email": "dpop-nonce@example.com", "device": {"name": "Pixel 8", "platform": "android"}}
    nonce = assert_nonce_wanted(server.post_register(body, headers={"DPoP": key.proof("POST", url)}))
    # A nonce the server never gave is no better than none.
    assert_nonce_wanted(server.post_register(body, headers={"DPoP": key.proof("POST", url, nonce="made-up")}))
    accepted = server.post_register(body, headers={"DPoP": key.proof("POST", url, nonce=nonce)})
    assert accepted.status_code == 201, accepted.text
    fresh_nonce(accepted)
    # A registration without a proof needs no nonce: the environment's DPoP is optional.
    assert server.post_register({**body, "email": "dpop-plain-nonce@example.com"}).status_code == 201


def test_a_bound_access_token_counts_only_as_dpop_with_its_proof(nonce_server: FieldpassServer) -> None:
    server = nonce_server
    key = DeviceKey()
    url = f"{server.public_url}/register_device"
    registration_nonce = assert_nonce_wanted(server.post_register(
        {"email": "dpop-bound@example.com"}, headers={"DPoP": key.proof("POST", url)}))
    registration = server.register(
        "dpop-bound@example.com", headers={"DPoP": key.proof("POST", url, nonce=registration_nonce)})
    # The long-poll's answers carry a nonce for the device's next proof.
    with http_client() as client:
        nonce = fresh_nonce(client.get(registration.events_url))
    with ws_connect(registration.websocket_url) as ws:
        token_event, _ = login_and_receive_token(ws, registration, "dpop-bound@example.com")
    assert token_event["token_type"] == "DPoP", token_event
    access = token_event["access_token"]
    assert server.verify_access_token(access)["cnf"] == {"jkt": key.thumbprint}
    described = introspection(server, access)
    assert (described["token_type"], described["cnf"]) == ("DPoP", {"jkt": key.thumbprint}), described

    me_url = f"{server.public_url}/me"
    as_bearer = me(server, f"Bearer {access}")
    assert as_bearer.status_code == 401 and as_bearer.json()["error"] == "invalid_token", as_bearer.text
    assert as_bearer.headers["WWW-Authenticate"].startswith("DPoP "), as_bearer.headers
    for proof in (None, key.proof("GET", me_url, nonce=nonce),  # no proof; no ath
                  key.proof("GET", me_url, nonce=nonce, ath=token_hash("another token")),
                  DeviceKey().proof("GET", me_url, nonce=nonce, ath=token_hash(access))):
        refused = me(server, f"DPoP {access}", proof)
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_dpop_proof", refused.text
        assert 'error="invalid_dpop_proof"' in refused.headers["WWW-Authenticate"], refused.headers
    stale = me(server, f"DPoP {access}", key.proof("GET", me_url, ath=token_hash(access)))
    nonce = assert_nonce_wanted(stale, status=401)
    assert 'error="use_dpop_nonce"' in stale.headers["WWW-Authenticate"], stale.headers
    proof = key.proof("GET", me_url, nonce=nonce, ath=token_hash(access))
    answered = me(server, f"DPoP {access}", proof)
    assert answered.status_code == 200 and answered.json()["user"]["email"] == "dpop-bound@example.com", answered.text
    nonce = fresh_nonce(answered)
    replayed = me(server, f"DPoP {access}", proof)
    assert replayed.status_code == 401 and replayed.json()["error"] == "invalid_dpop_proof", replayed.text

    # A refresh with the nonce gives a bound access token again.
    refreshed = refresh(server, token_event["refresh_token"], key.proof("POST", f"{server.public_url}/token", nonce=nonce))
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["token_type"] == "DPoP", refreshed.text
    assert server.verify_access_token(refreshed.json()["access_token"])["cnf"] == {"jkt": key.thumbprint}


def test_an_unbound_access_token_stays_a_bearer_token(nonce_server: FieldpassServer) -> None:
    server = nonce_server
    registration = server.register("dpop-bearer@example.com")
    with ws_connect(registration.websocket_url) as ws:
        token_event, _ = login_and_receive_token(ws, registration, "dpop-bearer@example.com")
    access = token_event["access_token"]
    assert token_event["token_type"] == "Bearer" and "cnf" not in server.verify_access_token(access)
    assert me(server, f"Bearer {access}").status_code == 200
    as_dpop = me(server, f"DPoP {access}", DeviceKey().proof("GET", f"{server.public_url}/me", ath=token_hash(access)))
    assert as_dpop.status_code == 401 and as_dpop.json()["error"] == "invalid_token", as_dpop.text


@pytest.mark.postgres_only
def test_every_instance_takes_every_instances_nonces_and_refuses_a_proof_used_at_another(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    cluster: Cluster = start_cluster(
        fieldpass_bin, idp, tmp_path, 2, environments=DIRECTORY_ENVIRONMENTS, extra_env={"DPOP_NONCE": "true"})
    try:
        a, b = cluster.instances
        key = DeviceKey()
        url = f"{cluster.public_url}/register_device"
        body = {"email": "dpop-cluster@example.com", "device": {"name": "Pixel 8", "platform": "android"}}
        nonce_from_a = assert_nonce_wanted(a.post_register(body, headers={"DPoP": key.proof("POST", url)}))
        proof = key.proof("POST", url, nonce=nonce_from_a)
        taken_by_b = b.post_register(body, headers={"DPoP": proof})
        assert taken_by_b.status_code == 201, taken_by_b.text
        assert_dpop_refused(a.post_register(body, headers={"DPoP": proof}))
        # And the other way round, with B's nonce at A.
        nonce_from_b = fresh_nonce(taken_by_b)
        taken_by_a = a.post_register(body, headers={"DPoP": key.proof("POST", url, nonce=nonce_from_b)})
        assert taken_by_a.status_code == 201, taken_by_a.text
    finally:
        cluster.stop()
