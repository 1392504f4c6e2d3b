"""Bad input on the admin, integration and token endpoints: a clear 4xx, and nothing changed.

Runs against its own server (`directory_server` is per module), so what the admins of both
environments see (users, teams, the audit log, the worker's permissions and devices) and
both integration feeds change only through the requests made here; every case compares
all of them before and after, and the audit log's length as the admin API reports it.
"""

from __future__ import annotations

import base64

import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    OTHER_ADMIN_EMAIL,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    FieldpassServer,
    IntegrationClient,
    SignedIn,
    assert_api_error,
    assert_json,
    describe,
    directory_view,
    feed_realms,
    http_client,
    sign_in,
    unique_email,
    user_id_by_email,
)

UNKNOWN_ID = str(uuid.uuid4())


@dataclass
class Context:
    admin: SignedIn
    other_admin: SignedIn
    worker: SignedIn
    service_token: str
    other_service_token: str
    values: dict[str, str]


@pytest.fixture(scope="module")
def ctx(directory_server: FieldpassServer) -> Context:
    server = directory_server
    admin = sign_in(server, ADMIN_EMAIL)
    worker = sign_in(server, unique_email())
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": "North"}), 201)
    south = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": "South"}), 201)
    assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{worker.user_id}", token=admin.access_token))
    assert_json(server.api("PUT", f"/admin/users/{worker.user_id}/grants", token=admin.access_token,
                           json_body={"realm_path": "/tasks", "access": "read"}))
    other_admin = sign_in(server, OTHER_ADMIN_EMAIL)
    other_email = unique_email("far", OTHER_DOMAIN)
    server.register(other_email)
    other_user = user_id_by_email(server, other_admin.access_token, other_email)
    tokens = {}
    for account in (DEV_BACKEND, OTHER_BACKEND):
        with IntegrationClient(server.public_url, account.id, account.secret) as client:
            tokens[account.id] = client.authenticate()["access_token"]
    values = {
        "worker": worker.user_id,
        "worker_realm": worker.realm_path,
        "team": team["id"],
        "team_name": team["name"],
        "south_name": south["name"],
        "other_user": other_user,
        "other_realm": f"/users/{other_user}",
        "unknown": UNKNOWN_ID,
    }
    return Context(admin, other_admin, worker, tokens[DEV_BACKEND.id], tokens[OTHER_BACKEND.id], values)


def observed_state(server: FieldpassServer, ctx: Context) -> tuple[Any, ...]:
    """What both admins see (with the worker's and the other user's permissions and devices),
    and both environments' realms on their integration feeds."""
    return (
        directory_view(server, ctx.admin.access_token, of_users=[ctx.worker.user_id]),
        directory_view(server, ctx.other_admin.access_token, of_users=[ctx.values["other_user"]]),
        feed_realms(server, DEV_BACKEND),
        feed_realms(server, OTHER_BACKEND),
    )


def audit_length(server: FieldpassServer, admin: SignedIn) -> int:
    page = assert_json(server.api("GET", "/admin/audit", token=admin.access_token, params={"limit": "500"}))
    assert page.get("next_before") is None, "more than 500 audit entries in this module?"
    return len(page["entries"])


@dataclass
class Case:
    id: str
    method: str
    path: str
    status: int | set[int]
    error: str | set[str] | None = None  # None: any error code (the contract names none)
    caller: str = "admin"  # admin | service | other_service | none
    json_body: Any = None
    content: bytes | None = None
    content_type: str | None = None
    params: dict[str, str] | None = None

    def param(self) -> Any:
        return pytest.param(self, id=self.id)


BAD_REALM_PATHS = {
    "no-leading-slash": "tasks",
    "empty-segment": "/a//b",
    "dot-dot": "/../x",
    "dot": "/./x",
    "empty": "",
    "root": "/",
    "trailing-slash": "/tasks/",
    "double-leading-slash": "//tasks",
    "space": "/ta sks",
    "newline": "/tasks\n",
    "users-dot-dot": "/users/../common",
    "1KB": "/" + "a" * 1023,
}

USER = "/admin/users/{worker}"
GRANTS = USER + "/grants"
TEAM = "/admin/teams/{team}"
FEED = "/integration/realms"
MARK = "/integration/realms/initialized"

