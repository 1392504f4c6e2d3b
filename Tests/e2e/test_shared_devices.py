"""Shared devices (a van's tablet): an admin, or a team's manager, enrolls one and is shown a
one-time code; the device redeems it with a DPoP proof made here with `cryptography` and
PyJWT, as an app would, and its key becomes the device's identity.

A worker and another environment's admin are refused; a manager looks after his teams'
devices only; a code works once and only before `shared_devices.enrollment_ttl`; every
refusal of a code is the same `invalid_grant`; the audit log names who did what.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from helpers import (
    ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, OTHER_ADMIN_EMAIL, FieldpassServer, MockIdP, SignedIn, assert_api_error, assert_json,
    cli_output, describe, http_client, sign_in, start_server, unique_email,
)
from helpers.dpop import DeviceKey

ENROLLMENT_TTL = 4


@pytest.fixture(scope="module")
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-shared-devices"),
        {"SHARED_DEVICES_ENROLLMENT_TTL": str(ENROLLMENT_TTL)}, environments=DIRECTORY_ENVIRONMENTS,
    )
    yield server
    server.stop()


@pytest.fixture(scope="module")
def admin(server: FieldpassServer) -> SignedIn:
    return sign_in(server, ADMIN_EMAIL)


def call(server: FieldpassServer, who: SignedIn | str, method: str, path: str, body: Any = None) -> httpx.Response:
    """`who` calls with their access token (or with this token)."""
    token = who if isinstance(who, str) else who.access_token
    return server.api(method, path, token=token, json_body=body)


def create(server: FieldpassServer, who: SignedIn | str, name: str, team_id: str | None = None) -> dict[str, Any]:
    body = {"name": name} | ({"team_id": team_id} if team_id else {})
    created = assert_json(call(server, who, "POST", "/admin/shared_devices", body), 201)
    assert set(created) == {"device_id", "name", "team_id", "enrollment_code", "enrollment_expires_at"} - (
        set() if team_id else {"team_id"}), created
    assert created["name"] == name and created.get("team_id") == team_id, created
    return created


def enroll(server: FieldpassServer, code: str, key: DeviceKey | None) -> httpx.Response:
    url = f"{server.public_url}/shared_devices/enroll"
    headers = {"DPoP": key.proof("POST", url)} if key else {}
    with http_client() as client:
        return client.post(f"{server.url}/shared_devices/enroll", json={"enrollment_code": code}, headers=headers)


def manager_of_a_team(server: FieldpassServer, admin: SignedIn) -> tuple[str, str]:
    """The access token of a person the admin made manager and member of a new team, which
    says so, and the team's id."""
    person = sign_in(server, unique_email("manager"))
    assert_json(call(server, admin, "PUT", f"/admin/users/{person.user_id}/role", {"role": "manager"}))
    team = assert_json(call(server, admin, "POST", "/admin/teams", {"name": f"Crew {person.user_id[:8]}"}), 201)
    assert_json(call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{person.user_id}", None))
    return assert_json(server.refresh(person.refresh_token))["access_token"], team["id"]


def test_an_admin_enrolls_a_device_and_its_key_becomes_its_identity(server: FieldpassServer, admin: SignedIn) -> None:
    created = create(server, admin, "Van 12")
    code = created["enrollment_code"]
    assert len(code) == 24 and code.count("-") == 4, created
    device = assert_json(call(server, admin, "GET", f"/admin/shared_devices/{created['device_id']}"))
    assert device["state"] == "awaiting_enrollment" and "key_thumbprint" not in device, device
    assert "enrollment_code" not in device and code not in str(assert_json(call(server, admin, "GET", "/admin/shared_devices")))

    key = DeviceKey()
    # As typed from the console: lower case and spaces do not matter.
    enrolled = assert_json(enroll(server, code.lower().replace("-", " "), key))
    assert enrolled == {"device_id": created["device_id"], "environment": "dev"}, enrolled
    device = assert_json(call(server, admin, "GET", f"/admin/shared_devices/{created['device_id']}"))
    assert device["state"] == "enrolled" and device["key_thumbprint"] == key.thumbprint, device
    assert device["enrolled_at"] >= device["created_at"], device

    audit = assert_json(call(server, admin, "GET", "/admin/audit", None))["entries"]
    actions = [(entry["action"], entry["actor"]) for entry in audit if entry["target"] == f"shared_device:{created['device_id']}"]
    assert ("shared_device.create", f"user:{admin.user_id}") in actions, audit[:5]
    assert ("shared_device.enroll", f"shared_device:{created['device_id']}") in actions, audit[:5]


def test_a_code_works_once_and_every_refusal_is_the_same(server: FieldpassServer, admin: SignedIn) -> None:
    code = create(server, admin, "Van 13")["enrollment_code"]
    # No proof: refused as DPoP, and the code still works afterwards.
    assert_api_error(enroll(server, code, None), 400, "invalid_dpop_proof")
    first_key = DeviceKey()
    assert_json(enroll(server, code, first_key))
    refusals = {
        "used": enroll(server, code, DeviceKey()),
        "unknown": enroll(server, "BCDF-GHJK-LMNP-QRST-VWXZ", DeviceKey()),
        "junk": enroll(server, "not a code at all", DeviceKey()),
        # A key enrolls one device, ever: a second code does not give it a second identity.
        "key in use": enroll(server, create(server, admin, "Van 14")["enrollment_code"], first_key),
    }
    for what, response in refusals.items():
        body = assert_api_error(response, 400, "invalid_grant")
        assert body["error_description"] == "The enrollment code is wrong, used or expired.", (what, body)
    malformed = httpx.post(f"{server.url}/shared_devices/enroll", content=b"{not json", headers={"content-type": "application/json"})
    assert_api_error(malformed, 400, "invalid_request")


def test_a_proof_enrolls_once(server: FieldpassServer, admin: SignedIn) -> None:
    first, second = create(server, admin, "Van 15")["enrollment_code"], create(server, admin, "Van 16")["enrollment_code"]
    key = DeviceKey()
    proof = key.proof("POST", f"{server.public_url}/shared_devices/enroll")
    with http_client() as client:
        taken = client.post(f"{server.url}/shared_devices/enroll", json={"enrollment_code": first}, headers={"DPoP": proof})
        replayed = client.post(f"{server.url}/shared_devices/enroll", json={"enrollment_code": second}, headers={"DPoP": proof})
    assert_json(taken)
    assert_api_error(replayed, 400, "invalid_dpop_proof")


def test_a_code_expires(server: FieldpassServer, admin: SignedIn) -> None:
    code = create(server, admin, "Van 17")["enrollment_code"]
    time.sleep(ENROLLMENT_TTL + 0.5)
    assert_api_error(enroll(server, code, DeviceKey()), 400, "invalid_grant")


def test_a_manager_looks_after_his_teams_devices_only(server: FieldpassServer, admin: SignedIn) -> None:
    manager, team = manager_of_a_team(server, admin)
    _, other_team = manager_of_a_team(server, admin)
    his = create(server, manager, "Depot phone", team)
    theirs = create(server, admin, "Night van", other_team)
    assert_api_error(call(server, manager, "POST", "/admin/shared_devices", {"name": "X", "team_id": other_team}), 403, "forbidden")
    assert_api_error(call(server, manager, "POST", "/admin/shared_devices", {"name": "No team"}), 403, "forbidden")

    listed = assert_json(call(server, manager, "GET", "/admin/shared_devices"))["shared_devices"]
    assert [device["device_id"] for device in listed] == [his["device_id"]], listed
    assert_api_error(call(server, manager, "GET", f"/admin/shared_devices/{theirs['device_id']}"), 404, "unknown_device")
    assert_api_error(call(server, manager, "DELETE", f"/admin/shared_devices/{theirs['device_id']}"), 404, "unknown_device")
    assert assert_json(call(server, admin, "GET", f"/admin/shared_devices/{theirs['device_id']}"))["state"] == "awaiting_enrollment"

    response = call(server, manager, "DELETE", f"/admin/shared_devices/{his['device_id']}")
    assert response.status_code == 204, describe(response)
    assert assert_json(call(server, manager, "GET", f"/admin/shared_devices/{his['device_id']}"))["state"] == "unenrolled"
    # An unenrolled device's code is refused like any other.
    assert_api_error(enroll(server, his["enrollment_code"], DeviceKey()), 400, "invalid_grant")


def test_a_worker_and_another_environments_admin_are_refused(server: FieldpassServer, admin: SignedIn) -> None:
    device = create(server, admin, "Van 18")
    worker = sign_in(server, unique_email())
    assert_api_error(call(server, worker, "POST", "/admin/shared_devices", {"name": "Mine"}), 403, "forbidden")
    assert_api_error(call(server, worker, "GET", "/admin/shared_devices"), 403, "forbidden")

    stranger = sign_in(server, OTHER_ADMIN_EMAIL)
    assert assert_json(call(server, stranger, "GET", "/admin/shared_devices"))["shared_devices"] == []
    for method in ("GET", "DELETE"):
        assert_api_error(call(server, stranger, method, f"/admin/shared_devices/{device['device_id']}"), 404, "unknown_device")
    assert assert_json(call(server, admin, "GET", f"/admin/shared_devices/{device['device_id']}"))["state"] == "awaiting_enrollment"
    # Another environment's admin cannot put a device in a team of this one.
    team = assert_json(call(server, admin, "POST", "/admin/teams", {"name": "Day crew"}), 201)
    assert_api_error(call(server, stranger, "POST", "/admin/shared_devices", {"name": "X", "team_id": team["id"]}), 404, "unknown_team")


def test_a_name_in_use_is_refused_until_its_device_is_unenrolled(server: FieldpassServer, admin: SignedIn) -> None:
    created = create(server, admin, "Van 40")
    before = assert_json(call(server, admin, "GET", "/admin/shared_devices"))["shared_devices"]
    # The same form sent twice, or the name in another case, while its code works.
    for name in ("Van 40", "VAN 40"):
        body = assert_api_error(call(server, admin, "POST", "/admin/shared_devices", {"name": name}), 409, "shared_device_name_taken")
        assert "unenroll" in body["error_description"], body
    assert_json(enroll(server, created["enrollment_code"], DeviceKey()))
    assert_api_error(call(server, admin, "POST", "/admin/shared_devices", {"name": "Van 40"}), 409, "shared_device_name_taken")
    refused = shared_devices_cli(server, "enroll", "--name", "van 40")
    assert refused.returncode == 1 and "shared device named \"van 40\" is enrolled, or awaits enrollment" in refused.stderr, cli_output(refused)
    after = assert_json(call(server, admin, "GET", "/admin/shared_devices"))["shared_devices"]
    assert [d["device_id"] for d in after] == [d["device_id"] for d in before], after
    # Another environment has names of its own; an unenrolled device frees its name.
    create(server, sign_in(server, OTHER_ADMIN_EMAIL), "Van 40")
    response = call(server, admin, "DELETE", f"/admin/shared_devices/{created['device_id']}")
    assert response.status_code == 204, describe(response)
    create(server, admin, "Van 40")


def test_bad_input_is_refused_and_changes_nothing(server: FieldpassServer, admin: SignedIn) -> None:
    before = assert_json(call(server, admin, "GET", "/admin/shared_devices"))["shared_devices"]
    for body in ({}, {"name": ""}, {"name": "x" * 101}, {"name": 12}, {"name": "ok", "team_id": 5}, {"name": "bell\u0007"}):
        response = call(server, admin, "POST", "/admin/shared_devices", body)
        assert response.status_code == 400, (body, describe(response))
    assert assert_json(call(server, admin, "GET", "/admin/shared_devices"))["shared_devices"] == before


def shared_devices_cli(server: FieldpassServer, *args: str) -> subprocess.CompletedProcess[str]:
    """`fieldpass shared-devices ARGS` on the server's configuration, in environment dev."""
    return server.cli("shared-devices", *args, "--env", "dev", "--config", str(server.config_path))


def test_the_cli_enrolls_and_lists_shared_devices(server: FieldpassServer, admin: SignedIn) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return shared_devices_cli(server, *args)

    enrolled = cli("enroll", "--name", "Van 20")
    assert enrolled.returncode == 0, cli_output(enrolled)
    match = re.search(r"^Van 20 \(([0-9a-f-]+)\) awaits enrollment until \S+\.\nEnrollment code, shown this once: (\S+)$", enrolled.stdout.strip(), re.M)
    assert match, cli_output(enrolled)
    device_id, code = match.groups()
    key = DeviceKey()
    assert assert_json(enroll(server, code, key)) == {"device_id": device_id, "environment": "dev"}

    listed = cli("list")
    assert listed.returncode == 0, cli_output(listed)
    assert f"{device_id}  enrolled             Van 20" in listed.stdout.splitlines(), cli_output(listed)
    audit = assert_json(call(server, admin, "GET", "/admin/audit", None))["entries"]
    assert any(entry["action"] == "shared_device.create" and entry["actor"] == "cli" and entry["target"] == f"shared_device:{device_id}"
               for entry in audit), audit[:5]

    refused = cli("enroll", "--name", "Van 21", "--team", "no-such-team")
    assert refused.returncode != 0 and "no team no-such-team in environment 'dev'" in refused.stderr, cli_output(refused)


def test_the_cli_names_teams_and_unenrolls_a_device(server: FieldpassServer, admin: SignedIn) -> None:
    team_name = f"Depot {unique_email('t')[:8]}"
    team = assert_json(call(server, admin, "POST", "/admin/teams", {"name": team_name}), 201)
    # The team as an admin knows it: by its name, in any case.
    enrolled = shared_devices_cli(server, "enroll", "--name", "Van 30", "--team", team_name.upper())
    assert enrolled.returncode == 0, cli_output(enrolled)
    match = re.search(rf"^Van 30 \(([0-9a-f-]+)\) of team {re.escape(team_name)} awaits enrollment until \S+\.$", enrolled.stdout, re.M)
    assert match, cli_output(enrolled)
    device_id = match.group(1)
    code = enrolled.stdout.strip().splitlines()[-1].split()[-1]
    key = DeviceKey()
    assert_json(enroll(server, code, key))
    listed = shared_devices_cli(server, "list")
    assert f"{device_id}  enrolled             Van 30  (team {team_name})" in listed.stdout.splitlines(), cli_output(listed)
    assert team["id"] not in listed.stdout, cli_output(listed)

    unenrolled = shared_devices_cli(server, "unenroll", device_id)
    assert unenrolled.returncode == 0, cli_output(unenrolled)
    assert unenrolled.stdout == f"Unenrolled Van 30 ({device_id}): its key is refused from then on.\n", cli_output(unenrolled)
    assert assert_json(call(server, admin, "GET", f"/admin/shared_devices/{device_id}"))["state"] == "unenrolled"
    url = f"{server.public_url}/shared_devices/events"
    with http_client() as client:
        refused = client.get(f"{server.url}/shared_devices/events", headers={"DPoP": key.proof("GET", url)})
    assert_api_error(refused, 403, "shared_device_refused")
    audit = assert_json(call(server, admin, "GET", "/admin/audit", None))["entries"]
    assert any(entry["action"] == "shared_device.unenroll" and entry["actor"] == "cli" and entry["target"] == f"shared_device:{device_id}"
               for entry in audit), audit[:5]

    again = shared_devices_cli(server, "unenroll", device_id)
    assert again.returncode == 0 and again.stdout.startswith(f"Van 30 ({device_id}) was unenrolled already, at "), cli_output(again)
    unknown = shared_devices_cli(server, "unenroll", "no-such-device")
    assert unknown.returncode != 0 and "no shared device no-such-device in environment 'dev'" in unknown.stderr, cli_output(unknown)
