"""The token endpoints around the refresh token: revocation (RFC 7009, POST /revoke)
and introspection (RFC 7662, POST /introspect).

Runs against `directory_server` (per module: `dev` and `other`, each with a service
account).
"""

from __future__ import annotations

import base64
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    FieldpassServer,
    IntegrationClient,
    ServiceAccountSpec,
    SignedIn,
    assert_api_error,
    assert_json,
    describe,
    directory_view,
    http_client,
    reforge,
    sign_in,
    unique_email,
)
from oauth_flows import (
    assert_active,
    assert_inactive,
    assert_me_refused,
    assert_me_works,
    assert_refresh_refused,
    credentials,
    introspect,
    refreshed,
)



def every_device(server: FieldpassServer, admin: SignedIn) -> dict[str, Any]:
    """What dev's admin sees: users, teams, audit, and every user's devices and permissions."""
    users = assert_json(server.api("GET", "/admin/users", token=admin.access_token))["users"]
    return directory_view(server, admin.access_token, of_users=[user["id"] for user in users])


# --------------------------------------------------------------------------- fixtures



@pytest.fixture(scope="module")
def device(directory_server: FieldpassServer) -> SignedIn:
    """A dev worker's device that no test revokes: for read-only checks."""
    return sign_in(directory_server, unique_email("live"))


# --------------------------------------------------------------------------- requests


def revoke(
    server: FieldpassServer, token: str | None, *, auth: tuple[str, str] | None = None, hint: str | None = None
) -> httpx.Response:
    form = {"token": token} if token is not None else {}
    if hint is not None:
        form["token_type_hint"] = hint
    with http_client() as client:
        return client.post(f"{server.public_url}/revoke", data=form, auth=auth)


def assert_revoked(response: httpx.Response) -> None:
    """RFC 7009 section 2.2: 200 with an empty body."""
    assert response.status_code == 200, describe(response)
    assert response.content == b"", describe(response)


def assert_feed_works(server: FieldpassServer, token: str) -> None:
    assert_json(server.api("GET", "/integration/realms", token=token))


def service_token(server: FieldpassServer, account: ServiceAccountSpec = DEV_BACKEND) -> str:
    with IntegrationClient(server.public_url, account.id, account.secret) as client:
        return client.authenticate()["access_token"]


def unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and claims of a JWT, unchecked."""
    return jwt.get_unverified_header(token), jwt.decode(token, options={"verify_signature": False})


# --------------------------------------------------------------------------- revocation


@pytest.mark.parametrize("hint", [None, "refresh_token", "access_token"], ids=["no-hint", "right-hint", "wrong-hint"])
def test_device_revokes_its_refresh_token(directory_server: FieldpassServer, email: str, hint: str | None) -> None:
    server = directory_server
    device = sign_in(server, email)

    assert_revoked(revoke(server, device.refresh_token, hint=hint))

    assert_refresh_refused(server, device.refresh_token)
    assert_me_refused(server, device.access_token)
    assert_inactive(server, device.access_token)
    assert_inactive(server, device.refresh_token)


def test_revoked_access_token_alone_stops_working(directory_server: FieldpassServer, email: str) -> None:
    server = directory_server
    device = sign_in(server, email)
    later = refreshed(server, device.refresh_token)

    assert_revoked(revoke(server, device.access_token))

    assert_me_refused(server, device.access_token)
    assert_inactive(server, device.access_token)
    # The device's other tokens are untouched.
    assert_me_works(server, later["access_token"])
    assert_active(server, later["access_token"])
    refreshed(server, later["refresh_token"])


def test_service_account_revokes_its_own_access_token(directory_server: FieldpassServer) -> None:
    server = directory_server
    token, other_token = service_token(server), service_token(server)
    assert_feed_works(server, token)

    assert_revoked(revoke(server, token, auth=credentials(DEV_BACKEND)))

    assert_api_error(server.api("GET", "/integration/realms", token=token), 401, "invalid_token")
    assert_feed_works(server, other_token)


@dataclass
class Held:
    """Someone else's token, and how to show it still works."""

    token: str
    still_works: Callable[[], None]


def _device_access_token(server: FieldpassServer) -> Held:
    device = sign_in(server, unique_email("held"))
    return Held(device.access_token, lambda: assert_me_works(server, device.access_token))


def _device_refresh_token(server: FieldpassServer) -> Held:
    device = sign_in(server, unique_email("held"))

    def still_works() -> None:
        refreshed(server, device.refresh_token)

    return Held(device.refresh_token, still_works)


def _other_accounts_token(server: FieldpassServer) -> Held:
    token = service_token(server, OTHER_BACKEND)
    return Held(token, lambda: assert_feed_works(server, token))