CASES: list[Case] = [
    # ---- users
    Case("user-unknown", "GET", "/admin/users/{unknown}", 404, "unknown_user"),
    Case("user-garbage-id", "GET", "/admin/users/not-a-user", 404, "unknown_user"),
    Case("user-1KB-id", "GET", "/admin/users/" + "a" * 1024, 404, "unknown_user"),
    Case("user-team-id", "GET", "/admin/users/{team}", 404, "unknown_user"),
    Case("user-other-env", "GET", "/admin/users/{other_user}", 404, "unknown_user"),
    Case("permissions-unknown", "GET", "/admin/users/{unknown}/permissions", 404, "unknown_user"),
    Case("permissions-other-env", "GET", "/admin/users/{other_user}/permissions", 404, "unknown_user"),
    # ---- roles
    Case("role-unknown-user", "PUT", "/admin/users/{unknown}/role", 404, "unknown_user", json_body={"role": "manager"}),
    Case("role-other-env", "PUT", "/admin/users/{other_user}/role", 404, "unknown_user", json_body={"role": "admin"}),
    Case("role-invalid", "PUT", USER + "/role", 400, "invalid_role", json_body={"role": "superuser"}),
    Case("role-empty", "PUT", USER + "/role", 400, "invalid_role", json_body={"role": ""}),
    Case("role-service", "PUT", USER + "/role", 400, "invalid_role", json_body={"role": "service"}),
    Case("role-number", "PUT", USER + "/role", 400, {"invalid_request", "invalid_role"}, json_body={"role": 1}),
    Case("role-missing", "PUT", USER + "/role", 400, {"invalid_request", "invalid_role"}, json_body={}),
    Case("role-not-json", "PUT", USER + "/role", 400, "invalid_request", content=b"{role: admin", content_type="application/json"),
    Case("role-empty-body", "PUT", USER + "/role", 400, "invalid_request", content=b"", content_type="application/json"),
    Case("role-json-array", "PUT", USER + "/role", 400, "invalid_request", json_body=[{"role": "admin"}]),
    Case("role-form-body", "PUT", USER + "/role", {400, 415}, None, content=b"role=admin",
         content_type="application/x-www-form-urlencoded"),
    # ---- grants
    Case("grant-unknown-user", "PUT", "/admin/users/{unknown}/grants", 404, "unknown_user",
         json_body={"realm_path": "/tasks", "access": "write"}),
    Case("grant-other-env", "PUT", "/admin/users/{other_user}/grants", 404, "unknown_user",
         json_body={"realm_path": "/tasks", "access": "write"}),
    Case("grant-invalid-access", "PUT", GRANTS, 400, "invalid_access", json_body={"realm_path": "/tasks", "access": "admin"}),
    Case("grant-access-none", "PUT", GRANTS, 400, "invalid_access", json_body={"realm_path": "/tasks", "access": "none"}),
    Case("grant-access-empty", "PUT", GRANTS, 400, "invalid_access", json_body={"realm_path": "/tasks", "access": ""}),
    Case("grant-access-missing", "PUT", GRANTS, 400, {"invalid_request", "invalid_access"}, json_body={"realm_path": "/tasks"}),
    Case("grant-path-missing", "PUT", GRANTS, 400, {"invalid_request", "invalid_realm_path"}, json_body={"access": "read"}),
    Case("grant-not-json", "PUT", GRANTS, 400, "invalid_request", content=b"realm_path=/tasks", content_type="application/json"),
    *[
        Case(f"grant-path-{name}", "PUT", GRANTS, 400, "invalid_realm_path", json_body={"realm_path": path, "access": "write"})
        for name, path in BAD_REALM_PATHS.items()
    ],
    Case("revoke-unknown-user", "DELETE", "/admin/users/{unknown}/grants", 404, "unknown_user", params={"realm_path": "/tasks"}),
    Case("revoke-other-env", "DELETE", "/admin/users/{other_user}/grants", 404, "unknown_user", params={"realm_path": "/tasks"}),
    Case("revoke-path-missing", "DELETE", GRANTS, 400, {"invalid_request", "invalid_realm_path"}),
    *[
        Case(f"revoke-path-{name}", "DELETE", GRANTS, 400, "invalid_realm_path", params={"realm_path": path})
        for name, path in BAD_REALM_PATHS.items()
        if name != "empty"
    ],
    Case("revoke-path-empty", "DELETE", GRANTS, 400, {"invalid_request", "invalid_realm_path"}, params={"realm_path": ""}),
    # ---- teams
    Case("team-unknown", "GET", "/admin/teams/{unknown}", 404, "unknown_team"),
    Case("team-user-id", "GET", "/admin/teams/{worker}", 404, "unknown_team"),
    Case("rename-unknown", "PATCH", "/admin/teams/{unknown}", 404, "unknown_team", json_body={"name": "Nowhere"}),
    Case("delete-unknown", "DELETE", "/admin/teams/{unknown}", 404, "unknown_team"),
    Case("create-duplicate", "POST", "/admin/teams", 409, "team_name_taken", json_body={"name": "North"}),
    Case("create-duplicate-other-case", "POST", "/admin/teams", 409, "team_name_taken", json_body={"name": "NORTH"}),
    Case("rename-to-taken", "PATCH", TEAM, 409, "team_name_taken", json_body={"name": "South"}),
    Case("create-empty-name", "POST", "/admin/teams", 400, None, json_body={"name": ""}),
    Case("create-blank-name", "POST", "/admin/teams", 400, None, json_body={"name": "   "}),
    Case("create-control-char", "POST", "/admin/teams", 400, None, json_body={"name": "North\u0000East"}),
    Case("create-1KB-name", "POST", "/admin/teams", 400, None, json_body={"name": "n" * 1024}),
    Case("create-name-number", "POST", "/admin/teams", 400, "invalid_request", json_body={"name": 7}),
    Case("create-no-name", "POST", "/admin/teams", 400, "invalid_request", json_body={}),
    Case("create-not-json", "POST", "/admin/teams", 400, "invalid_request", content=b"name=North", content_type="application/json"),
    Case("rename-empty-name", "PATCH", TEAM, 400, None, json_body={"name": ""}),
    Case("rename-not-json", "PATCH", TEAM, 400, "invalid_request", content=b"{", content_type="application/json"),
    Case("member-unknown-team", "PUT", "/admin/teams/{unknown}/members/{worker}", 404, "unknown_team"),
    Case("member-unknown-user", "PUT", TEAM + "/members/{unknown}", 404, "unknown_user"),
    Case("member-other-env-user", "PUT", TEAM + "/members/{other_user}", 404, "unknown_user"),
    Case("unmember-unknown-team", "DELETE", "/admin/teams/{unknown}/members/{worker}", 404, "unknown_team"),
    Case("unmember-unknown-user", "DELETE", TEAM + "/members/{unknown}", 404, "unknown_user"),
    Case("unmember-other-env-user", "DELETE", TEAM + "/members/{other_user}", 404, "unknown_user"),
    # ---- audit
    *[
        Case(f"audit-{name}", "GET", "/admin/audit", 400, None, params=params)
        for name, params in {
            "limit-0": {"limit": "0"}, "limit-negative": {"limit": "-1"}, "limit-text": {"limit": "ten"},
            "before-text": {"before": "yesterday"}, "before-negative": {"before": "-5"},
        }.items()
    ],
    # ---- integration feed
    *[
        Case(f"feed-{name}", "GET", FEED, 400, "invalid_cursor", caller="service", params={"cursor": cursor})
        for name, cursor in {
            "cursor-garbage": "not-a-cursor", "cursor-symbols": "!!!%%%", "cursor-2KB": "A" * 2048,
            "cursor-number": "12",
            # Well-formed, but beyond the end of this server's feed: never issued here.
            "cursor-beyond-end": base64.urlsafe_b64encode(b"rf1.99999999").rstrip(b"=").decode(),
        }.items()
    ],
    *[
        Case(f"feed-{name}", "GET", FEED, 400, None, caller="service", params=params)
        for name, params in {
            "initialized-maybe": {"initialized": "maybe"}, "initialized-1": {"initialized": "1"},
            "wait-negative": {"wait": "-1"}, "wait-text": {"wait": "soon"}, "wait-fraction": {"wait": "0.5x"},
            "limit-0": {"limit": "0"}, "limit-negative": {"limit": "-3"}, "limit-text": {"limit": "many"},
        }.items()
    ],
    # ---- marking initialized
    Case("mark-other-env", "POST", MARK, 404, "unknown_realm", caller="service", json_body={"realm_path": "{other_realm}"}),
    Case("mark-dev-realm-as-other", "POST", MARK, 404, "unknown_realm", caller="other_service",
         json_body={"realm_path": "{worker_realm}"}),
    Case("mark-unknown", "POST", MARK, 404, "unknown_realm", caller="service", json_body={"realm_path": "/users/{unknown}"}),
    Case("mark-not-a-user-realm", "POST", MARK, {400, 404}, {"invalid_realm_path", "unknown_realm"}, caller="service",
         json_body={"realm_path": "/tasks"}),
    Case("mark-team-realm", "POST", MARK, {400, 404}, {"invalid_realm_path", "unknown_realm"}, caller="service",
         json_body={"realm_path": "/teams/{team}"}),
    *[
        Case(f"mark-path-{name}", "POST", MARK, 400, "invalid_realm_path", caller="service", json_body={"realm_path": path})
        for name, path in BAD_REALM_PATHS.items()
    ],
    Case("mark-pattern", "POST", MARK, 400, "invalid_realm_path", caller="service", json_body={"realm_path": "/users/*"}),
    Case("mark-not-json", "POST", MARK, 400, "invalid_request", caller="service", content=b"realm_path=/users/x",
         content_type="application/json"),
    Case("mark-no-path", "POST", MARK, 400, {"invalid_request", "invalid_realm_path"}, caller="service", json_body={}),
    Case("mark-path-number", "POST", MARK, 400, {"invalid_request", "invalid_realm_path"}, caller="service",
         json_body={"realm_path": 5}),
    Case("mark-json-array", "POST", MARK, 400, "invalid_request", caller="service", json_body=["/users/x"]),
]


