"""Who may call what: every admin and integration endpoint (and GET /me) against every
kind of caller, each with the status it must get; a refusal changes nothing.

Callers: anonymous, a worker, a manager and an admin of `dev` (the manager and admin made
with `fieldpass admin grant-role` before they first sign in), dev's service account, the
other environment's service account, and the other environment's (bootstrap) admin.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from helpers import (
    DEV_BACKEND,
    OTHER_ADMIN_EMAIL,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    FieldpassServer,
    IntegrationClient,
    assert_api_error,
    assert_json,
    b64url_encode,
    cli_output,
    describe,
    directory_view,
    feed_realms,
    reforge,
    sign_in,
    unique_email,
    user_id_by_email,
)

CALLERS = ("anonymous", "worker", "manager", "admin", "service", "other_service", "other_admin")


@dataclass
class Principals:
    tokens: dict[str, str | None]
    user_ids: dict[str, str]


@pytest.fixture(scope="module")
def principals(directory_server: FieldpassServer) -> Principals:
    server = directory_server
    tokens: dict[str, str | None] = {"anonymous": None}
    user_ids: dict[str, str] = {}
    for name, role in (("manager", "manager"), ("admin", "admin")):
        email = unique_email(name)
        result = server.grant_role(email, role)
        assert result.returncode == 0, cli_output(result)
        signed_in = sign_in(server, email)
        assert signed_in.claims["role"] == role, signed_in.claims
        tokens[name], user_ids[name] = signed_in.access_token, signed_in.user_id
    worker = sign_in(server, unique_email())
    tokens["worker"], user_ids["worker"] = worker.access_token, worker.user_id
    other_admin = sign_in(server, OTHER_ADMIN_EMAIL)
    assert other_admin.claims["role"] == "admin" and other_admin.claims["env"] == "other", other_admin.claims
    tokens["other_admin"], user_ids["other_admin"] = other_admin.access_token, other_admin.user_id
    for name, account in (("service", DEV_BACKEND), ("other_service", OTHER_BACKEND)):
        with IntegrationClient(server.public_url, account.id, account.secret) as client:
            tokens[name] = client.authenticate()["access_token"]
    return Principals(tokens, user_ids)


def fresh_user(server: FieldpassServer, admin_token: str) -> str:
    """A new dev user (registered, never signed in); returns its id, as dev's admin sees it."""
    email = unique_email("target")
    server.register(email)
    return user_id_by_email(server, admin_token, email)


def observed_state(server: FieldpassServer, principals: Principals, *user_ids: str) -> tuple[Any, ...]:
    """What both environments' admins see (with the permissions and devices of `user_ids`),
    and dev's realms on the integration feed."""
    return (
        directory_view(server, principals.tokens["admin"], of_users=user_ids),
        directory_view(server, principals.tokens["other_admin"]),
        feed_realms(server, DEV_BACKEND),
    )


def fresh_team(server: FieldpassServer, admin_token: str, member: str | None = None) -> str:
    response = server.api(
        "POST", "/admin/teams", token=admin_token, json_body={"name": f"Team {uuid.uuid4().hex[:10]}"}
    )
    team = assert_json(response, 201)
    if member is not None:
        assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{member}", token=admin_token))
    return team["id"]


# (method, path, body, {caller: status}); {user}, {team}, {member}, {realm} are fresh targets.
ENDPOINTS: list[tuple[str, str, Any, tuple[int, ...]]] = [
    # anonymous, worker, manager, admin, service, other_service, other_admin
    ("GET", "/me", None, (401, 200, 200, 200, 403, 403, 200)),
    ("GET", "/admin/users", None, (401, 403, 200, 200, 403, 403, 200)),
    ("GET", "/admin/users/{user}", None, (401, 403, 200, 200, 403, 403, 404)),
    ("PUT", "/admin/users/{user}/role", {"role": "manager"}, (401, 403, 403, 200, 403, 403, 404)),
    ("GET", "/admin/users/{user}/permissions", None, (401, 403, 200, 200, 403, 403, 404)),
    ("PUT", "/admin/users/{user}/grants", {"realm_path": "/tasks", "access": "read"},
     (401, 403, 403, 200, 403, 403, 404)),
    ("DELETE", "/admin/users/{user}/grants?realm_path=/tasks", None, (401, 403, 403, 200, 403, 403, 404)),
    ("GET", "/admin/teams", None, (401, 403, 200, 200, 403, 403, 200)),
    ("POST", "/admin/teams", {"name": "{name}"}, (401, 403, 403, 201, 403, 403, 201)),
    ("GET", "/admin/teams/{team}", None, (401, 403, 200, 200, 403, 403, 404)),
    ("PATCH", "/admin/teams/{team}", {"name": "{name}"}, (401, 403, 403, 200, 403, 403, 404)),
    ("DELETE", "/admin/teams/{team}", None, (401, 403, 403, 204, 403, 403, 404)),
    ("PUT", "/admin/teams/{team}/members/{user}", None, (401, 403, 403, 200, 403, 403, 404)),
    ("DELETE", "/admin/teams/{team}/members/{member}", None, (401, 403, 403, 200, 403, 403, 404)),
    ("GET", "/admin/audit", None, (401, 403, 403, 200, 403, 403, 200)),
    ("GET", "/integration/realms", None, (401, 403, 403, 403, 200, 200, 403)),
    ("POST", "/integration/realms/initialized", {"realm_path": "{realm}"}, (401, 403, 403, 403, 200, 404, 403)),
]

