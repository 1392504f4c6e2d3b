"""Identity binding, email verification, devices and offboarding.

The first sign-in binds a user to the IdP's (issuer, sub); another sub with the same email
is refused until an admin resets the binding. People see and revoke their own devices; admins
revoke devices, disable and enable users (through the API and the CLI). Revoking or disabling
stops the refresh tokens and the still-valid access tokens at once.

Runs against `directory_server` (per module: `dev` with admin@example.com, `other` with
admin@other.test), and a server of its own that requires `email_verified`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import (
    ADMIN_EMAIL,
    DIRECTORY_TABLES,
    OTHER_ADMIN_EMAIL,
    FieldpassServer,
    MockIdP,
    SignedIn,
    assert_api_error,
    assert_event,
    assert_json,
    browser_login,
    cli_output,
    describe,
    is_html,
    receive,
    receive_until_close,
    sign_in,
    start_server,
    unique_email,
    ws_connect,
)

PHONE = {"name": "Pixel 8", "platform": "android"}
TABLET = {"name": "Galaxy Tab S9", "platform": "android"}
UNKNOWN_ID = str(uuid.uuid4())


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def admin(directory_server: FieldpassServer) -> SignedIn:
    """dev's bootstrap admin (the API checks the stored role, which is admin from now on)."""
    return sign_in(directory_server, ADMIN_EMAIL)


@pytest.fixture(scope="module")
def other_admin(directory_server: FieldpassServer) -> SignedIn:
    return sign_in(directory_server, OTHER_ADMIN_EMAIL)


def signed_in_with_role(server: FieldpassServer, role: str) -> SignedIn:
    email = unique_email(role)
    result = server.grant_role(email, role)
    assert result.returncode == 0, cli_output(result)
    return sign_in(server, email)


@pytest.fixture(scope="module")
def manager(directory_server: FieldpassServer) -> SignedIn:
    return signed_in_with_role(directory_server, "manager")


@pytest.fixture(scope="module")
def strict_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """`idp.require_email_verified: true` for dev."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-strict"),
        {"ENVIRONMENTS_DEV_IDP_REQUIRE_EMAIL_VERIFIED": "true"},
    )
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------- signing in


def sign_in_as(server: FieldpassServer, email: str, sub: str, device: Mapping[str, Any] | None = None) -> SignedIn:
    """Register `email` and sign in at the IdP as `sub`; the socket gets its token."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, sub)
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    claims = server.verify_access_token(token_event["access_token"])
    assert claims["email"] == email, claims
    return SignedIn(email, registration, token_event, claims, realm_event["realm_path"])


def refused_sign_in(
    server: FieldpassServer, email: str, sub: str | None = None, *, callback_statuses: set[int] | None = None,
) -> dict[str, Any]:
    """Register (201) and sign in as `sub`; the socket gets login_failed only, then closes.
    Returns that event."""
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, sub or email)
        got = receive_until_close(ws)
    statuses = callback_statuses or {200, *range(400, 500)}
    assert callback.status_code in statuses and is_html(callback), describe(callback)
    assert got.types == ["login_failed"] and got.seqs == [1], got
    assert got.closed, f"socket not closed after login_failed: {got}"
    return got.events[0]


def assert_sign_in_refused(server: FieldpassServer, email: str, error: str, sub: str | None = None, **kwargs: Any) -> None:
    event = refused_sign_in(server, email, sub, **kwargs)
    assert event.get("error") == error, event
    assert isinstance(event.get("error_description"), str) and event["error_description"], event


# --------------------------------------------------------------------------- the API


def call(server: FieldpassServer, token: str | None, method: str, path: str, status: int = 200) -> Any:
    response = server.api(method, path, token=token)
    if status == 204:
        assert response.status_code == 204, describe(response)
        return None
    return assert_json(response, status)


def user_record(server: FieldpassServer, admin: SignedIn, user_id: str) -> dict[str, Any]:
    return call(server, admin.access_token, "GET", f"/admin/users/{user_id}")