def _fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        for key, replacement in values.items():
            value = value.replace("{" + key + "}", replacement)
        return value
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, values) for v in value]
    return value


def _token(ctx: Context, caller: str) -> str | None:
    return {"admin": ctx.admin.access_token, "service": ctx.service_token,
            "other_service": ctx.other_service_token, "none": None}[caller]


def assert_unchanged(server: FieldpassServer, ctx: Context, before: tuple[Any, int], what: str) -> None:
    state, audit = before
    assert observed_state(server, ctx) == state, f"{what} changed the store"
    assert audit_length(server, ctx.admin) == audit, f"{what} added to the audit log"


@pytest.mark.parametrize("case", [case.param() for case in CASES])
def test_bad_input_is_refused_and_changes_nothing(directory_server: FieldpassServer, ctx: Context, case: Case) -> None:
    server = directory_server
    headers = {"content-type": case.content_type} if case.content_type else None
    before = (observed_state(server, ctx), audit_length(server, ctx.admin))
    response = server.api(
        case.method, _fill(case.path, ctx.values), token=_token(ctx, case.caller),
        json_body=_fill(case.json_body, ctx.values), content=case.content,
        params=_fill(case.params, ctx.values), headers=headers,
    )
    statuses = case.status if isinstance(case.status, set) else {case.status}
    assert response.status_code in statuses, describe(response)
    assert_api_error(response, response.status_code, case.error)
    assert_unchanged(server, ctx, before, case.id)


