"""Shifts on shared devices: a worker who signs in on an enrolled van tablet (the
registration proven by the tablet's key) starts a shift; the shift ends when the worker
signs out, the next worker signs in, an admin or the team's manager ends it, the worker is
disabled, the device is unenrolled, or a time limit passes; and with it every token of the
shift stops at once.

The tablet's key and proofs are made here with `cryptography` and PyJWT, as an app would;
workers sign in at the real IdP (the first in Chromium). Every app on the tablet follows the
shifts through `GET /shared_devices/events`, and the backend through the lifecycle feed.
"""

from __future__ import annotations

import re
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By

from helpers import (
    ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, Browser, Cluster, EventsReader, FieldpassServer, MockIdP, SignedIn, assert_api_error,
    assert_json, cli_output, http_client, sign_in, start_cluster, start_server, unique_email, wait_until,
)
from helpers.dpop import DeviceKey, token_hash
from console_flows import console_sign_in
from oauth_flows import introspection
from test_dpop import bound_sign_in

MAX_SHIFT = 8
IDLE_TIMEOUT = 4


@pytest.fixture(scope="module")
def admin(directory_server: FieldpassServer) -> SignedIn:
    return sign_in(directory_server, ADMIN_EMAIL)


@dataclass
class Tablet:
    """An enrolled shared device: its id and its key."""

    device_id: str
    key: DeviceKey

    def proof(self, server: FieldpassServer, method: str, path: str, **claims: Any) -> str:
        return self.key.proof(method, f"{server.public_url}{path}", **claims)


def enrolled_tablet(server: FieldpassServer, admin: SignedIn | str, team_id: str | None = None, name: str | None = None) -> Tablet:
    """A tablet enrolled by `admin` (or this token), named `name` or a name no other has: a
    name enrolled already is refused."""
    token = admin if isinstance(admin, str) else admin.access_token
    body = {"name": name or f"Van {uuid.uuid4().hex[:12]}"} | ({"team_id": team_id} if team_id else {})
    created = assert_json(server.api("POST", "/admin/shared_devices", token=token, json_body=body), 201)
    key = DeviceKey()
    url = f"{server.public_url}/shared_devices/enroll"
    with http_client() as client:
        response = client.post(
            f"{server.url}/shared_devices/enroll", json={"enrollment_code": created["enrollment_code"]},
            headers={"DPoP": key.proof("POST", url)})
    assert_json(response)
    return Tablet(created["device_id"], key)


def shift_sign_in(server: FieldpassServer, tablet: Tablet, email: str) -> SignedIn:
    """`email` signs in on the tablet at the IdP: the registration carries the tablet's proof."""
    return sign_in(server, email, headers={"DPoP": tablet.proof(server, "POST", "/register_device")})


def events(server: FieldpassServer, tablet: Tablet, after: int = 0, wait: int | None = None) -> httpx.Response:
    query = {"after": str(after)} | ({"wait": str(wait)} if wait is not None else {})
    with http_client(timeout=40) as client:
        return client.get(
            f"{server.url}/shared_devices/events", params=query,
            headers={"DPoP": tablet.proof(server, "GET", "/shared_devices/events")})


def poll_while(
    server: FieldpassServer, tablet: Tablet, after: int, meanwhile: Callable[[], None],
) -> tuple[httpx.Response, float]:
    """The answer to a 20 s long-poll of the tablet's events during which `meanwhile()` ran, a
    second after the poll was sent, and how many seconds the poll took."""
    started = time.monotonic()
    with http_client(timeout=40) as client:
        waiting = client.build_request(
            "GET", f"{server.url}/shared_devices/events", params={"after": str(after), "wait": "20"},
            headers={"DPoP": tablet.proof(server, "GET", "/shared_devices/events")})
        answer: dict[str, httpx.Response] = {}
        thread = threading.Thread(target=lambda: answer.setdefault("r", client.send(waiting)))
        thread.start()
        time.sleep(1)
        meanwhile()
        thread.join(30)
    return answer["r"], time.monotonic() - started


def shift_events(server: FieldpassServer, tablet: Tablet, after: int = 0) -> list[tuple[str, str, str | None]]:
    """(type, email, reason) of the tablet's events after `after`."""
    body = assert_json(events(server, tablet, after))
    return [(event["type"], event["email"], event.get("reason")) for event in body["events"]]


def sign_out(server: FieldpassServer, tablet: Tablet) -> httpx.Response:
    with http_client() as client:
        return client.delete(
            f"{server.url}/shared_devices/shift", headers={"DPoP": tablet.proof(server, "DELETE", "/shared_devices/shift")})


