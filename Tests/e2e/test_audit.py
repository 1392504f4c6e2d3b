"""The audit log (who, what, when, before, after; newest first; repeats log nothing) and
refresh-token rotation with reuse detection."""

from __future__ import annotations

import json
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest

from helpers import (
    DEV_BACKEND,
    FieldpassServer,
    SignedIn,
    admin_cli,
    assert_api_error,
    assert_json,
    audit_entries,
    cli_output,
    cli_users,
    describe,
    directory_view,
    sign_in,
    unique_email,
)



def new_entries(server: FieldpassServer, admin: SignedIn, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    known = {entry["id"] for entry in seen}
    return [entry for entry in audit_entries(server, admin) if entry["id"] not in known]


def assert_entry(entry: dict[str, Any], *, actor: str, target_contains: str) -> None:
    assert set(entry) >= {"id", "actor", "action", "target", "at"}, entry
    assert entry["actor"] == actor, entry
    assert isinstance(entry["action"], str) and entry["action"], entry
    assert target_contains in entry["target"], entry
    at = datetime.fromisoformat(entry["at"])
    assert at.tzinfo is not None and abs(at.timestamp() - time.time()) < 300, entry


def test_bootstrap_promotion_is_audited(directory_server: FieldpassServer, admin: SignedIn) -> None:
    entries = audit_entries(directory_server, admin)
    promotions = [e for e in entries if e["actor"] == "bootstrap" and admin.user_id in e["target"]]
    assert len(promotions) == 1, entries
    assert_entry(promotions[0], actor="bootstrap", target_contains=admin.user_id)
    assert promotions[0].get("after") == {"role": "admin"}, promotions[0]


def test_role_change_is_logged_once_with_before_and_after(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    worker = sign_in(server, unique_email())
    seen = audit_entries(server, admin)

    path = f"/admin/users/{worker.user_id}/role"
    assert assert_json(server.api("PUT", path, token=admin.access_token, json_body={"role": "manager"}))["role"] == "manager"
    added = new_entries(server, admin, seen)
    assert len(added) == 1, added
    entry = added[0]
    assert_entry(entry, actor=f"user:{admin.user_id}", target_contains=worker.user_id)
    assert entry.get("before") == {"role": "worker"} and entry.get("after") == {"role": "manager"}, entry
    assert all(entry["id"] > old["id"] for old in seen), (entry, seen[:3])
    assert audit_entries(server, admin)[0] == entry, "the newest entry does not come first"

    # The identical change again: answered, but nothing new in the log.
    seen = audit_entries(server, admin)
    assert assert_json(server.api("PUT", path, token=admin.access_token, json_body={"role": "manager"}))["role"] == "manager"
    assert new_entries(server, admin, seen) == [], "repeating an identical role change was logged again"


@pytest.mark.parametrize(
    "change",
    ["grant", "revoke", "add_member", "remove_member", "rename"],
)
def test_repeated_identical_changes_log_once(directory_server: FieldpassServer, admin: SignedIn, change: str) -> None:
    server = directory_server
    user_email = unique_email("member")
    server.register(user_email)
    (user_id,) = [u["id"] for u in assert_json(server.api("GET", "/admin/users", token=admin.access_token))["users"]
                  if u["email"] == user_email]
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token,
                                  json_body={"name": f"Audit {uuid.uuid4().hex[:8]}"}), 201)
    grants = f"/admin/users/{user_id}/grants"
    members = f"/admin/teams/{team['id']}/members/{user_id}"
    new_name = f"Renamed {uuid.uuid4().hex[:8]}"
    # Set up the state the change starts from.
    if change == "revoke":
        assert_json(server.api("PUT", grants, token=admin.access_token, json_body={"realm_path": "/tasks", "access": "read"}))
    if change == "remove_member":
        assert_json(server.api("PUT", members, token=admin.access_token))

    def act() -> None:
        token = admin.access_token
        response = {
            "grant": lambda: server.api("PUT", grants, token=token, json_body={"realm_path": "/tasks", "access": "read"}),
            "revoke": lambda: server.api("DELETE", grants, token=token, params={"realm_path": "/tasks"}),
            "add_member": lambda: server.api("PUT", members, token=token),
            "remove_member": lambda: server.api("DELETE", members, token=token),
            "rename": lambda: server.api("PATCH", f"/admin/teams/{team['id']}", token=token, json_body={"name": new_name}),
        }[change]()
        assert_json(response)

    seen = audit_entries(server, admin)
    act()
    first = new_entries(server, admin, seen)
    assert len(first) == 1, first
    target = user_id if change in ("grant", "revoke") else team["id"]
    assert_entry(first[0], actor=f"user:{admin.user_id}", target_contains=target)
    if change.endswith("member"):
        assert user_id in json.dumps(first[0]), f"the entry does not say who joined or left: {first[0]}"
    assert first[0].get("before") or first[0].get("after"), first[0]

    seen = audit_entries(server, admin)
    act()
    assert new_entries(server, admin, seen) == [], f"repeating {change} was logged again"