@pytest.mark.parametrize("held", [_device_access_token, _device_refresh_token, _other_accounts_token],
                         ids=["device-access-token", "device-refresh-token", "other-accounts-token"])
def test_service_account_cannot_revoke_someone_elses_token(
    directory_server: FieldpassServer, admin: SignedIn, held: Callable[[FieldpassServer], Held]
) -> None:
    server = directory_server
    target = held(server)
    before = every_device(server, admin)

    response = revoke(server, target.token, auth=credentials(DEV_BACKEND))

    assert_api_error(response, 400, "unauthorized_client")
    assert every_device(server, admin) == before, "a refused revocation changed a device or the directory"
    target.still_works()


def _forged_token() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    now = int(time.time())
    claims = {"sub": str(uuid.uuid4()), "jti": str(uuid.uuid4()), "iat": now, "nbf": now, "exp": now + 600}
    return jwt.encode(claims, key, algorithm="ES256", headers={"kid": "not-ours"})


@pytest.mark.parametrize("token", ["not-a-token", uuid.uuid4().hex * 2, _forged_token()],
                         ids=["garbage", "random-hex", "jwt-of-another-issuer"])
def test_revoking_an_unknown_token_answers_200(
    directory_server: FieldpassServer, admin: SignedIn, device: SignedIn, token: str
) -> None:
    server = directory_server
    before = every_device(server, admin)

    response = revoke(server, token)

    assert_revoked(response)
    assert every_device(server, admin) == before, "revoking an unknown token changed a device or the directory"
    assert_me_works(server, device.access_token)


def test_revoke_without_a_token_is_invalid_request(directory_server: FieldpassServer) -> None:
    response = revoke(directory_server, None, hint="access_token")

    assert_api_error(response, 400, "invalid_request")


def test_revoke_with_wrong_client_credentials_is_invalid_client(directory_server: FieldpassServer) -> None:
    server = directory_server
    token = service_token(server)

    response = revoke(server, token, auth=(DEV_BACKEND.id, "wrong-secret"))

    assert_api_error(response, 401, "invalid_client")
    assert response.headers.get("www-authenticate", "").lower().startswith("basic"), describe(response)
    assert_feed_works(server, token)


# --------------------------------------------------------------------------- introspection


ACCESS_CLAIMS = ("sub", "iss", "exp", "iat", "nbf", "jti", "env", "role", "realms")


def _audiences(value: Any) -> list[str]:
    return value if isinstance(value, list) else [value]


def assert_describes(body: dict[str, Any], claims: dict[str, Any], names: tuple[str, ...]) -> None:
    """The introspection response repeats the JWT's claims."""
    assert body["token_type"] == "Bearer", body
    assert _audiences(body.get("aud")) == _audiences(claims["aud"]), (body, claims)
    for name in names:
        assert body.get(name) == claims[name], (name, body, claims)


def test_introspect_a_device_access_token(directory_server: FieldpassServer, device: SignedIn) -> None:
    body = assert_active(directory_server, device.access_token)

    assert_describes(body, device.claims, (*ACCESS_CLAIMS, "email", "device_id"))


def test_introspect_a_service_access_token(directory_server: FieldpassServer) -> None:
    token = service_token(directory_server)
    claims = directory_server.verify_access_token(token)

    body = assert_active(directory_server, token)

    assert_describes(body, claims, ACCESS_CLAIMS)
    assert body.get("client_id") == DEV_BACKEND.id, body
    assert "email" not in body and "device_id" not in body, body


def test_introspect_a_refresh_token(directory_server: FieldpassServer, email: str) -> None:
    started = time.time()
    device = sign_in(directory_server, email)

    body = assert_active(directory_server, device.refresh_token)

    assert body.get("token_type") == "refresh_token", body
    assert body.get("sub") == device.user_id and body.get("env") == "dev", body
    assert body.get("device_id") == device.claims["device_id"], body
    assert isinstance(body.get("iat"), int) and started - 2 <= body["iat"] <= time.time() + 2, body
    assert isinstance(body.get("exp"), int) and body["exp"] > time.time() + 3600, body


def _revoke_access_token(server: FieldpassServer, admin: SignedIn, victim: SignedIn) -> None:
    assert_revoked(revoke(server, victim.access_token))


def _revoke_device(server: FieldpassServer, admin: SignedIn, victim: SignedIn) -> None:
    response = server.api("DELETE", f"/me/devices/{victim.claims['device_id']}", token=victim.access_token)
    assert response.status_code == 204, describe(response)