def current_shift(server: FieldpassServer, tablet: Tablet) -> dict[str, Any] | None:
    """Who holds the tablet, as the tablet asks."""
    with http_client() as client:
        response = client.get(
            f"{server.url}/shared_devices/shift", headers={"DPoP": tablet.proof(server, "GET", "/shared_devices/shift")})
    return assert_json(response)["shift"]


def refresh(server: FieldpassServer, refresh_token: str, tablet: Tablet) -> httpx.Response:
    with http_client() as client:
        return client.post(
            f"{server.url}/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token},
            headers={"DPoP": tablet.proof(server, "POST", "/token")})


def me(server: FieldpassServer, access_token: str, tablet: Tablet) -> httpx.Response:
    proof = tablet.proof(server, "GET", "/me", ath=token_hash(access_token))
    with http_client() as client:
        return client.get(f"{server.url}/me", headers={"Authorization": f"DPoP {access_token}", "DPoP": proof})


def assert_shift_over(server: FieldpassServer, worker: SignedIn, tablet: Tablet) -> None:
    """Every token of the worker's shift is refused: refresh, introspection, `/me`."""
    assert_api_error(refresh(server, worker.refresh_token, tablet), 400, "invalid_grant")
    assert introspection(server, worker.access_token) == {"active": False}
    assert me(server, worker.access_token, tablet).status_code == 401


def holder(server: FieldpassServer, admin: SignedIn, tablet: Tablet) -> dict[str, Any] | None:
    device = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))
    return device.get("holder")


def test_a_worker_signs_in_on_the_tablet_in_chromium_and_a_shift_starts_with_tokens_of_its_own(
    directory_server: FieldpassServer, admin: SignedIn, browser: Browser,
) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    email = unique_email("crew")
    feed = EventsReader(server.public_url)
    try:
        _, cursor = feed.drain()
        token_event = bound_sign_in(server, email, tablet.key, browser)
        claims = server.verify_access_token(token_event["access_token"])
        assert claims["device_id"] == tablet.device_id and claims["shift_id"], claims
        assert claims["cnf"] == {"jkt": tablet.key.thumbprint} and token_event["token_type"] == "DPoP", (claims, token_event)
        held = holder(server, admin, tablet)
        assert held and held["shift_id"] == claims["shift_id"] and held["email"] == email, held
        assert "ended_at" not in held, held
        listed = assert_json(server.api("GET", "/admin/shared_devices", token=admin.access_token))["shared_devices"]
        assert [d["holder"]["email"] for d in listed if d["device_id"] == tablet.device_id] == [email], listed

        # A refresh keeps the shift's claims, and the token works at /me with the tablet's proof.
        refreshed = assert_json(refresh(server, token_event["refresh_token"], tablet))
        again = server.verify_access_token(refreshed["access_token"])
        assert (again["shift_id"], again["device_id"]) == (claims["shift_id"], tablet.device_id), again
        assert "amr" not in claims and "amr" not in again, "Fieldpass did not authenticate the worker itself: the IdP did"
        assert assert_json(me(server, refreshed["access_token"], tablet))["user"]["email"] == email
        assert introspection(server, refreshed["access_token"])["shift_id"] == claims["shift_id"]

        assert shift_events(server, tablet) == [("shift_started", email, None)]
        started = [e for e in feed.drain(cursor)[0] if e["type"] == "shift.started"]
        assert [(e["device"]["id"], e["user"]["email"], e["after"]["shift_id"]) for e in started] == [
            (tablet.device_id, email, claims["shift_id"])], started
    finally:
        feed.close()


def test_signing_out_ends_the_shift_and_every_token_of_it_at_once(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    assert current_shift(server, tablet) is None
    worker = shift_sign_in(server, tablet, unique_email("a"))
    assert me(server, worker.access_token, tablet).status_code == 200
    held = current_shift(server, tablet)
    assert held and (held["shift_id"], held["email"]) == (worker.claims["shift_id"], worker.email), held

    signed_out = sign_out(server, tablet)
    assert signed_out.status_code == 204, signed_out.text
    assert_shift_over(server, worker, tablet)
    assert holder(server, admin, tablet) is None and current_shift(server, tablet) is None
    assert shift_events(server, tablet)[-1] == ("shift_ended", worker.email, "signed_out")
    # Signing out again is signing out: nothing more ends.
    assert sign_out(server, tablet).status_code == 204
    assert len(shift_events(server, tablet)) == 2


def test_revoking_the_shifts_refresh_token_is_signing_out(directory_server: FieldpassServer, admin: SignedIn) -> None:
    """What `FieldpassClient.signOut()` sends: RFC 7009 revocation, with the tablet's proof."""
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))
    with http_client() as client:
        revoked = client.post(
            f"{server.url}/revoke", data={"token": worker.refresh_token},
            headers={"DPoP": tablet.proof(server, "POST", "/revoke")})
    assert revoked.status_code == 200, revoked.text
    assert_shift_over(server, worker, tablet)
    assert shift_events(server, tablet)[-1] == ("shift_ended", worker.email, "signed_out")