def test_team_creation_and_deletion_are_audited(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    seen = audit_entries(server, admin)
    name = f"Short-lived {uuid.uuid4().hex[:8]}"
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": name}), 201)
    response = server.api("DELETE", f"/admin/teams/{team['id']}", token=admin.access_token)
    assert response.status_code == 204, response.text
    added = new_entries(server, admin, seen)
    assert len(added) == 2, added
    deleted, created = added  # newest first
    for entry in added:
        assert_entry(entry, actor=f"user:{admin.user_id}", target_contains=team["id"])
    assert created.get("before") is None and created.get("after"), created
    assert deleted.get("after") is None and deleted.get("before"), deleted
    assert name in str(created["after"]) and name in str(deleted["before"]), added


def test_cli_grant_role_is_audited_as_cli(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email("promoted")
    seen = audit_entries(server, admin)
    result = server.grant_role(email, "manager")
    assert result.returncode == 0, cli_output(result)

    users = assert_json(server.api("GET", "/admin/users", token=admin.access_token))["users"]
    (user,) = [u for u in users if u["email"] == email]
    assert user["role"] == "manager", user
    added = new_entries(server, admin, seen)
    # Newest first: the CLI created the person it was given, then changed their role.
    assert [entry["action"] for entry in added] == ["user.role", "user.create"], added
    assert_entry(added[0], actor="cli", target_contains=user["id"])
    assert added[0].get("after") == {"role": "manager"}, added[0]
    assert added[1]["actor"] == "cli" and added[1].get("after") == {"email": email}, added[1]

    listing = server.cli("admin", "users", "--env", "dev", "--config", str(server.config_path))
    assert listing.returncode == 0, cli_output(listing)
    (line,) = [line for line in listing.stdout.splitlines() if email in line]
    assert "manager" in line and user["id"] in line, line

    seen = audit_entries(server, admin)
    again = server.grant_role(email, "manager")
    assert again.returncode == 0, cli_output(again)
    assert new_entries(server, admin, seen) == [], "repeating grant-role was logged again"


def test_cli_grant_role_refuses_bad_input(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    before = directory_view(server, admin.access_token), cli_users(server, "other")
    for email, role, env in (
        (unique_email(), "overlord", "dev"),
        (unique_email(), "manager", "nowhere"),
        (unique_email("x", "elsewhere.test"), "manager", "dev"),
        (unique_email(), "manager", "other"),  # a dev address is not one of `other`'s
        ("not-an-email", "manager", "dev"),
    ):
        result = server.grant_role(email, role, env)
        assert result.returncode != 0, cli_output(result)
        assert result.stderr.strip() or result.stdout.strip(), cli_output(result)
    assert (directory_view(server, admin.access_token), cli_users(server, "other")) == before, (
        "a refused grant-role changed the directory"
    )


def test_audit_log_pages_newest_first(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    for _ in range(3):
        assert_json(server.api("POST", "/admin/teams", token=admin.access_token,
                               json_body={"name": f"Page {uuid.uuid4().hex[:8]}"}), 201)
    everything = audit_entries(server, admin)
    assert len(everything) >= 5, everything

    pages: list[list[dict[str, Any]]] = []
    params = {"limit": "2"}
    while True:
        page = assert_json(server.api("GET", "/admin/audit", token=admin.access_token, params=params))
        assert len(page["entries"]) <= 2, page
        pages.append(page["entries"])
        if page.get("next_before") is None:
            break
        assert len(page["entries"]) == 2, page
        params = {"limit": "2", "before": str(page["next_before"])}
        assert len(pages) < 1000
    ids = [entry["id"] for page in pages for entry in page]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids), ids
    assert ids == [entry["id"] for entry in everything], "paging lost or repeated entries"


def device_activity(server: FieldpassServer, admin: SignedIn, device_id: str) -> list[tuple[str, str]]:
    """(actor, action) of the log's entries about one device, oldest first."""
    entries = [entry for entry in audit_entries(server, admin) if (entry.get("after") or {}).get("device_id") == device_id]
    return [(entry["actor"], entry["action"]) for entry in reversed(entries)]


def utc_day() -> int:
    return int(time.time() // 86_400)


def test_a_devices_creation_sign_ins_and_revocation_are_audited_and_its_refreshes_at_most_daily(
    directory_server: FieldpassServer, admin: SignedIn
) -> None:
    server = directory_server
    email = unique_email()
    van = {"name": "Van 12", "platform": "android", "install_id": uuid.uuid4().hex}
    day = utc_day()
    first = sign_in(server, email, van)
    device_id, actor = first.claims["device_id"], f"user:{first.user_id}"
    refresh_ok(server, refresh_ok(server, first.refresh_token)["refresh_token"])
    second = sign_in(server, email, van)
    assert second.claims["device_id"] == device_id
    (listed,) = admin_cli(server, "devices", email).splitlines()
    assert listed.split()[:4] == [device_id, "active", "android", "Van"], listed
    signed_out = server.api("DELETE", f"/me/devices/{device_id}", token=second.access_token)
    assert signed_out.status_code == 204, describe(signed_out)
    crossed_midnight = utc_day() != day

    activity = device_activity(server, admin, device_id)
    if crossed_midnight:
        # A refresh after midnight UTC is that day's first for the device: one entry at most.
        assert activity.count((actor, "token.refresh")) <= 1, activity
        activity = [entry for entry in activity if entry[1] != "token.refresh"]
    # Refreshed twice on the day of its sign-in: no entry for either.
    assert activity == [
        (actor, "device.create"), (actor, "device.sign_in"), (actor, "device.sign_in"), (actor, "device.revoke")
    ], activity
    (revoked,) = admin_cli(server, "devices", email).splitlines()
    assert revoked.split()[:2] == [device_id, "revoked"], revoked


def test_a_registered_device_that_never_signed_in_is_listed_as_registered_and_not_audited(
    directory_server: FieldpassServer, admin: SignedIn
) -> None:
    server = directory_server
    email = unique_email()
    sign_in(server, email)
    registered = server.register(email, {"name": "Spare", "platform": "ios", "install_id": uuid.uuid4().hex})
    assert registered.user_code
    states = {line.split()[1] for line in admin_cli(server, "devices", email).splitlines()}
    assert states == {"active", "registered"}, admin_cli(server, "devices", email)
    spare = next(line.split()[0] for line in admin_cli(server, "devices", email).splitlines() if "Spare" in line)
    assert device_activity(server, admin, spare) == []


# --------------------------------------------------------------------------- refresh tokens


def refresh_ok(server: FieldpassServer, token: str) -> dict[str, Any]:
    body = assert_json(server.refresh(token))
    assert body.get("refresh_token") and body["refresh_token"] != token, body
    return body


def test_refresh_token_reuse_revokes_the_devices_tokens(directory_server: FieldpassServer) -> None:
    server = directory_server
    email = unique_email()
    phone = sign_in(server, email, {"name": "Phone", "platform": "ios"})
    tablet = sign_in(server, email, {"name": "Tablet", "platform": "android"})
    assert phone.claims["device_id"] != tablet.claims["device_id"]

    first = phone.refresh_token
    second = refresh_ok(server, first)["refresh_token"]
    newest = refresh_ok(server, second)["refresh_token"]

    # A used refresh token comes back: refused, and the device's newest one dies with it.
    assert_api_error(server.refresh(first), 400, "invalid_grant")
    assert_api_error(server.refresh(newest), 400, "invalid_grant")
    assert_api_error(server.refresh(second), 400, "invalid_grant")

    # The same person's other device is not affected.
    body = refresh_ok(server, tablet.refresh_token)
    claims = server.verify_access_token(body["access_token"])
    assert claims["device_id"] == tablet.claims["device_id"], claims
    refresh_ok(server, body["refresh_token"])


def test_refresh_token_works_once(directory_server: FieldpassServer) -> None:
    server = directory_server
    device = sign_in(server, unique_email())
    # An access token is not a refresh token.
    assert_api_error(server.refresh(device.access_token), 400, {"invalid_grant", "invalid_request"})
    refreshed = refresh_ok(server, device.refresh_token)
    assert_api_error(server.refresh(device.refresh_token), 400, "invalid_grant")
    # That reuse also ended the rotated one.
    assert_api_error(server.refresh(refreshed["refresh_token"]), 400, "invalid_grant")


@pytest.mark.parametrize(
    ("secret", "status", "error"),
    [("wrong-secret", 401, "invalid_client"), (DEV_BACKEND.secret, 400, "invalid_grant")],
    ids=["failing-client-auth", "another-clients-token"],
)
def test_refresh_with_client_authentication_is_checked(
    directory_server: FieldpassServer, admin: SignedIn, secret: str, status: int, error: str
) -> None:
    """RFC 6749 section 6: the server must authenticate the client when the request includes
    client authentication, and ensure the refresh token was issued to that client. A device's
    refresh token presented with the backend's (wrong or right) credentials is refused, and
    the device keeps its token."""
    server = directory_server
    device = sign_in(server, unique_email())
    before = directory_view(server, admin.access_token, of_users=[device.user_id])
    response = server.post_token(
        {"grant_type": "refresh_token", "refresh_token": device.refresh_token}, auth=(DEV_BACKEND.id, secret)
    )
    assert_api_error(response, status, error)
    assert directory_view(server, admin.access_token, of_users=[device.user_id]) == before, (
        "a refused refresh changed the device or the directory"
    )
    refresh_ok(server, device.refresh_token)


# --------------------------------------------------------------------------- concurrency


def test_simultaneous_identical_changes_log_once(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = sign_in(server, unique_email())
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token,
                                  json_body={"name": f"Busy {uuid.uuid4().hex[:8]}"}), 201)
    requests = {
        "grant": ("PUT", f"/admin/users/{device.user_id}/grants", {"realm_path": "/tasks", "access": "write"}),
        "member": ("PUT", f"/admin/teams/{team['id']}/members/{device.user_id}", None),
        "role": ("PUT", f"/admin/users/{device.user_id}/role", {"role": "manager"}),
    }
    for what, (method, path, body) in requests.items():
        seen = audit_entries(server, admin)
        barrier = threading.Barrier(10)

        def call(_: int) -> int:
            barrier.wait(timeout=10)
            return server.api(method, path, token=admin.access_token, json_body=body).status_code

        with ThreadPoolExecutor(max_workers=10) as pool:
            statuses = list(pool.map(call, range(10)))
        assert statuses == [200] * 10, f"{what}: {statuses}"
        assert len(new_entries(server, admin, seen)) == 1, f"{what} at once was logged more than once"


def test_simultaneous_team_creation_with_one_name(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    name = f"Race {uuid.uuid4().hex[:8]}"
    barrier = threading.Barrier(10)

    def create(_: int):
        barrier.wait(timeout=10)
        return server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": name})

    with ThreadPoolExecutor(max_workers=10) as pool:
        responses = list(pool.map(create, range(10)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * 9, [describe(r) for r in responses if r.status_code not in (201, 409)] or statuses
    for response in responses:
        if response.status_code == 409:
            assert_api_error(response, 409, "team_name_taken")
    teams = assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"]
    assert [t["name"] for t in teams].count(name) == 1, teams
