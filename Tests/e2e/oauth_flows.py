"""Refresh, introspection and /me calls shared by test_refresh_rotation.py and
test_revocation_introspection.py.

Access tokens are verified from the JWKS alone (PyJWT); introspection authenticates
as a service account (DEV_BACKEND unless told otherwise).
"""

from __future__ import annotations

from typing import Any

import httpx

from helpers import (
    DEV_BACKEND,
    FieldpassServer,
    ServiceAccountSpec,
    assert_api_error,
    assert_json,
    describe,
    http_client,
)


def refreshed(server: FieldpassServer, refresh_token: str) -> dict[str, Any]:
    """A successful refresh: the token response, its access token verified."""
    body = assert_json(server.refresh(refresh_token))
    assert isinstance(body.get("refresh_token"), str) and body["refresh_token"], body
    server.verify_access_token(body["access_token"])
    return body


def assert_refresh_refused(server: FieldpassServer, refresh_token: str) -> None:
    response = server.refresh(refresh_token)
    assert_api_error(response, 400, "invalid_grant")
    assert "access_token" not in response.text, describe(response)


def credentials(account: ServiceAccountSpec) -> tuple[str, str]:
    return (account.id, account.secret)


def introspect(
    server: FieldpassServer, token: str, *, auth: tuple[str, str] | None = credentials(DEV_BACKEND),
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    with http_client() as client:
        return client.post(f"{server.public_url}/introspect", data={"token": token}, auth=auth, headers=headers)


def introspection(server: FieldpassServer, token: str, account: ServiceAccountSpec = DEV_BACKEND) -> dict[str, Any]:
    response = introspect(server, token, auth=credentials(account))
    body = assert_json(response)
    assert isinstance(body, dict) and isinstance(body.get("active"), bool), describe(response)
    return body


def assert_active(server: FieldpassServer, token: str, account: ServiceAccountSpec = DEV_BACKEND) -> dict[str, Any]:
    body = introspection(server, token, account)
    assert body["active"] is True, body
    return body


def assert_inactive(server: FieldpassServer, token: str, account: ServiceAccountSpec = DEV_BACKEND) -> None:
    """RFC 7662 section 2.2: an inactive token reveals nothing but `active: false`."""
    assert introspection(server, token, account) == {"active": False}


def assert_me_works(server: FieldpassServer, token: str) -> None:
    assert_json(server.api("GET", "/me", token=token))


def assert_me_refused(server: FieldpassServer, token: str) -> None:
    assert_api_error(server.api("GET", "/me", token=token), 401, "invalid_token")