def test_the_next_worker_ends_a_forgotten_shift(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    first = shift_sign_in(server, tablet, unique_email("a"))
    second = shift_sign_in(server, tablet, unique_email("b"))
    assert_shift_over(server, first, tablet)
    assert_json(refresh(server, second.refresh_token, tablet))
    assert shift_events(server, tablet) == [
        ("shift_started", first.email, None), ("shift_ended", first.email, "next_worker"), ("shift_started", second.email, None)]
    history = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))["shifts"]
    assert [(s["email"], s.get("end_reason")) for s in history] == [(second.email, None), (first.email, "next_worker")], history
    # The same worker again on the tablet starts a new shift too.
    third = shift_sign_in(server, tablet, second.email)
    assert third.claims["shift_id"] != second.claims["shift_id"]
    assert_shift_over(server, second, tablet)


def manager_of(server: FieldpassServer, admin: SignedIn, email: str | None = None) -> tuple[str, str]:
    """The access token of a new manager of a new team, and the team's id."""
    person = sign_in(server, email or unique_email("manager"))
    assert_json(server.api("PUT", f"/admin/users/{person.user_id}/role", token=admin.access_token, json_body={"role": "manager"}))
    team = assert_json(
        server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": f"Crew {person.user_id[:8]}"}), 201)
    assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{person.user_id}", token=admin.access_token))
    return assert_json(server.refresh(person.refresh_token))["access_token"], team["id"]


def test_an_admin_and_the_teams_manager_end_a_shift_and_nobody_else(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    manager, team = manager_of(server, admin)
    other_manager, _ = manager_of(server, admin)
    tablet = enrolled_tablet(server, manager, team_id=team)
    path = f"/admin/shared_devices/{tablet.device_id}/shift/end"

    worker = shift_sign_in(server, tablet, unique_email("a"))
    assert_api_error(server.api("POST", path, token=other_manager), 404, "unknown_device")
    assert_api_error(server.api("POST", path, token=worker.access_token), 401)
    ended = assert_json(server.api("POST", path, token=manager))
    assert ended["shift_id"] == worker.claims["shift_id"] and ended["end_reason"] == "ended_by_admin", ended
    assert_shift_over(server, worker, tablet)
    assert_api_error(server.api("POST", path, token=manager), 409, "no_open_shift")

    again = shift_sign_in(server, tablet, unique_email("b"))
    assert assert_json(server.api("POST", path, token=admin.access_token))["end_reason"] == "ended_by_admin"
    assert_shift_over(server, again, tablet)
    audit = assert_json(server.api("GET", "/admin/audit", token=admin.access_token))["entries"]
    ends = [e for e in audit if e["action"] == "shift.end" and e["target"] == f"shared_device:{tablet.device_id}"]
    assert {e["after"]["reason"] for e in ends} == {"ended_by_admin"} and len(ends) == 2, ends


def test_the_cli_lists_who_holds_each_tablet_and_ends_a_shift(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return server.cli("shared-devices", *args, "--env", "dev", "--config", str(server.config_path))

    tablet = enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))
    listed = cli("list")
    assert listed.returncode == 0, cli_output(listed)
    row = [line for line in listed.stdout.splitlines() if line.startswith(tablet.device_id)]
    assert len(row) == 1 and f"held by {worker.email} since " in row[0], cli_output(listed)
    ended = cli("end-shift", tablet.device_id)
    assert ended.returncode == 0 and f"Ended the shift of {worker.email} ({worker.claims['shift_id']})" in ended.stdout, cli_output(ended)
    assert_shift_over(server, worker, tablet)
    again = cli("end-shift", tablet.device_id)
    assert again.returncode != 0 and f"nobody holds shared device {tablet.device_id}" in again.stderr, cli_output(again)
    unknown = cli("end-shift", "no-such-device")
    assert unknown.returncode != 0 and "no shared device no-such-device in environment 'dev'" in unknown.stderr, cli_output(unknown)
    audit = assert_json(server.api("GET", "/admin/audit", token=admin.access_token))["entries"]
    assert any(e["action"] == "shift.end" and e["actor"] == "cli" and e["after"]["reason"] == "ended_by_admin" for e in audit), audit[:5]


def qr_text(svg: str, folder: Path) -> str:
    """What a scanner reads off `svg`: drawn by librsvg, read by ZBar."""
    (folder / "qr.svg").write_text(svg)
    subprocess.run(["rsvg-convert", "--zoom", "8", "-o", str(folder / "qr.png"), str(folder / "qr.svg")], check=True)
    read = subprocess.run(["zbarimg", "--raw", "-q", str(folder / "qr.png")], capture_output=True, text=True, check=True)
    return read.stdout.strip()


def test_the_manager_enrolls_a_tablet_and_ends_a_shift_in_the_console_in_chromium(
    directory_server: FieldpassServer, admin: SignedIn, browser: Browser, tmp_path: Path,
) -> None:
    server = directory_server
    manager_email = unique_email("manager")
    _, team = manager_of(server, admin, manager_email)
    console_sign_in(browser, server, manager_email)

    browser.open(f"{server.url}/console/shared-devices")
    browser.driver.find_element(By.ID, "device-name").send_keys("Van console")
    options = [o.get_attribute("value") for o in browser.driver.find_elements(By.CSS_SELECTOR, "#device-team option")]
    assert options == [team], options  # a manager enrolls for his team only, never for none
    browser.press("Enroll device")
    code = browser.text_of("#enrollment-code")
    assert re.fullmatch(r"[A-Z]{4}(-[A-Z]{4}){4}", code), browser.describe()
    svg = browser.driver.find_element(By.CSS_SELECTOR, "svg.qr").get_attribute("outerHTML")
    assert qr_text(svg, tmp_path) == code
    link = browser.driver.find_element(By.LINK_TEXT, "Van console").get_attribute("href")
    device_id = link.rsplit("/", 1)[-1]

    key = DeviceKey()
    with http_client() as client:
        enrolled = client.post(
            f"{server.url}/shared_devices/enroll", json={"enrollment_code": code},
            headers={"DPoP": key.proof("POST", f"{server.public_url}/shared_devices/enroll")})
    assert assert_json(enrolled)["device_id"] == device_id
    tablet = Tablet(device_id, key)
    worker = shift_sign_in(server, tablet, unique_email("b"))

    browser.open(link)
    assert f"{worker.email} since" in browser.text_of("dl.facts"), browser.describe()
    browser.confirm("End shift")
    assert "nobody" in browser.text_of("dl.facts") and "ended by admin" in browser.text, browser.describe()
    assert_shift_over(server, worker, tablet)
    browser.open(f"{server.url}/console/people/{worker.user_id}")
    assert "Van console" in browser.text and "ended by admin" in browser.text, browser.describe()
    browser.open(f"{server.url}/console/shared-devices")
    assert "Van console" in browser.text, browser.describe()

    browser.open(link)
    browser.confirm("Unenroll")
    assert "unenrolled" in browser.text_of("dl.facts"), browser.describe()
    assert_api_error(events(server, tablet), 403, "shared_device_refused")


def test_disabling_the_worker_ends_his_shift(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))
    assert_json(server.api("POST", f"/admin/users/{worker.user_id}/disable", token=admin.access_token))
    assert shift_events(server, tablet)[-1] == ("shift_ended", worker.email, "user_disabled")
    assert holder(server, admin, tablet) is None
    assert_shift_over(server, worker, tablet)


