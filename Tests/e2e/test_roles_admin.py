"""Roles, teams and explicit grants, as the next refreshed token and GET /me show them.

Tokens are verified from the JWKS alone (PyJWT), as a sync server would.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any


from helpers import (
    ACCESS_TOKEN_TTL,
    ADMIN_EMAIL,
    OTHER_ADMIN_EMAIL,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    SignedIn,
    assert_api_error,
    assert_json,
    describe,
    sign_in,
    start_server,
    unique_email,
)

ADMIN_REALMS = {"/common": "manage", "/tasks": "manage", "/teams/*": "manage", "/users/*": "manage"}
MANAGER_BASE = {"/common": "write", "/tasks": "write", "/teams/*": "write"}


def manager_realms(user_id: str) -> dict[str, str]:
    """A manager writes the team realms and their own personal realm, as every role does."""
    return MANAGER_BASE | {f"/users/{user_id}": "write"}


def worker_realms(user_id: str, *team_ids: str) -> dict[str, str]:
    return {
        "/common": "write",
        f"/users/{user_id}": "write",
        **{f"/teams/{team_id}": "write" for team_id in team_ids},
    }



class Device:
    """A signed-in device that refreshes its token like the app would (rotating refresh tokens)."""

    def __init__(self, server: FieldpassServer, signed_in: SignedIn) -> None:
        self.server = server
        self.signed_in = signed_in
        self.refresh_token = signed_in.refresh_token
        self.access_token = signed_in.access_token

    @property
    def user_id(self) -> str:
        return self.signed_in.user_id

    def refresh(self) -> dict[str, Any]:
        """Refresh; returns the new token's verified claims."""
        response = self.server.refresh(self.refresh_token)
        body = assert_json(response)
        assert "no-store" in response.headers.get("cache-control", ""), response.headers
        assert body.get("token_type") == "Bearer" and body.get("expires_in") == ACCESS_TOKEN_TTL, body
        new_refresh = body.get("refresh_token")
        assert isinstance(new_refresh, str) and len(new_refresh) >= 20, body
        assert new_refresh != self.refresh_token, "the refresh token was not rotated"
        self.refresh_token, self.access_token = new_refresh, body["access_token"]
        claims = self.server.verify_access_token(self.access_token)
        first = self.signed_in.claims
        for stable in ("sub", "email", "env", "device_id"):
            assert claims[stable] == first[stable], (stable, claims, first)
        assert claims["jti"] != first["jti"], claims
        return claims

    def me(self) -> dict[str, Any]:
        return assert_json(self.server.api("GET", "/me", token=self.access_token))


def admin_call(server: FieldpassServer, admin: SignedIn, method: str, path: str, body: Any = None,
               status: int = 200) -> Any:
    response = server.api(method, path, token=admin.access_token, json_body=body)
    if status == 204:
        assert response.status_code == 204, describe(response)
        return None
    return assert_json(response, status)


def create_team(server: FieldpassServer, admin: SignedIn, name: str | None = None) -> dict[str, Any]:
    name = name or f"North {uuid.uuid4().hex[:8]}"
    team = admin_call(server, admin, "POST", "/admin/teams", {"name": name}, status=201)
    assert team.get("name") == name and team.get("members") == [], team
    assert isinstance(team.get("id"), str) and team["id"] and team.get("created_at"), team
    return team


# --------------------------------------------------------------------------- roles


def test_bootstrap_admin_is_admin_from_the_first_sign_in(directory_server: FieldpassServer, admin: SignedIn) -> None:
    assert admin.claims["role"] == "admin", admin.claims
    assert admin.claims["realms"] == ADMIN_REALMS, admin.claims

    me = assert_json(directory_server.api("GET", "/me", token=admin.access_token))
    assert me["role"] == "admin", me
    assert me["user"]["id"] == admin.user_id and me["user"]["email"] == ADMIN_EMAIL, me
    assert me["user"]["role"] == "admin" and me["user"]["environment_id"] == "dev", me
    assert me["user"].get("created_at"), me
    assert me["teams"] == [] and me["realms"] == ADMIN_REALMS, me


def test_me_shows_a_workers_user_teams_and_realms(directory_server: FieldpassServer) -> None:
    worker = sign_in(directory_server, unique_email())
    me = assert_json(directory_server.api("GET", "/me", token=worker.access_token))
    assert set(me) >= {"user", "role", "teams", "realms"}, me
    assert set(me["user"]) >= {"id", "email", "role", "environment_id", "created_at"}, me
    assert me["user"]["id"] == worker.user_id and me["user"]["email"] == worker.email, me
    assert me["role"] == "worker" == me["user"]["role"], me
    assert me["teams"] == [], me
    assert me["realms"] == worker_realms(worker.user_id) == worker.claims["realms"], me