def devices_by_id(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    assert isinstance(body.get("devices"), list), body
    for device in body["devices"]:
        assert_device_shape(device)
    return {device["id"]: device for device in body["devices"]}


def assert_device_shape(device: dict[str, Any]) -> None:
    assert set(device) >= {"id", "name", "platform", "created_at", "last_seen_at", "active", "current"}, device
    assert isinstance(device["active"], bool) and isinstance(device["current"], bool), device
    for key in ("created_at", "last_seen_at"):
        at = datetime.fromisoformat(device[key])
        assert at.tzinfo is not None and abs(at.timestamp() - time.time()) < 600, device
    if device["active"]:
        assert "revoked_at" not in device, device
    else:
        assert datetime.fromisoformat(device["revoked_at"]).tzinfo is not None, device


def my_devices(server: FieldpassServer, signed_in: SignedIn | str) -> dict[str, dict[str, Any]]:
    token = signed_in if isinstance(signed_in, str) else signed_in.access_token
    return devices_by_id(call(server, token, "GET", "/me/devices"))


def user_devices(server: FieldpassServer, token: str, user_id: str) -> dict[str, dict[str, Any]]:
    return devices_by_id(call(server, token, "GET", f"/admin/users/{user_id}/devices"))


def device_id(signed_in: SignedIn) -> str:
    return signed_in.claims["device_id"]


def assert_refresh_works(server: FieldpassServer, refresh_token: str) -> None:
    body = assert_json(server.refresh(refresh_token))
    assert body.get("access_token") and body.get("refresh_token"), body


def assert_refresh_refused(server: FieldpassServer, refresh_token: str) -> None:
    assert_api_error(server.refresh(refresh_token), 400, "invalid_grant")


def assert_access_refused(server: FieldpassServer, access_token: str, error: str | None = None) -> None:
    assert_api_error(server.api("GET", "/me", token=access_token), 401, error)


# --------------------------------------------------------------------------- the audit log


def audit_entries(server: FieldpassServer, admin: SignedIn) -> list[dict[str, Any]]:
    """The whole log, newest first."""
    entries: list[dict[str, Any]] = []
    params = {"limit": "100"}
    for _ in range(1000):
        page = assert_json(server.api("GET", "/admin/audit", token=admin.access_token, params=params))
        entries += page["entries"]
        if page.get("next_before") is None:
            return entries
        params = {"limit": "100", "before": str(page["next_before"])}
    pytest.fail("the audit log did not end after 1000 pages")


def audit_ids(server: FieldpassServer, admin: SignedIn) -> set[int]:
    return {entry["id"] for entry in audit_entries(server, admin)}


def new_entry(server: FieldpassServer, admin: SignedIn, seen: set[int], action: str, target: str) -> dict[str, Any]:
    """The one entry with `action` about `target` logged since `seen`."""
    added = [entry for entry in audit_entries(server, admin) if entry["id"] not in seen]
    matching = [entry for entry in added if entry["action"] == action and target in json.dumps(entry)]
    assert len(matching) == 1, f"expected one {action} entry about {target}, new entries: {added}"
    return matching[0]


# --------------------------------------------------------------------------- identity binding


def idp_users(server: FieldpassServer, email: str, count: int) -> list[str]:
    """`count` IdP subjects that all carry `email` as their email claim."""
    subs = [f"sub-{uuid.uuid4().hex}" for _ in range(count)]
    for sub in subs:
        server.idp.set_user(sub, {"email": email})
    return subs


def test_first_sign_in_binds_the_idp_identity(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    (sub,) = idp_users(server, email, 1)
    server.register(email)
    ((user_id,),) = server.query("SELECT id FROM users WHERE email = ?", email)
    unbound = user_record(server, admin, user_id)

    signed_in = sign_in_as(server, email, sub)
    bound = user_record(server, admin, signed_in.user_id)

    assert "idp_subject" not in unbound and "idp_issuer" not in unbound and unbound.get("disabled") is False, unbound
    assert signed_in.user_id == user_id
    assert bound.get("idp_issuer") == server.idp.issuer and bound.get("idp_subject") == sub, bound
    assert bound.get("disabled") is False, bound


def test_another_subject_with_the_same_email_is_refused(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    sub_a, sub_b = idp_users(server, email, 2)
    first = sign_in_as(server, email, sub_a)
    seen = audit_ids(server, admin)
    tokens_before = server.query("SELECT COUNT(*) FROM refresh_tokens WHERE user_id = ?", first.user_id)

    assert_sign_in_refused(server, email, "identity_mismatch", sub_b, callback_statuses={400})

    assert server.query("SELECT COUNT(*) FROM refresh_tokens WHERE user_id = ?", first.user_id) == tokens_before
    assert user_record(server, admin, first.user_id).get("idp_subject") == sub_a
    entry = new_entry(server, admin, seen, "identity.mismatch", first.user_id)
    assert entry["actor"] == "idp" and entry["target"] == f"user:{first.user_id}", entry
    assert entry.get("before") == {"issuer": server.idp.issuer, "subject": sub_a}, entry
    assert entry.get("after") == {"issuer": server.idp.issuer, "subject": sub_b}, entry


def test_reset_identity_lets_the_next_sign_in_bind_anew(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    sub_a, sub_b = idp_users(server, email, 2)
    first = sign_in_as(server, email, sub_a)
    seen = audit_ids(server, admin)

    call(server, admin.access_token, "DELETE", f"/admin/users/{first.user_id}/identity", 204)
    reset = user_record(server, admin, first.user_id)
    second = sign_in_as(server, email, sub_b)

    assert "idp_subject" not in reset and "idp_issuer" not in reset, reset
    entry = new_entry(server, admin, seen, "identity.reset", first.user_id)
    assert entry["actor"] == f"user:{admin.user_id}", entry
    assert second.user_id == first.user_id, (second.claims, first.claims)
    assert user_record(server, admin, first.user_id).get("idp_subject") == sub_b
    assert_sign_in_refused(server, email, "identity_mismatch", sub_a, callback_statuses={400})


# --------------------------------------------------------------------------- email_verified


VERIFICATION_CASES = {
    # id: (server fixture, email_verified claim or None for absent, expected error or None)
    "required-absent": ("strict_server", None, "email_not_verified"),
    "required-false": ("strict_server", False, "email_not_verified"),
    "required-true": ("strict_server", True, None),
    "default-absent": ("directory_server", None, None),
    "default-false": ("directory_server", False, "email_not_verified"),
}


@pytest.mark.parametrize(("server_name", "verified", "error"), VERIFICATION_CASES.values(), ids=VERIFICATION_CASES.keys())
def test_email_verified_claim(request: pytest.FixtureRequest, server_name: str, verified: bool | None, error: str | None) -> None:
    server: FieldpassServer = request.getfixturevalue(server_name)
    email = unique_email()
    claims = {"email": email} if verified is None else {"email": email, "email_verified": verified}
    server.idp.set_user(email, claims)

    if error is None:
        assert sign_in_as(server, email, email).claims["email"] == email
    else:
        assert_sign_in_refused(server, email, error)


# --------------------------------------------------------------------------- own devices


def two_devices(server: FieldpassServer) -> tuple[SignedIn, SignedIn]:
    email = unique_email()
    return sign_in(server, email, PHONE), sign_in(server, email, TABLET)


def test_me_devices_lists_every_device_and_marks_the_callers(directory_server: FieldpassServer) -> None:
    phone, tablet = two_devices(directory_server)

    seen_by_phone = my_devices(directory_server, phone)
    seen_by_tablet = my_devices(directory_server, tablet)

    assert device_id(phone) != device_id(tablet)
    assert set(seen_by_phone) == {device_id(phone), device_id(tablet)}, seen_by_phone
    listed = seen_by_phone[device_id(phone)]
    assert (listed["name"], listed["platform"], listed["active"]) == (PHONE["name"], PHONE["platform"], True), listed
    assert seen_by_phone[device_id(tablet)]["name"] == TABLET["name"], seen_by_phone
    assert [d["current"] for d in (seen_by_phone[device_id(phone)], seen_by_phone[device_id(tablet)])] == [True, False]
    assert [d["current"] for d in (seen_by_tablet[device_id(phone)], seen_by_tablet[device_id(tablet)])] == [False, True]


def test_revoking_another_own_device_stops_it(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    phone, tablet = two_devices(server)
    seen = audit_ids(server, admin)

    call(server, phone.access_token, "DELETE", f"/me/devices/{device_id(tablet)}", 204)

    assert_refresh_refused(server, tablet.refresh_token)
    assert_access_refused(server, tablet.access_token)
    assert_refresh_works(server, phone.refresh_token)
    revoked = my_devices(server, phone)[device_id(tablet)]
    assert revoked["active"] is False and revoked.get("revoked_at"), revoked
    assert my_devices(server, phone)[device_id(phone)]["active"] is True
    entry = new_entry(server, admin, seen, "device.revoke", device_id(tablet))
    assert entry["actor"] == f"user:{phone.user_id}", entry
    call(server, phone.access_token, "DELETE", f"/me/devices/{device_id(tablet)}", 204)  # repeating is fine


def test_unknown_or_foreign_device_is_404(directory_server: FieldpassServer) -> None:
    server = directory_server
    mine, theirs = sign_in(server, unique_email()), sign_in(server, unique_email())
    before = store_state(server)

    foreign = server.api("DELETE", f"/me/devices/{device_id(theirs)}", token=mine.access_token)
    unknown = server.api("DELETE", f"/me/devices/{UNKNOWN_ID}", token=mine.access_token)

    assert_api_error(foreign, 404, "unknown_device")
    assert_api_error(unknown, 404, "unknown_device")
    assert store_state(server) == before
    assert_refresh_works(server, theirs.refresh_token)


def test_registering_a_revoked_devices_name_again_makes_a_new_device(directory_server: FieldpassServer) -> None:
    server = directory_server
    phone, tablet = two_devices(server)
    call(server, phone.access_token, "DELETE", f"/me/devices/{device_id(tablet)}", 204)

    again = sign_in(server, tablet.email, TABLET)

    assert device_id(again) != device_id(tablet), again.claims
    devices = my_devices(server, again)
    assert devices[device_id(tablet)]["active"] is False, devices
    assert devices[device_id(again)]["active"] is True and devices[device_id(again)]["current"] is True, devices
    assert (devices[device_id(again)]["name"], devices[device_id(again)]["platform"]) == (TABLET["name"], TABLET["platform"])
    assert_refresh_works(server, again.refresh_token)


# --------------------------------------------------------------------------- admin: devices


def test_admin_lists_and_revokes_a_users_device(
    directory_server: FieldpassServer, admin: SignedIn, manager: SignedIn,
) -> None:
    server = directory_server
    phone, tablet = two_devices(server)
    path = f"/admin/users/{phone.user_id}/devices"
    listed_by_admin = user_devices(server, admin.access_token, phone.user_id)
    listed_by_manager = user_devices(server, manager.access_token, phone.user_id)
    manager_delete = server.api("DELETE", f"{path}/{device_id(tablet)}", token=manager.access_token)
    seen = audit_ids(server, admin)

    call(server, admin.access_token, "DELETE", f"{path}/{device_id(tablet)}", 204)

    assert set(listed_by_admin) == {device_id(phone), device_id(tablet)} == set(listed_by_manager), listed_by_admin
    assert not any(d["current"] for d in listed_by_admin.values()), listed_by_admin
    assert_api_error(manager_delete, 403)
    assert_refresh_refused(server, tablet.refresh_token)
    assert_access_refused(server, tablet.access_token)
    assert_refresh_works(server, phone.refresh_token)
    assert user_devices(server, admin.access_token, phone.user_id)[device_id(tablet)]["active"] is False
    entry = new_entry(server, admin, seen, "device.revoke", device_id(tablet))
    assert entry["actor"] == f"user:{admin.user_id}", entry


# --------------------------------------------------------------------------- admin: disable and enable


def set_disabled(server: FieldpassServer, admin: SignedIn, user_id: str, disabled: bool) -> dict[str, Any]:
    action = "disable" if disabled else "enable"
    user = call(server, admin.access_token, "POST", f"/admin/users/{user_id}/{action}")
    assert user.get("id") == user_id and user.get("disabled") is disabled, user
    return user


def test_disabling_a_user_cuts_off_every_device_and_sign_in(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    phone, tablet = two_devices(server)
    seen = audit_ids(server, admin)

    set_disabled(server, admin, phone.user_id, True)

    for device in (phone, tablet):
        assert_refresh_refused(server, device.refresh_token)
        assert_access_refused(server, device.access_token, "invalid_token")
    assert not any(d["active"] for d in user_devices(server, admin.access_token, phone.user_id).values())
    assert user_record(server, admin, phone.user_id).get("disabled") is True
    assert_sign_in_refused(server, phone.email, "user_disabled")
    entry = new_entry(server, admin, seen, "user.disable", phone.user_id)
    assert entry["actor"] == f"user:{admin.user_id}", entry


def test_enabling_a_user_allows_a_new_onboarding(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    old = sign_in(server, unique_email(), PHONE)
    set_disabled(server, admin, old.user_id, True)
    seen = audit_ids(server, admin)

    set_disabled(server, admin, old.user_id, False)
    new = sign_in(server, old.email, PHONE)

    assert new.user_id == old.user_id and device_id(new) != device_id(old), (new.claims, old.claims)
    assert_json(server.api("GET", "/me", token=new.access_token))
    assert_access_refused(server, old.access_token, "invalid_token")
    assert_refresh_refused(server, old.refresh_token)
    devices = user_devices(server, admin.access_token, old.user_id)
    assert devices[device_id(old)]["active"] is False and devices[device_id(new)]["active"] is True, devices
    entry = new_entry(server, admin, seen, "user.enable", old.user_id)
    assert entry["actor"] == f"user:{admin.user_id}", entry


@pytest.mark.parametrize("caller", ["manager", "worker"])
@pytest.mark.parametrize("action", ["disable", "enable"])
def test_only_admins_may_disable_or_enable(
    directory_server: FieldpassServer, manager: SignedIn, caller: str, action: str,
) -> None:
    server = directory_server
    target = sign_in(server, unique_email())
    token = manager.access_token if caller == "manager" else sign_in(server, unique_email()).access_token
    before = store_state(server)

    response = server.api("POST", f"/admin/users/{target.user_id}/{action}", token=token)

    assert_api_error(response, 403)
    assert store_state(server) == before
    assert_refresh_works(server, target.refresh_token)


def test_an_admin_cannot_disable_themselves(directory_server: FieldpassServer) -> None:
    server = directory_server
    boss = signed_in_with_role(server, "admin")
    before = store_state(server)

    response = server.api("POST", f"/admin/users/{boss.user_id}/disable", token=boss.access_token)

    assert_api_error(response, 409, "cannot_disable_self")
    assert store_state(server) == before
    assert_json(server.api("GET", "/admin/users", token=boss.access_token))


# Another environment's user is unknown, whatever follows in the path.
OTHER_ENV_CALLS = [
    ("GET", "/admin/users/{user}/devices", "unknown_user"),
    ("DELETE", "/admin/users/{user}/devices/{device}", "unknown_user"),
    ("POST", "/admin/users/{user}/disable", "unknown_user"),
    ("POST", "/admin/users/{user}/enable", "unknown_user"),
    ("DELETE", "/admin/users/{user}/identity", "unknown_user"),
]


@pytest.mark.parametrize(("method", "path", "error"), OTHER_ENV_CALLS, ids=[f"{m} {p}" for m, p, _ in OTHER_ENV_CALLS])
def test_other_environments_admin_gets_404(
    directory_server: FieldpassServer, other_admin: SignedIn, method: str, path: str, error: str | set[str],
) -> None:
    server = directory_server
    target = sign_in(server, unique_email())
    before = store_state(server)

    response = server.api(
        method, path.format(user=target.user_id, device=device_id(target)), token=other_admin.access_token
    )

    assert_api_error(response, 404, error)
    assert store_state(server) == before
    assert_refresh_works(server, target.refresh_token)


# --------------------------------------------------------------------------- the CLI


def admin_cli(server: FieldpassServer, *args: str) -> str:
    """`fieldpass admin ARGS --env dev --config PATH`; must succeed; returns its stdout."""
    result = server.cli("admin", *args, "--env", "dev", "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)
    return result.stdout


def test_cli_lists_and_revokes_devices(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    phone, tablet = two_devices(server)

    listed = admin_cli(server, "devices", phone.email)
    admin_cli(server, "revoke-device", phone.email, device_id(tablet))

    assert device_id(phone) in listed and device_id(tablet) in listed, listed
    assert_refresh_refused(server, tablet.refresh_token)
    assert_refresh_works(server, phone.refresh_token)
    assert user_devices(server, admin.access_token, phone.user_id)[device_id(tablet)]["active"] is False


def test_cli_disables_and_enables(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    device = sign_in(server, unique_email())

    admin_cli(server, "disable", device.email)
    disabled = user_record(server, admin, device.user_id)
    refused_refresh = server.refresh(device.refresh_token)
    admin_cli(server, "enable", device.email)

    assert disabled.get("disabled") is True, disabled
    assert_api_error(refused_refresh, 400, "invalid_grant")
    assert user_record(server, admin, device.user_id).get("disabled") is False
    assert sign_in(server, device.email).user_id == device.user_id


def test_cli_resets_the_identity(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    sub_a, sub_b = idp_users(server, email, 2)
    first = sign_in_as(server, email, sub_a)

    admin_cli(server, "reset-identity", email)

    assert "idp_subject" not in user_record(server, admin, first.user_id)
    assert sign_in_as(server, email, sub_b).user_id == first.user_id


# --------------------------------------------------------------------------- bad input


def store_state(server: FieldpassServer) -> tuple[Any, ...]:
    """Every directory row and every device (without last_seen_at, which use may move)."""
    devices = server.query(
        "SELECT id, user_id, name, platform, created_at, revoked_at FROM devices ORDER BY id"
    )
    users = server.query("SELECT id, idp_issuer, idp_subject, disabled_at FROM users ORDER BY id")
    return server.snapshot(DIRECTORY_TABLES), devices, users


@pytest.fixture(scope="module")
def targets(directory_server: FieldpassServer, admin: SignedIn) -> dict[str, str]:
    worker = sign_in(directory_server, unique_email())
    return {
        "worker": worker.user_id,
        "worker_device": device_id(worker),
        "admin_device": device_id(admin),
        "worker_token": worker.access_token,
        "admin_token": admin.access_token,
        "unknown": UNKNOWN_ID,
    }


# (id, caller, method, path, status, error); caller: worker | admin | none.
# A method a path does not take is an unknown endpoint (404 not_found), as on every route.
BAD_INPUT = [
    ("me-device-garbage", "worker", "DELETE", "/me/devices/not-a-device", 404, "unknown_device"),
    ("me-device-1KB", "worker", "DELETE", "/me/devices/" + "d" * 1024, 404, "unknown_device"),
    ("me-device-quote", "worker", "DELETE", "/me/devices/%27%20OR%201%3D1--", 404, "unknown_device"),
    ("me-device-user-id", "worker", "DELETE", "/me/devices/{worker}", 404, "unknown_device"),
    ("user-devices-garbage", "admin", "GET", "/admin/users/not-a-user/devices", 404, "unknown_user"),
    ("user-devices-unknown", "admin", "GET", "/admin/users/{unknown}/devices", 404, "unknown_user"),
    ("user-device-garbage", "admin", "DELETE", "/admin/users/{worker}/devices/not-a-device", 404, "unknown_device"),
    ("user-device-unknown", "admin", "DELETE", "/admin/users/{worker}/devices/{unknown}", 404, "unknown_device"),
    ("user-device-of-another", "admin", "DELETE", "/admin/users/{worker}/devices/{admin_device}", 404, "unknown_device"),
    ("user-device-unknown-user", "admin", "DELETE", "/admin/users/{unknown}/devices/{worker_device}", 404, "unknown_user"),
    ("disable-garbage", "admin", "POST", "/admin/users/not-a-user/disable", 404, "unknown_user"),
    ("disable-unknown", "admin", "POST", "/admin/users/{unknown}/disable", 404, "unknown_user"),
    ("enable-1KB", "admin", "POST", "/admin/users/" + "u" * 1024 + "/enable", 404, "unknown_user"),
    ("identity-unknown", "admin", "DELETE", "/admin/users/{unknown}/identity", 404, "unknown_user"),
    ("identity-device-id", "admin", "DELETE", "/admin/users/{worker_device}/identity", 404, "unknown_user"),
    ("me-devices-post", "worker", "POST", "/me/devices", 404, "not_found"),
    ("me-devices-delete-all", "worker", "DELETE", "/me/devices", 404, "not_found"),
    ("me-device-get", "worker", "GET", "/me/devices/{worker_device}", 404, "not_found"),
    ("me-device-put", "worker", "PUT", "/me/devices/{worker_device}", 404, "not_found"),
    ("user-devices-post", "admin", "POST", "/admin/users/{worker}/devices", 404, "not_found"),
    ("user-device-patch", "admin", "PATCH", "/admin/users/{worker}/devices/{worker_device}", 404, "not_found"),
    ("disable-get", "admin", "GET", "/admin/users/{worker}/disable", 404, "not_found"),
    ("enable-delete", "admin", "DELETE", "/admin/users/{worker}/enable", 404, "not_found"),
    ("identity-get", "admin", "GET", "/admin/users/{worker}/identity", 404, "not_found"),
    ("identity-put", "admin", "PUT", "/admin/users/{worker}/identity", 404, "not_found"),
    ("anon-me-devices", "none", "GET", "/me/devices", 401, None),
    ("anon-me-device-delete", "none", "DELETE", "/me/devices/{worker_device}", 401, None),
    ("anon-user-devices", "none", "GET", "/admin/users/{worker}/devices", 401, None),
    ("anon-user-device-delete", "none", "DELETE", "/admin/users/{worker}/devices/{worker_device}", 401, None),
    ("anon-disable", "none", "POST", "/admin/users/{worker}/disable", 401, None),
    ("anon-enable", "none", "POST", "/admin/users/{worker}/enable", 401, None),
    ("anon-identity", "none", "DELETE", "/admin/users/{worker}/identity", 401, None),
]


@pytest.mark.parametrize(("caller", "method", "path", "status", "error"), [c[1:] for c in BAD_INPUT],
                         ids=[c[0] for c in BAD_INPUT])
def test_bad_input_is_refused_and_changes_nothing(
    directory_server: FieldpassServer, targets: dict[str, str],
    caller: str, method: str, path: str, status: int, error: str | set[str] | None,
) -> None:
    server = directory_server
    token = {"worker": targets["worker_token"], "admin": targets["admin_token"], "none": None}[caller]
    before = store_state(server)

    response: httpx.Response = server.api(method, path.format_map(targets), token=token)

    assert_api_error(response, status, error)
    assert store_state(server) == before