def test_revoking_the_shifts_device_or_reusing_its_token_ends_the_shift(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    """The shift's device is one of the worker's devices, at `/me` and on the admin API: revoking
    it there, resetting the worker's IdP account, or a reused refresh token end the shift as
    signing out does, and the tablet's apps hear it."""
    server = directory_server
    tablet = enrolled_tablet(server, admin)

    worker = shift_sign_in(server, tablet, unique_email("a"))
    path = f"/me/devices/{worker.claims['shift_id']}"
    proof = tablet.proof(server, "DELETE", path, ath=token_hash(worker.access_token))
    with http_client() as client:
        revoked = client.delete(
            f"{server.url}{path}", headers={"Authorization": f"DPoP {worker.access_token}", "DPoP": proof})
    assert revoked.status_code == 204, revoked.text
    assert shift_events(server, tablet)[-1] == ("shift_ended", worker.email, "signed_out")
    assert holder(server, admin, tablet) is None
    assert_shift_over(server, worker, tablet)

    second = shift_sign_in(server, tablet, unique_email("b"))
    path = f"/admin/users/{second.user_id}/devices/{second.claims['shift_id']}"
    assert server.api("DELETE", path, token=admin.access_token).status_code == 204
    assert shift_events(server, tablet)[-1] == ("shift_ended", second.email, "ended_by_admin")
    assert_shift_over(server, second, tablet)

    # A spent refresh token of the shift comes back after its successor moved on: a copy.
    third = shift_sign_in(server, tablet, unique_email("c"))
    successor = assert_json(refresh(server, third.refresh_token, tablet))["refresh_token"]
    assert_json(refresh(server, successor, tablet))
    assert_api_error(refresh(server, third.refresh_token, tablet), 400, "invalid_grant")
    assert shift_events(server, tablet)[-1] == ("shift_ended", third.email, "token_reused")
    assert holder(server, admin, tablet) is None

    # An admin resets the worker's IdP account: what it obtained stops, the shift with it.
    fourth = shift_sign_in(server, tablet, unique_email("d"))
    assert server.api("DELETE", f"/admin/users/{fourth.user_id}/identity", token=admin.access_token).status_code == 204
    assert shift_events(server, tablet)[-1] == ("shift_ended", fourth.email, "ended_by_admin")
    assert_shift_over(server, fourth, tablet)
    history = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))["shifts"]
    assert [s["end_reason"] for s in history] == ["ended_by_admin", "token_reused", "ended_by_admin", "signed_out"], history