CASES = [
    pytest.param(method, path, body, caller, statuses[i], id=f"{method} {path} as {caller}")
    for method, path, body, statuses in ENDPOINTS
    for i, caller in enumerate(CALLERS)
]

NOT_FOUND_ERRORS = {"unknown_user", "unknown_team", "unknown_realm"}


@pytest.mark.parametrize(("method", "path", "body", "caller", "status"), CASES)
def test_authorization_matrix(
    directory_server: FieldpassServer, principals: Principals,
    method: str, path: str, body: Any, caller: str, status: int,
) -> None:
    server = directory_server
    admin_token = principals.tokens["admin"]
    user = fresh_user(server, admin_token)
    member = fresh_user(server, admin_token)
    targets = {
        "user": user,
        "member": member,
        "team": fresh_team(server, admin_token, member=member),
        "realm": f"/users/{user}",
        "name": f"Team {uuid.uuid4().hex[:10]}",
    }
    if "/grants?realm_path=/tasks" in path:
        response = server.api(
            "PUT", f"/admin/users/{user}/grants", token=admin_token, json_body={"realm_path": "/tasks", "access": "read"}
        )
        assert_json(response)
    url = path.format(**targets)
    payload = json.loads(json.dumps(body).replace("{name}", targets["name"]).replace("{realm}", targets["realm"])) \
        if body is not None else None

    before = observed_state(server, principals, user, member)
    response = server.api(method, url, token=principals.tokens[caller], json_body=payload)
    after = observed_state(server, principals, user, member)

    assert response.status_code == status, describe(response)
    if status == 204:
        assert not response.content, describe(response)
    elif status < 300:
        assert_json(response, status)
    elif status == 401:
        assert_api_error(response, 401)
        assert response.headers.get("www-authenticate", "").lower().startswith("bearer"), describe(response)
    elif status == 404:
        assert_api_error(response, 404, NOT_FOUND_ERRORS)
    else:
        assert_api_error(response, status)

    if status >= 400 or method == "GET":
        assert after == before, f"{method} {url} as {caller} ({status}) changed the store"
    else:
        assert after != before, f"{method} {url} as {caller} ({status}) changed nothing"


# --------------------------------------------------------------------------- environments


def test_other_environments_admin_sees_none_of_dev(directory_server: FieldpassServer, principals: Principals) -> None:
    server = directory_server
    other = principals.tokens["other_admin"]
    dev_admin = principals.tokens["admin"]
    dev_team = fresh_team(server, dev_admin, member=principals.user_ids["worker"])
    dev_ids = {principals.user_ids[name] for name in ("worker", "manager", "admin")}

    users = assert_json(server.api("GET", "/admin/users", token=other))["users"]
    assert users, "the other admin does not even see themselves"
    assert all(u["environment_id"] == "other" and u["email"].endswith("@" + OTHER_DOMAIN) for u in users), users
    assert principals.user_ids["other_admin"] in {u["id"] for u in users}
    assert not dev_ids & {u["id"] for u in users}, users

    teams = assert_json(server.api("GET", "/admin/teams", token=other))["teams"]
    assert dev_team not in {t["id"] for t in teams}, teams

    entries = assert_json(server.api("GET", "/admin/audit", token=other, params={"limit": "500"}))["entries"]
    mentioned = json.dumps(entries)
    assert not any(dev_id in mentioned for dev_id in dev_ids | {dev_team}), entries

    for path in (
        f"/admin/users/{principals.user_ids['worker']}",
        f"/admin/users/{principals.user_ids['worker']}/permissions",
    ):
        assert_api_error(server.api("GET", path, token=other), 404, "unknown_user")
    assert_api_error(server.api("GET", f"/admin/teams/{dev_team}", token=other), 404, "unknown_team")

    # And the other way round: dev's admin does not see the other environment's admin.
    dev_users = assert_json(server.api("GET", "/admin/users", token=dev_admin))["users"]
    assert principals.user_ids["other_admin"] not in {u["id"] for u in dev_users}, dev_users
    assert all(u["environment_id"] == "dev" for u in dev_users), dev_users
    assert_api_error(
        server.api("GET", f"/admin/users/{principals.user_ids['other_admin']}", token=dev_admin), 404, "unknown_user"
    )


