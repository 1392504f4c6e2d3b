"""Devices and offboarding.

People see and revoke their own devices; admins revoke devices, disable and enable users
(through the API and the CLI). Revoking or disabling stops the refresh tokens and the
still-valid access tokens at once. Bad input is refused and changes nothing.

Runs against `directory_server` (per module: `dev` with admin@example.com, `other` with
admin@other.test).
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime
from typing import Any

import httpx
import pytest

from helpers import (
    OTHER_ADMIN_EMAIL,
    FieldpassServer,
    SignedIn,
    assert_api_error,
    admin_cli,
    assert_json,
    cli_output,
    directory_view,
    sign_in,
    unique_email,
)
from identity_flows import (
    assert_sign_in_refused,
    audit_ids,
    call,
    idp_users,
    new_entry,
    sign_in_as,
    user_record,
)

PHONE = {"name": "Pixel 8", "platform": "android"}
TABLET = {"name": "Galaxy Tab S9", "platform": "android"}
UNKNOWN_ID = str(uuid.uuid4())


# --------------------------------------------------------------------------- fixtures


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


# --------------------------------------------------------------------------- the API


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


def test_unknown_or_foreign_device_is_404(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    mine, theirs = sign_in(server, unique_email()), sign_in(server, unique_email())
    before = store_state(server, admin, mine.user_id, theirs.user_id)

    foreign = server.api("DELETE", f"/me/devices/{device_id(theirs)}", token=mine.access_token)
    unknown = server.api("DELETE", f"/me/devices/{UNKNOWN_ID}", token=mine.access_token)

    assert_api_error(foreign, 404, "unknown_device")
    assert_api_error(unknown, 404, "unknown_device")
    assert store_state(server, admin, mine.user_id, theirs.user_id) == before
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
    directory_server: FieldpassServer, admin: SignedIn, manager: SignedIn, caller: str, action: str,
) -> None:
    server = directory_server
    target = sign_in(server, unique_email())
    token = manager.access_token if caller == "manager" else sign_in(server, unique_email()).access_token
    before = store_state(server, admin, target.user_id)

    response = server.api("POST", f"/admin/users/{target.user_id}/{action}", token=token)

    assert_api_error(response, 403)
    assert store_state(server, admin, target.user_id) == before
    assert_refresh_works(server, target.refresh_token)


def test_an_admin_cannot_disable_themselves(directory_server: FieldpassServer) -> None:
    server = directory_server
    boss = signed_in_with_role(server, "admin")
    before = store_state(server, boss, boss.user_id)

    response = server.api("POST", f"/admin/users/{boss.user_id}/disable", token=boss.access_token)

    assert_api_error(response, 409, "cannot_disable_self")
    assert store_state(server, boss, boss.user_id) == before
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
    directory_server: FieldpassServer, admin: SignedIn, other_admin: SignedIn, method: str, path: str,
    error: str | set[str],
) -> None:
    server = directory_server
    target = sign_in(server, unique_email())
    before = store_state(server, admin, target.user_id), store_state(server, other_admin)

    response = server.api(
        method, path.format(user=target.user_id, device=device_id(target)), token=other_admin.access_token
    )

    assert_api_error(response, 404, error)
    assert (store_state(server, admin, target.user_id), store_state(server, other_admin)) == before
    assert_refresh_works(server, target.refresh_token)


# --------------------------------------------------------------------------- the CLI


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


def store_state(server: FieldpassServer, admin: SignedIn, *user_ids: str) -> dict[str, Any]:
    """What dev's admin sees of the directory, with the devices and permissions of `user_ids`."""
    return directory_view(server, admin.access_token, of_users=user_ids)


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
# A method a path does not take is refused (405 method_not_allowed, with `Allow`), as on every route.
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
    ("me-devices-post", "worker", "POST", "/me/devices", 405, "method_not_allowed"),
    ("me-devices-delete-all", "worker", "DELETE", "/me/devices", 405, "method_not_allowed"),
    ("me-device-get", "worker", "GET", "/me/devices/{worker_device}", 405, "method_not_allowed"),
    ("me-device-put", "worker", "PUT", "/me/devices/{worker_device}", 405, "method_not_allowed"),
    ("user-devices-post", "admin", "POST", "/admin/users/{worker}/devices", 405, "method_not_allowed"),
    ("user-device-patch", "admin", "PATCH", "/admin/users/{worker}/devices/{worker_device}", 405, "method_not_allowed"),
    ("disable-get", "admin", "GET", "/admin/users/{worker}/disable", 405, "method_not_allowed"),
    ("enable-delete", "admin", "DELETE", "/admin/users/{worker}/enable", 405, "method_not_allowed"),
    ("identity-get", "admin", "GET", "/admin/users/{worker}/identity", 405, "method_not_allowed"),
    ("identity-put", "admin", "PUT", "/admin/users/{worker}/identity", 405, "method_not_allowed"),
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
    directory_server: FieldpassServer, admin: SignedIn, targets: dict[str, str],
    caller: str, method: str, path: str, status: int, error: str | set[str] | None,
) -> None:
    server = directory_server
    token = {"worker": targets["worker_token"], "admin": targets["admin_token"], "none": None}[caller]
    before = store_state(server, admin, targets["worker"], admin.user_id)

    response: httpx.Response = server.api(method, path.format_map(targets), token=token)

    assert_api_error(response, status, error)
    assert store_state(server, admin, targets["worker"], admin.user_id) == before
