"""Onboarding through the real IdP: events, tokens, JWKS, reconnects."""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest

from helpers import (
    ACCESS_TOKEN_TTL,
    AUDIENCE,
    FieldpassServer,
    assert_event,
    assert_idp_request,
    assert_silent,
    authorize_url,
    new_browser,
    b64url_decode,
    b64url_encode,
    browser_login,
    cli_output,
    describe,
    is_html,
    jwk_thumbprint,
    login_params,
    onboard_to_data_ready,
    receive,
    receive_until_close,
    sign_in,
    verify_jwt,
    ws_connect,
)

DEVICE = {"name": "Pixel 8", "platform": "android"}
# The same phone's app, registering again: its installation id names the device.
INSTALLED = {**DEVICE, "install_id": "pixel-8-installation-0001"}
PRIVATE_JWK_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"}


def sign_in_and_get_token(server: FieldpassServer, email: str) -> dict:
    """Register, sign in, and return the token event (socket closed afterwards)."""
    return sign_in(server, email, DEVICE).token_event


def test_healthz(server: FieldpassServer) -> None:
    response = server.get("/healthz")
    assert response.status_code == 200, describe(response)


def test_jwks_publishes_es256_public_keys_with_thumbprint_kids(server: FieldpassServer) -> None:
    jwks = server.jwks()
    assert isinstance(jwks.get("keys"), list) and jwks["keys"], jwks
    for key in jwks["keys"]:
        assert not PRIVATE_JWK_MEMBERS & key.keys(), f"private key material published: {key}"
        assert key["kty"] == "EC" and key["crv"] == "P-256", key
        assert key.get("alg", "ES256") == "ES256", key
        assert key.get("use", "sig") == "sig", key
        assert key["kid"] == jwk_thumbprint(key), f"kid is not the RFC 7638 thumbprint: {key}"


def test_register_returns_login_url_for_the_idp(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    assert registration.login_url.startswith(f"{server.public_url}/login/"), registration.login_url
    with new_browser() as browser:
        params = assert_idp_request(server, authorize_url(registration.login_url, browser), email)

    ws = urlsplit(registration.websocket_url)
    assert (ws.scheme, ws.netloc, ws.path) == ("ws", f"127.0.0.1:{server.port}", "/events")
    assert parse_qs(ws.query).get("session_id") == [registration.session_id]
    assert isinstance(registration.expires_in, int) and 0 < registration.expires_in <= 600

    again = server.register(email, DEVICE)
    with new_browser() as browser:
        second = login_params(authorize_url(again.login_url, browser))
    assert again.session_id != registration.session_id
    for fresh in ("state", "nonce", "code_challenge"):
        assert second[fresh] != params[fresh], f"{fresh} reused across registrations"


def test_happy_path(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, email)
        assert callback.status_code == 200, describe(callback)
        assert is_html(callback), describe(callback)

        token_event, realm_event = receive(ws, 2)
        assert_event(token_event, 1, "token")
        assert_event(realm_event, 2, "realm_initialized")
        realm_path = realm_event.get("realm_path")

        result = server.mark_initialized(realm_path)
        assert result.returncode == 0, cli_output(result)
        rest = receive_until_close(ws)

    assert rest.types == ["data_ready"] and rest.seqs == [3], rest
    assert rest.events[0]["realm_path"] == realm_path
    assert rest.closed and rest.close_code == 1000, rest
    assert "data_ready sent to 1 waiting session(s)" in result.stdout, cli_output(result)
    # The backend saying it twice changes nothing, and is told so.
    again = server.mark_initialized(realm_path)
    assert again.returncode == 0 and again.stdout.strip() == f"Realm {realm_path} was initialized already; nothing changed.", cli_output(again)

    assert token_event.get("token_type") == "Bearer", token_event
    assert token_event.get("expires_in") == ACCESS_TOKEN_TTL, token_event
    access_token = token_event.get("access_token")
    refresh_token = token_event.get("refresh_token")
    assert isinstance(refresh_token, str) and len(refresh_token) >= 20, token_event
    assert refresh_token != access_token

    # Verified with the published JWKS alone, as a sync server would.
    header = jwt.get_unverified_header(access_token)
    assert header.get("alg") == "ES256", header
    claims = server.verify_access_token(access_token)
    sub = claims["sub"]
    assert realm_path == f"/users/{sub}"
    assert claims["iss"] == server.public_url
    assert claims["aud"] in (AUDIENCE, [AUDIENCE])
    assert claims["email"] == email
    assert claims["env"] == "dev"
    assert claims["role"] == "worker"
    assert isinstance(claims.get("device_id"), str) and claims["device_id"]
    assert isinstance(claims.get("jti"), str) and claims["jti"]
    now = time.time()
    assert abs(claims["iat"] - now) < 60 and claims["nbf"] <= claims["iat"] + 1
    assert abs(claims["exp"] - claims["iat"] - ACCESS_TOKEN_TTL) <= 1, claims
    realms = claims.get("realms")
    assert isinstance(realms, dict), claims
    assert realms.get(f"/users/{sub}") == "write", realms
    assert realms.get("/common") == "write", realms
    assert "/tasks" not in realms, f"a worker has no access to /tasks: {realms}"
    other_users = [path for path in realms if path.startswith("/users/") and path != realm_path]
    assert not other_users, f"a worker may only write their own personal realm: {realms}"


def test_returning_user_on_same_device_gets_data_ready_at_once(server: FieldpassServer, email: str) -> None:
    first = onboard_to_data_ready(server, email, INSTALLED)

    registration = server.register(email, dict(INSTALLED))
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, email)
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        got = receive_until_close(ws)

    assert got.types == ["token", "realm_initialized", "data_ready"], got
    assert got.seqs == [1, 2, 3], got
    assert got.closed and got.close_code == 1000, got
    assert got.events[1]["realm_path"] == first.realm_path
    assert got.events[2]["realm_path"] == first.realm_path
    claims = server.verify_access_token(got.events[0]["access_token"])
    assert claims["sub"] == first.claims["sub"]
    assert claims["device_id"] == first.claims["device_id"]
    assert claims["jti"] != first.claims["jti"]