def test_cli_lists_users_of_one_environment(directory_server: FieldpassServer, principals: Principals) -> None:
    result = directory_server.cli("admin", "users", "--env", "dev", "--config", str(directory_server.config_path))
    assert result.returncode == 0, cli_output(result)
    for name in ("worker", "manager", "admin"):
        assert principals.user_ids[name] in result.stdout, cli_output(result)
    assert principals.user_ids["other_admin"] not in result.stdout, cli_output(result)
    assert OTHER_ADMIN_EMAIL not in result.stdout, cli_output(result)
    # With two environments, the CLI does not guess which one is meant.
    unnamed = directory_server.cli("admin", "users", "--config", str(directory_server.config_path))
    assert unnamed.returncode == 1 and "several environments" in unnamed.stderr and "--env" in unnamed.stderr, cli_output(unnamed)


# --------------------------------------------------------------------------- bearer tokens



def _hs256(claims: dict[str, Any], secret: bytes, kid: str) -> str:
    """An HMAC token keyed with public material (PyJWT rightly refuses to make one)."""
    head = b64url_encode(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    body = b64url_encode(json.dumps(claims).encode())
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64url_encode(mac)}"


def test_forged_bearer_tokens_are_refused(directory_server: FieldpassServer, principals: Principals) -> None:
    server = directory_server
    worker_token = principals.tokens["worker"]
    claims = jwt.decode(worker_token, options={"verify_signature": False})
    kid = jwt.get_unverified_header(worker_token)["kid"]
    attacker_key = ec.generate_private_key(ec.SECP256R1())
    attacker_pem = attacker_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_jwk = next(key for key in server.jwks()["keys"] if key["kid"] == kid)
    public_pem = jwt.PyJWK.from_dict(public_jwk).key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    now = int(time.time())

    forgeries = {
        "role changed": reforge(worker_token, claims={"role": "admin"}),
        "alg none": ".".join(reforge(worker_token, header={"alg": "none"}, claims={"role": "admin"}).split(".")[:2]) + ".",
        "signed by another key with our kid": jwt.encode(
            {**claims, "role": "admin"}, attacker_pem, algorithm="ES256", headers={"kid": kid}
        ),
        "HS256 keyed with our public JWK": _hs256({**claims, "role": "admin"}, json.dumps(public_jwk).encode(), kid),
        "HS256 keyed with our public key's PEM": _hs256({**claims, "role": "admin"}, public_pem, kid),
        "service role claimed by a forged token": jwt.encode(
            {**claims, "sub": "service:backend", "role": "service"}, attacker_pem, algorithm="ES256",
            headers={"kid": kid},
        ),
        "expired": jwt.encode(
            {**claims, "iat": now - 3600, "nbf": now - 3600, "exp": now - 1800}, attacker_pem,
            algorithm="ES256", headers={"kid": kid},
        ),
        "garbage": "not-a-jwt",
    }
    for what, token in forgeries.items():
        for method, path in (("GET", "/me"), ("GET", "/admin/users"), ("GET", "/integration/realms")):
            response = server.api(method, path, token=token)
            assert response.status_code == 401, f"{what}: {describe(response)}"
            assert response.json().get("error") == "invalid_token", f"{what}: {describe(response)}"
            assert "bearer" in response.headers.get("www-authenticate", "").lower(), f"{what}: {describe(response)}"

    # Not a bearer scheme at all.
    response = server.api("GET", "/me", headers={"authorization": f"Basic {b64url_encode(b'backend:x')}"})
    assert_api_error(response, 401)
    # A token of the right kind still works.
    assert assert_json(server.api("GET", "/me", token=worker_token))["user"]["id"] == principals.user_ids["worker"]