def test_role_change_shows_in_the_next_token(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = Device(server, sign_in(server, unique_email()))
    assert device.signed_in.claims["role"] == "worker"
    assert device.signed_in.claims["realms"] == worker_realms(device.user_id)

    user = admin_call(server, admin, "PUT", f"/admin/users/{device.user_id}/role", {"role": "manager"})
    assert user["id"] == device.user_id and user["role"] == "manager", user
    assert user["email"] == device.signed_in.email and user["environment_id"] == "dev", user

    claims = device.refresh()
    assert claims["role"] == "manager", claims
    assert claims["realms"] == manager_realms(device.user_id), claims
    me = device.me()
    assert me["role"] == "manager" and me["realms"] == manager_realms(device.user_id), me

    admin_call(server, admin, "PUT", f"/admin/users/{device.user_id}/role", {"role": "admin"})
    claims = device.refresh()
    assert claims["role"] == "admin" and claims["realms"] == ADMIN_REALMS, claims

    admin_call(server, admin, "PUT", f"/admin/users/{device.user_id}/role", {"role": "worker"})
    claims = device.refresh()
    assert claims["role"] == "worker", claims
    assert claims["realms"] == worker_realms(device.user_id), claims


def test_cli_grant_role_before_first_sign_in(directory_server: FieldpassServer) -> None:
    email = unique_email("lead")
    result = directory_server.grant_role(email, "manager")
    assert result.returncode == 0, result.stderr
    signed_in = sign_in(directory_server, email)
    assert signed_in.claims["role"] == "manager", signed_in.claims
    assert signed_in.claims["realms"] == manager_realms(signed_in.user_id), signed_in.claims


def test_cli_grant_role_shows_in_the_next_refresh(directory_server: FieldpassServer) -> None:
    device = Device(directory_server, sign_in(directory_server, unique_email()))
    result = directory_server.grant_role(device.signed_in.email, "admin")
    assert result.returncode == 0, result.stderr
    claims = device.refresh()
    assert claims["role"] == "admin" and claims["realms"] == ADMIN_REALMS, claims


# --------------------------------------------------------------------------- teams and grants


def test_team_membership_shows_in_the_next_token(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = Device(server, sign_in(server, unique_email()))
    team = create_team(server, admin)
    team_path = f"/teams/{team['id']}"

    added = admin_call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{device.user_id}")
    assert added["id"] == team["id"] and added["members"] == [device.user_id], added
    again = admin_call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{device.user_id}")
    assert again["members"] == [device.user_id], f"adding twice is not idempotent: {again}"

    claims = device.refresh()
    assert claims["realms"].get(team_path) == "write", claims
    assert claims["realms"] == worker_realms(device.user_id, team["id"]), claims
    me = device.me()
    assert me["teams"] == [{"id": team["id"], "name": team["name"]}], me
    permissions = admin_call(server, admin, "GET", f"/admin/users/{device.user_id}/permissions")
    assert permissions["user_id"] == device.user_id and permissions["teams"] == [team["id"]], permissions
    assert permissions["realms"] == claims["realms"] and permissions["grants"] == {}, permissions

    removed = admin_call(server, admin, "DELETE", f"/admin/teams/{team['id']}/members/{device.user_id}")
    assert removed["members"] == [], removed
    again = admin_call(server, admin, "DELETE", f"/admin/teams/{team['id']}/members/{device.user_id}")
    assert again["members"] == [], f"removing twice is not idempotent: {again}"

    claims = device.refresh()
    assert team_path not in claims["realms"], claims
    assert claims["realms"] == worker_realms(device.user_id), claims
    assert device.me()["teams"] == []


def test_deleting_a_team_removes_its_realm(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = Device(server, sign_in(server, unique_email()))
    keep, drop = create_team(server, admin), create_team(server, admin)
    for team in (keep, drop):
        admin_call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{device.user_id}")
    assert device.refresh()["realms"] == worker_realms(device.user_id, keep["id"], drop["id"])

    admin_call(server, admin, "DELETE", f"/admin/teams/{drop['id']}", status=204)
    assert_api_error(server.api("GET", f"/admin/teams/{drop['id']}", token=admin.access_token), 404, "unknown_team")
    listed = admin_call(server, admin, "GET", "/admin/teams")["teams"]
    assert drop["id"] not in [t["id"] for t in listed] and keep["id"] in [t["id"] for t in listed], listed

    claims = device.refresh()
    assert claims["realms"] == worker_realms(device.user_id, keep["id"]), claims
    assert device.me()["teams"] == [{"id": keep["id"], "name": keep["name"]}]


def test_renaming_a_team_shows_in_me(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = Device(server, sign_in(server, unique_email()))
    team = create_team(server, admin)
    admin_call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{device.user_id}")
    new_name = f"South {uuid.uuid4().hex[:8]}"
    renamed = admin_call(server, admin, "PATCH", f"/admin/teams/{team['id']}", {"name": new_name})
    assert renamed["id"] == team["id"] and renamed["name"] == new_name, renamed
    assert renamed["members"] == [device.user_id], renamed
    assert admin_call(server, admin, "GET", f"/admin/teams/{team['id']}")["name"] == new_name
    assert device.me()["teams"] == [{"id": team["id"], "name": new_name}]


def test_explicit_grants_add_and_the_highest_level_wins(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = Device(server, sign_in(server, unique_email()))
    base = worker_realms(device.user_id)
    grants_path = f"/admin/users/{device.user_id}/grants"

    def grant(path: str, access: str) -> dict[str, Any]:
        body = admin_call(server, admin, "PUT", grants_path, {"realm_path": path, "access": access})
        assert body["user_id"] == device.user_id and body["grants"].get(path) == access, body
        return body

    def revoke(path: str) -> dict[str, Any]:
        response = server.api("DELETE", grants_path, token=admin.access_token, params={"realm_path": path})
        body = assert_json(response)
        assert path not in body["grants"], body
        return body

    body = grant("/tasks", "read")
    assert body["realms"] == {**base, "/tasks": "read"}, body
    assert device.refresh()["realms"] == {**base, "/tasks": "read"}

    # Lower than the role's level: the role's write stays; higher: the grant wins.
    body = grant("/common", "read")
    assert body["realms"]["/common"] == "write", body
    assert device.refresh()["realms"]["/common"] == "write"
    body = grant("/common", "manage")
    assert body["realms"]["/common"] == "manage", body
    assert device.refresh()["realms"]["/common"] == "manage"

    # A pattern grant.
    body = grant("/teams/*", "read")
    assert device.refresh()["realms"] == {**base, "/tasks": "read", "/common": "manage", "/teams/*": "read"}
    assert body["grants"] == {"/tasks": "read", "/common": "manage", "/teams/*": "read"}, body

    body = revoke("/tasks")
    assert "/tasks" not in body["realms"], body
    assert "/tasks" not in device.refresh()["realms"]
    revoke("/tasks")  # idempotent
    revoke("/common")
    body = revoke("/teams/*")
    assert body["grants"] == {} and body["realms"] == base, body
    assert device.refresh()["realms"] == base
    assert device.me()["realms"] == base


def test_roles_table_from_config_overrides_the_defaults(
    fieldpass_bin: Path, idp, tmp_path: Path
) -> None:
    roles = {
        "worker": ["/common=read", "/teams/{team_id}=read", "/users/{user_id}=write"],
        "manager": ["/common=write", "/tasks=read"],
        "admin": ["/common=manage", "/tasks=manage", "/teams/*=manage", "/users/*=manage"],
    }
    server = start_server(fieldpass_bin, idp, tmp_path, environments=DIRECTORY_ENVIRONMENTS, roles=roles)
    try:
        admin = sign_in(server, ADMIN_EMAIL)
        device = Device(server, sign_in(server, unique_email()))
        own = f"/users/{device.user_id}"
        assert device.signed_in.claims["realms"] == {"/common": "read", own: "write"}

        team = create_team(server, admin)
        admin_call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{device.user_id}")
        assert device.refresh()["realms"] == {"/common": "read", own: "write", f"/teams/{team['id']}": "read"}

        admin_call(server, admin, "PUT", f"/admin/users/{device.user_id}/grants", {"realm_path": "/common", "access": "write"})
        assert device.refresh()["realms"]["/common"] == "write"

        admin_call(server, admin, "DELETE", f"/admin/teams/{team['id']}/members/{device.user_id}")
        admin_call(server, admin, "PUT", f"/admin/users/{device.user_id}/role", {"role": "manager"})
        claims = device.refresh()
        assert claims["role"] == "manager", claims
        assert claims["realms"] == {"/common": "write", "/tasks": "read"}, claims
    finally:
        server.stop()


def test_bootstrap_admin_is_promoted_only_at_the_first_sign_in(directory_server: FieldpassServer) -> None:
    """Uses the other environment's bootstrap admin; demoted later, signing in again does
    not make them admin again."""
    server = directory_server
    first = sign_in(server, OTHER_ADMIN_EMAIL)
    assert first.claims["role"] == "admin" and first.claims["env"] == "other", first.claims
    result = server.grant_role(OTHER_ADMIN_EMAIL, "worker", env="other")
    assert result.returncode == 0, result.stderr
    again = sign_in(server, OTHER_ADMIN_EMAIL, {"name": "Second phone", "platform": "ios"})
    assert again.user_id == first.user_id
    assert again.claims["role"] == "worker", again.claims
    assert again.claims["realms"] == worker_realms(again.user_id), again.claims
    assert_api_error(server.api("GET", "/admin/users", token=again.access_token), 403)