def _disable_user(server: FieldpassServer, admin: SignedIn, victim: SignedIn) -> None:
    user = assert_json(server.api("POST", f"/admin/users/{victim.user_id}/disable", token=admin.access_token))
    assert user.get("id") == victim.user_id and user.get("disabled") is True, user


ENDINGS = [
    pytest.param(_revoke_access_token, ("access",), id="revoked-access-token"),
    pytest.param(_revoke_device, ("access", "refresh"), id="revoked-device"),
    pytest.param(_disable_user, ("access", "refresh"), id="disabled-user"),
]


@pytest.mark.parametrize(("end", "ended"), ENDINGS)
def test_ended_tokens_introspect_inactive(
    directory_server: FieldpassServer, admin: SignedIn, email: str,
    end: Callable[[FieldpassServer, SignedIn, SignedIn], None], ended: tuple[str, ...],
) -> None:
    server = directory_server
    victim = sign_in(server, email)
    tokens = [{"access": victim.access_token, "refresh": victim.refresh_token}[kind] for kind in ended]
    for token in tokens:
        assert_active(server, token)

    end(server, admin, victim)

    for token in tokens:
        assert_inactive(server, token)


def test_other_environments_tokens_introspect_inactive(directory_server: FieldpassServer, device: SignedIn) -> None:
    server = directory_server
    far = sign_in(server, unique_email("far", OTHER_DOMAIN))
    far_service = service_token(server, OTHER_BACKEND)
    for token in (far.access_token, far.refresh_token, far_service):
        assert_active(server, token, OTHER_BACKEND)

    for token in (far.access_token, far.refresh_token, far_service):
        assert_inactive(server, token, DEV_BACKEND)
    for token in (device.access_token, device.refresh_token):
        assert_inactive(server, token, OTHER_BACKEND)



def _expired(claims: dict[str, Any]) -> dict[str, Any]:
    """Issued 25 minutes ago, expired 10 minutes ago (beyond any clock leeway)."""
    now = int(time.time())
    return {**claims, "iat": now - 1500, "nbf": now - 1500, "exp": now - 600, "jti": str(uuid.uuid4())}


def _signed(token: str, key: Any, claims: dict[str, Any]) -> str:
    header, _ = unverified(token)
    return jwt.encode(claims, key, algorithm=header["alg"], headers={"kid": header["kid"]})


def _wrong_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


FORGERIES: dict[str, Callable[[str], str]] = {
    "signed-with-another-key": lambda token: _signed(token, _wrong_key(), unverified(token)[1]),
    "expired-and-signed-with-another-key": lambda token: _signed(token, _wrong_key(), _expired(unverified(token)[1])),
    "tampered-claims": lambda token: reforge(token, claims={"role": "admin", "email": ADMIN_EMAIL}),
    "alg-none": lambda token: ".".join(reforge(token, header={"alg": "none"}).split(".")[:2]) + ".",
    "signature-dropped": lambda token: token.rsplit(".", 1)[0] + ".",
    "garbage": lambda token: "not-a-token",
    "three-dots": lambda token: "a.b.c",
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_forged_tokens_introspect_inactive(
    directory_server: FieldpassServer, device: SignedIn, forge: Callable[[str], str]
) -> None:
    server = directory_server
    assert_active(server, device.access_token)

    forged = forge(device.access_token)

    assert_inactive(server, forged)


def _server_key(server: FieldpassServer) -> Any:
    (pem,) = server.keys_dir.glob("*.pem")
    return serialization.load_pem_private_key(pem.read_bytes(), password=None)


def test_expired_token_signed_with_the_servers_key_introspects_inactive(
    directory_server: FieldpassServer, device: SignedIn
) -> None:
    server = directory_server
    key = _server_key(server)
    fresh = _signed(device.access_token, key, {**device.claims, "jti": str(uuid.uuid4())})
    assert_active(server, fresh)  # the key is the server's own: only the expiry differs below

    expired = _signed(device.access_token, key, _expired(device.claims))

    assert_inactive(server, expired)


CALLERS = {
    "no-auth": lambda device: {},
    "device-bearer-token": lambda device: {"authorization": f"Bearer {device.access_token}"},
    "wrong-secret": lambda device: {
        "authorization": "Basic " + base64.b64encode(f"{DEV_BACKEND.id}:wrong-secret".encode()).decode()
    },
}


@pytest.mark.parametrize("caller", CALLERS.values(), ids=CALLERS.keys())
def test_introspection_requires_a_service_account(
    directory_server: FieldpassServer, device: SignedIn, caller: Callable[[SignedIn], dict[str, str]]
) -> None:
    response = introspect(directory_server, device.access_token, auth=None, headers=caller(device))

    assert_api_error(response, 401, "invalid_client")
    assert "active" not in response.json(), describe(response)