# --------------------------------------------------------------------------- POST /token


TOKEN_CASES = [
    # id, form, basic auth, status, error
    ("wrong-secret", {"grant_type": "client_credentials"}, (DEV_BACKEND.id, "wrong"), 401, "invalid_client"),
    ("unknown-client", {"grant_type": "client_credentials"}, ("nobody", DEV_BACKEND.secret), 401, "invalid_client"),
    ("other-clients-secret", {"grant_type": "client_credentials"}, (DEV_BACKEND.id, OTHER_BACKEND.secret), 401, "invalid_client"),
    ("empty-secret", {"grant_type": "client_credentials"}, (DEV_BACKEND.id, ""), 401, "invalid_client"),
    ("no-client-auth", {"grant_type": "client_credentials"}, None, 401, "invalid_client"),
    ("unknown-grant", {"grant_type": "password", "username": "a", "password": "b"}, (DEV_BACKEND.id, DEV_BACKEND.secret),
     400, "unsupported_grant_type"),
    ("authorization-code-grant", {"grant_type": "authorization_code", "code": "x"}, None, 400, "unsupported_grant_type"),
    ("missing-grant", {}, (DEV_BACKEND.id, DEV_BACKEND.secret), 400, "invalid_request"),
    ("refresh-garbage", {"grant_type": "refresh_token", "refresh_token": "not-a-refresh-token"}, None, 400, "invalid_grant"),
    ("refresh-missing", {"grant_type": "refresh_token"}, None, 400, "invalid_request"),
    ("refresh-4KB", {"grant_type": "refresh_token", "refresh_token": "r" * 4096}, None, 400, {"invalid_grant", "invalid_request"}),
]