def test_late_connect_then_reconnect_with_after(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    callback = browser_login(registration.login_url, email)
    assert callback.status_code == 200 and is_html(callback), describe(callback)

    # Connecting after the callback: the stored events, each once, in order.
    with ws_connect(registration.websocket_url) as ws:
        events = receive(ws, 2)
        assert_silent(ws, 1.0)
    assert [e["type"] for e in events] == ["token", "realm_initialized"], events
    assert [e["seq"] for e in events] == [1, 2], events
    realm_path = events[1]["realm_path"]

    # Reconnecting with after=1: only what came after seq 1.
    with ws_connect(f"{registration.websocket_url}&after=1") as ws:
        (event,) = receive(ws, 1)
        assert_event(event, 2, "realm_initialized")
        assert_silent(ws, 0.5)
        result = server.mark_initialized(realm_path)
        assert result.returncode == 0, cli_output(result)
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.seqs == [3], rest
    assert rest.closed and rest.close_code == 1000, rest


def test_email_is_matched_and_issued_in_lowercase(server: FieldpassServer) -> None:
    mixed = f"Mixed.Case-{uuid.uuid4().hex[:8]}@Example.COM"
    token_event = sign_in_and_get_token(server, mixed)
    claims = server.verify_access_token(token_event["access_token"])
    assert claims["email"] == mixed.lower()


def test_verified_email_claim_is_accepted(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, DEVICE)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(
            registration.login_url, email, idp=server.idp,
            claims={"email": email, "email_verified": True, "name": "Test Worker"},
        )
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    assert server.verify_access_token(token_event["access_token"])["email"] == email


def _replace_middle_char(segment: str) -> str:
    i = len(segment) // 2  # the middle: a last character may only carry padding bits
    return segment[:i] + ("A" if segment[i] != "A" else "B") + segment[i + 1 :]


def test_tampered_token_fails_verification(server: FieldpassServer, email: str) -> None:
    token = sign_in_and_get_token(server, email)["access_token"]
    jwks = server.jwks()

    def verify(candidate: str) -> dict:
        return verify_jwt(candidate, jwks, issuer=server.public_url, audience=AUDIENCE)

    assert verify(token)["email"] == email  # the untouched token passes
    header, payload, signature = token.split(".")

    with pytest.raises(jwt.InvalidTokenError):
        verify(".".join([header, _replace_middle_char(payload), signature]))

    claims = json.loads(b64url_decode(payload))
    claims["role"] = "admin"
    claims["realms"] = {**claims.get("realms", {}), "/tasks": "manage"}
    forged = b64url_encode(json.dumps(claims, separators=(",", ":")).encode())
    with pytest.raises(jwt.InvalidSignatureError):
        verify(".".join([header, forged, signature]))

    with pytest.raises(jwt.InvalidTokenError):
        verify(".".join([header, payload, _replace_middle_char(signature)]))

    unsigned = b64url_encode(json.dumps({**jwt.get_unverified_header(token), "alg": "none"}).encode())
    with pytest.raises(jwt.InvalidTokenError):
        verify(".".join([unsigned, payload, ""]))


# --------------------------------------------------------------------------- a device is one installation


def test_two_phones_with_one_name_are_two_devices(server: FieldpassServer, email: str) -> None:
    """Since iOS 16 every iPhone calls itself "iPhone": two phones without an installation id
    are two devices, and signing one out leaves the other signed in."""
    iphone = {"name": "iPhone", "platform": "ios"}
    first = sign_in(server, email, iphone)
    second = sign_in(server, email, iphone)
    listed = server.api("GET", "/me/devices", token=second.access_token)
    signed_out = server.api("DELETE", f"/me/devices/{first.claims['device_id']}", token=first.access_token)

    assert first.claims["device_id"] != second.claims["device_id"], (first.claims, second.claims)
    assert listed.status_code == 200, describe(listed)
    ids = {device["id"] for device in listed.json()["devices"]}
    assert {first.claims["device_id"], second.claims["device_id"]} <= ids, listed.json()
    assert signed_out.status_code == 204, describe(signed_out)
    assert server.refresh(first.refresh_token).status_code == 400
    refreshed = server.refresh(second.refresh_token)
    assert refreshed.status_code == 200, describe(refreshed)


def test_one_installation_is_one_device_and_its_new_sign_in_replaces_the_old_token(server: FieldpassServer, email: str) -> None:
    installed = {"name": "iPhone", "platform": "ios", "install_id": uuid.uuid4().hex}
    first = sign_in(server, email, installed)
    second = sign_in(server, email, installed)

    assert first.claims["device_id"] == second.claims["device_id"], (first.claims, second.claims)
    refused = server.refresh(first.refresh_token)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant", describe(refused)
    # Refused as replaced, not taken for a stolen copy: the new sign-in's token still works.
    refreshed = server.refresh(second.refresh_token)
    assert refreshed.status_code == 200, describe(refreshed)


def test_registering_with_an_installation_id_does_not_mark_its_device_seen(server: FieldpassServer, email: str) -> None:
    """An installation id is no secret: whoever knows it (and the email) can register with it
    without signing in, which must not make the device look in use."""
    installed = {"name": "iPhone", "platform": "ios", "install_id": uuid.uuid4().hex}
    signed_in = sign_in(server, email, installed)

    def last_seen() -> str:
        response = server.api("GET", "/me/devices", token=signed_in.access_token)
        assert response.status_code == 200, describe(response)
        return {device["id"]: device for device in response.json()["devices"]}[signed_in.claims["device_id"]]["last_seen_at"]

    seen = last_seen()
    time.sleep(1.1)  # past the second, whatever precision the answer has
    server.register(email, installed)
    assert last_seen() == seen


@pytest.mark.parametrize("install_id", ["short", "x" * 129, "has space in it!", "ünïcödé-installation", 12345678901234567, None])
def test_a_bad_installation_id_is_refused(server: FieldpassServer, email: str, install_id: object) -> None:
    device = {"name": "iPhone", "platform": "ios", "install_id": install_id}
    refused = server.post_register({"email": email, "device": device})
    if install_id is None:
        # JSON null is "none given": a new device, as without the key.
        assert refused.status_code == 201, describe(refused)
        return
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request", describe(refused)
    if isinstance(install_id, str):
        assert "install_id" in refused.json()["error_description"], refused.json()