def test_unenrolling_ends_the_shift_and_refuses_the_key_from_then_on(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))
    assert server.api("DELETE", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token).status_code == 204
    assert_shift_over(server, worker, tablet)
    history = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))["shifts"]
    assert [s["end_reason"] for s in history] == ["unenrolled"], history
    # The key is refused: no sign-in, no events, no sign-out.
    registered = server.post_register(
        {"email": unique_email("b")}, headers={"DPoP": tablet.proof(server, "POST", "/register_device")})
    assert_api_error(registered, 403, "shared_device_refused")
    assert_api_error(events(server, tablet), 403, "shared_device_refused")
    assert_api_error(sign_out(server, tablet), 403, "shared_device_refused")


def test_a_poll_waiting_when_its_tablet_is_unenrolled_is_refused_within_seconds(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    """Not answered with nothing when its wait runs out (and refused only at the next poll):
    every app on the tablet learns within seconds that it must show the setup screen."""
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    shift_sign_in(server, tablet, unique_email("a"))

    def unenroll() -> None:
        assert server.api("DELETE", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token).status_code == 204

    answer, seconds = poll_while(server, tablet, 1, unenroll)
    assert_api_error(answer, 403, "shared_device_refused")
    assert seconds < 10


def test_another_tablets_key_neither_ends_nor_reads_this_tablets_shifts(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = directory_server
    tablet, other = enrolled_tablet(server, admin), enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))
    assert sign_out(server, other).status_code == 204
    assert me(server, worker.access_token, tablet).status_code == 200
    assert holder(server, admin, tablet)["email"] == worker.email
    assert shift_events(server, other) == []
    # Nor may the other key use the worker's tokens.
    assert_api_error(refresh(server, worker.refresh_token, other), 400, "invalid_dpop_proof")
    assert me(server, worker.access_token, other).status_code == 401
    # A key no device enrolled is refused.
    stranger = Tablet(tablet.device_id, DeviceKey())
    assert_api_error(events(server, stranger), 403, "shared_device_refused")
    assert_api_error(sign_out(server, stranger), 403, "shared_device_refused")