@pytest.mark.parametrize(("form", "auth", "status", "error"), [c[1:] for c in TOKEN_CASES], ids=[c[0] for c in TOKEN_CASES])
def test_bad_token_request_is_refused(
    directory_server: FieldpassServer, ctx: Context, form: dict[str, str], auth: tuple[str, str] | None,
    status: int, error: str | set[str],
) -> None:
    server = directory_server
    before = (observed_state(server, ctx), audit_length(server, ctx.admin))
    response = server.post_token(form, auth=auth)
    assert_api_error(response, status, error)
    if status == 401 and auth is not None:
        assert response.headers.get("www-authenticate", "").lower().startswith("basic"), describe(response)
    assert "access_token" not in response.text, describe(response)
    assert_unchanged(server, ctx, before, f"POST /token {form}")


def test_token_request_must_be_form_encoded(directory_server: FieldpassServer, ctx: Context) -> None:
    server = directory_server
    with http_client() as client:
        response = client.post(
            f"{server.public_url}/token", content=json.dumps({"grant_type": "client_credentials"}),
            headers={"content-type": "application/json"}, auth=(DEV_BACKEND.id, DEV_BACKEND.secret),
        )
    assert_api_error(response, 400, "invalid_request")


def test_me_without_or_with_a_bad_token(directory_server: FieldpassServer) -> None:
    server = directory_server
    response = server.api("GET", "/me")
    assert_api_error(response, 401)
    assert response.headers.get("www-authenticate", "").lower().startswith("bearer"), describe(response)
    for bad in ("abc", "a.b.c", ""):
        response = server.api("GET", "/me", headers={"authorization": f"Bearer {bad}".rstrip()})
        assert_api_error(response, 401, {"invalid_token"} if bad else None)
        assert "bearer" in response.headers.get("www-authenticate", "").lower(), describe(response)


# --------------------------------------------------------------------------- the check is real


def test_valid_changes_are_visible_to_the_checks(directory_server: FieldpassServer, ctx: Context) -> None:
    """What the cases above compare does change when a request is valid."""
    server = directory_server
    admin = ctx.admin.access_token
    values = ctx.values

    def changed(method: str, path: str, token: str, **kwargs: Any) -> None:
        before = (observed_state(server, ctx), audit_length(server, ctx.admin))
        response = server.api(method, path, token=token, **kwargs)
        assert response.status_code < 300, describe(response)
        assert observed_state(server, ctx) != before[0], f"{method} {path} changed nothing"

    changed("PUT", f"/admin/users/{values['worker']}/grants", admin, json_body={"realm_path": "/common", "access": "manage"})
    changed("DELETE", f"/admin/users/{values['worker']}/grants", admin, params={"realm_path": "/common"})
    before = audit_length(server, ctx.admin)
    changed("POST", "/admin/teams", admin, json_body={"name": f"East {uuid.uuid4().hex[:6]}"})
    assert audit_length(server, ctx.admin) == before + 1
    with IntegrationClient(server.public_url, OTHER_BACKEND.id, OTHER_BACKEND.secret) as other:
        other.authenticate()
        changed("POST", MARK, other.token, json_body={"realm_path": values["other_realm"]})
