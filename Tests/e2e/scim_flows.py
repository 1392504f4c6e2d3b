"""A SCIM-provisioned server and a small SCIM client, shared by the SCIM test modules.

Environments: `dev` (example.com, bootstrap admin, the backend's service account, roles from
the IdP with the role group "Crew Leads" → manager and "Fieldpass Admins" → admin) and
`other` (other.test), each with its own SCIM token.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    EMAIL_DOMAIN,
    OTHER_DOMAIN,
    OTHER_ENV,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    describe,
    http_client,
    server_env,
    server_in,
)

DEV_TOKEN = "dev-scim-token-for-the-e2e-suite-0123456789"
OTHER_TOKEN = "other-scim-token-for-the-e2e-suite-0123456789"
ROLES = {"claim": "roles", "map": {"Fieldpass.Manager": "manager", "Crew Leads": "manager", "Fieldpass Admins": "admin"}}
SCIM_ENVIRONMENTS = (
    EnvironmentSpec(
        "dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,), roles_from_idp=ROLES,
        scim_token_env="DEV_SCIM_TOKEN", scim_token=DEV_TOKEN,
    ),
    EnvironmentSpec(OTHER_ENV, (OTHER_DOMAIN,), scim_token_env="OTHER_SCIM_TOKEN", scim_token=OTHER_TOKEN),
)
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"


@pytest.fixture(scope="module")
def scim_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    workdir = tmp_path_factory.mktemp("server-scim")
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, SCIM_ENVIRONMENTS), environments=SCIM_ENVIRONMENTS)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def scim(
    server: FieldpassServer, method: str, path: str, body: Any = None, *, token: str | None = DEV_TOKEN,
    content: bytes | None = None, params: Mapping[str, str] | None = None,
) -> httpx.Response:
    """One SCIM request as an IdP sends it: `application/scim+json`, the bearer token."""
    headers = {"content-type": "application/scim+json"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    if body is not None:
        content = json.dumps(body).encode()
    with http_client() as client:
        return client.request(method, f"{server.url}/scim/v2{path}", content=content, headers=headers, params=params)


def scim_json(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, describe(response)
    assert response.headers["content-type"].startswith("application/scim+json"), describe(response)
    return response.json()


def assert_scim_error(response: httpx.Response, status: int, scim_type: str | None = None) -> dict[str, Any]:
    """A SCIM error (RFC 7644 §3.12): the Error schema, `status` as a string, `scimType` where given."""
    body = scim_json(response, status)
    assert body["schemas"] == [ERROR_SCHEMA], body
    assert body["status"] == str(status), body
    assert isinstance(body.get("detail"), str) and body["detail"], body
    if scim_type is not None:
        assert body.get("scimType") == scim_type, body
    return body


def new_user(email: str, **attributes: Any) -> dict[str, Any]:
    return {"schemas": [USER_SCHEMA], "userName": email, "active": True, **attributes}


def patch(*operations: dict[str, Any]) -> dict[str, Any]:
    return {"schemas": [PATCH_SCHEMA], "Operations": list(operations)}