def test_a_waiting_app_hears_the_shift_end_and_bad_requests_change_nothing(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker = shift_sign_in(server, tablet, unique_email("a"))

    def worker_signs_out() -> None:
        assert sign_out(server, tablet).status_code == 204

    answer, seconds = poll_while(server, tablet, 1, worker_signs_out)
    body = assert_json(answer)
    assert [(e["seq"], e["type"], e["reason"]) for e in body["events"]] == [(2, "shift_ended", "signed_out")], body
    assert body["events"][0]["shift_id"] == worker.claims["shift_id"], body
    assert seconds < 10

    for query in ({"after": "-1"}, {"after": "x"}, {"wait": "soon"}, {"after": "99999999999999999999"}):
        with http_client() as client:
            response = client.get(
                f"{server.url}/shared_devices/events", params=query,
                headers={"DPoP": tablet.proof(server, "GET", "/shared_devices/events")})
        assert_api_error(response, 400, "invalid_request")
    with http_client() as client:
        assert_api_error(client.get(f"{server.url}/shared_devices/events"), 400, "invalid_dpop_proof")
        assert_api_error(client.delete(f"{server.url}/shared_devices/shift"), 400, "invalid_dpop_proof")
        proof = tablet.proof(server, "GET", "/shared_devices/events")
        assert_json(client.get(f"{server.url}/shared_devices/events", headers={"DPoP": proof}))
        assert_api_error(client.get(f"{server.url}/shared_devices/events", headers={"DPoP": proof}), 400, "invalid_dpop_proof")
        wrong_url = tablet.proof(server, "DELETE", "/shared_devices/events")
        assert_api_error(client.delete(f"{server.url}/shared_devices/shift", headers={"DPoP": wrong_url}), 400, "invalid_dpop_proof")
    assert len(shift_events(server, tablet)) == 2


@pytest.fixture(scope="module")
def limited_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-shift-limits"),
        {
            "SHARED_DEVICES_MAX_SHIFT": str(MAX_SHIFT), "SHARED_DEVICES_IDLE_TIMEOUT": str(IDLE_TIMEOUT),
            "SESSIONS_SWEEP_INTERVAL": "1",
        },
        environments=DIRECTORY_ENVIRONMENTS,
    )
    yield server
    server.stop()


def test_idle_and_max_shift_end_shifts_with_their_reasons(limited_server: FieldpassServer) -> None:
    server = limited_server
    admin = sign_in(server, ADMIN_EMAIL)
    idle_tablet, busy_tablet = enrolled_tablet(server, admin), enrolled_tablet(server, admin)
    idle = shift_sign_in(server, idle_tablet, unique_email("idle"))
    busy = shift_sign_in(server, busy_tablet, unique_email("busy"))
    # The busy worker refreshes every second: never idle, until the shift's length is up.
    deadline = time.monotonic() + MAX_SHIFT + 4
    refresh_token = busy.refresh_token
    while time.monotonic() < deadline:
        response = refresh(server, refresh_token, busy_tablet)
        if response.status_code != 200:
            break
        refresh_token = response.json()["refresh_token"]
        time.sleep(1)
    assert_api_error(response, 400, "invalid_grant")
    assert shift_events(server, busy_tablet)[-1] == ("shift_ended", busy.email, "max_shift")
    # The idle worker's shift was ended by the sweep, long before.
    assert shift_events(server, idle_tablet)[-1] == ("shift_ended", idle.email, "idle")
    assert_shift_over(server, idle, idle_tablet)


@contextmanager
def tablet_at_two_instances(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> Iterator[tuple[FieldpassServer, FieldpassServer, SignedIn, Tablet]]:
    """Two instances on one PostgreSQL, the admin signed in at the first and a tablet enrolled there."""
    cluster: Cluster = start_cluster(fieldpass_bin, idp, tmp_path, 2, environments=DIRECTORY_ENVIRONMENTS)
    try:
        a, b = cluster.instances
        admin = sign_in(a, ADMIN_EMAIL)
        yield a, b, admin, enrolled_tablet(a, admin)
    finally:
        cluster.stop()


@pytest.mark.postgres_only
def test_a_shift_ended_at_one_instance_refuses_its_tokens_there_at_once_and_at_the_other_within_a_second(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    """As Docs/trust.md promises: the instance that ended the shift refuses its tokens at once,
    another one as soon as its listener heard it, within a second (its memory answers bearer
    checks; the NOTIFY that tells it is asynchronous to the answer at the first)."""
    with tablet_at_two_instances(fieldpass_bin, idp, tmp_path) as (a, b, _, tablet):
        worker = shift_sign_in(a, tablet, unique_email("a"))
        assert me(b, worker.access_token, tablet).status_code == 200
        assert introspection(b, worker.access_token)["active"] is True
        assert sign_out(a, tablet).status_code == 204
        assert introspection(a, worker.access_token) == {"active": False}
        wait_until(lambda: introspection(b, worker.access_token) == {"active": False}, timeout=1.0,
                   what="B to refuse the ended shift's token")
        assert me(b, worker.access_token, tablet).status_code == 401
        assert_api_error(refresh(b, worker.refresh_token, tablet), 400, "invalid_grant")
