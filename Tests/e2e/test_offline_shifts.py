"""Offline shifts on shared devices (`shared_devices.offline_permit_ttl`): every badge sign-in
answers an offline permit for the tablet, a JWS of Fieldpass's key that holds nothing secret;
the tablet lists the permits it keeps, and a revoked badge, a disabled person and an
unenrolled tablet take theirs away; back online, the tablet reports the shifts it ran
without a network and the server accepts or refuses each, counts the wrong PINs typed
offline into the badge's lockout, and turns the running shift into a real one. Run as an
attacker would: a forged, a foreign, an expired and a replayed permit, via the API and the
audit log.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from selenium.webdriver.common.by import By

from console_flows import console_sign_in
from helpers import (
    ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, Browser, FieldpassServer, MockIdP, SignedIn, assert_api_error, assert_json, cli_output,
    http_client, sign_in, start_server, unique_email,
)
from helpers.cluster import start_cluster
from helpers.tokens import reforge
from helpers.swift_examples import app_page_blocks, build_swift_example
from test_badges import MAX_FAILED_PINS, badge_sign_in, issue, started
from test_offboarding import set_disabled
from test_shifts import Tablet, current_shift, enrolled_tablet, me, shift_events

PERMIT_TTL = 3600
OWN_PIN = "38472910"
PERMIT_CLAIMS = {"iss", "sub", "env", "email", "role", "realms", "cnf", "jti", "iat", "exp", "max_failed_pins"}


@pytest.fixture(scope="module")
def offline_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-offline"),
        {"SHARED_DEVICES_OFFLINE_PERMIT_TTL": str(PERMIT_TTL)}, environments=DIRECTORY_ENVIRONMENTS)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def admin(offline_server: FieldpassServer) -> SignedIn:
    return sign_in(offline_server, ADMIN_EMAIL)


def badge_holder(server: FieldpassServer, admin: SignedIn, tablet: Tablet) -> tuple[SignedIn, dict[str, Any], dict[str, Any]]:
    """A worker with a badge, signed in on the tablet once (their own PIN set): the worker,
    the badge and the sign-in's answer."""
    worker = sign_in(server, unique_email("crew"))
    badge = issue(server, admin.access_token, worker.user_id)
    return worker, badge, started(server, tablet, badge, OWN_PIN)


def verified_permit(server: FieldpassServer, permit: str, *, expiry: bool = True) -> dict[str, Any]:
    """The permit checked as a sync server checks a token, with the JWKS alone, save that a
    permit has no audience: its `typ` says what it is; without `expiry`, one that expired too."""
    header = jwt.get_unverified_header(permit)
    assert header["typ"] == "offline-permit+jwt" and header["alg"] == server.key_alg, header
    key = jwt.PyJWKSet.from_dict(server.jwks())[header["kid"]]
    return jwt.decode(
        permit, key.key, algorithms=[server.key_alg], issuer=server.public_url,
        options={"require": ["exp", "iat", "iss", "sub", "jti"], "verify_aud": False, "verify_exp": expiry})


def permits(server: FieldpassServer, tablet: Tablet) -> httpx.Response:
    path = "/shared_devices/offline_permits"
    with http_client() as client:
        return client.get(f"{server.url}{path}", headers={"DPoP": tablet.proof(server, "GET", path)})


def listed(server: FieldpassServer, tablet: Tablet) -> dict[str, str]:
    """The tablet's permits by person."""
    body = assert_json(permits(server, tablet))
    assert all(set(entry) == {"user_id", "permit", "expires_at"} for entry in body["permits"]), body
    return {entry["user_id"]: entry["permit"] for entry in body["permits"]}


def report(server: FieldpassServer, tablet: Tablet, *shifts: dict[str, Any]) -> httpx.Response:
    path = "/shared_devices/offline_shifts"
    with http_client() as client:
        return client.post(f"{server.url}{path}", json={"shifts": list(shifts)}, headers={"DPoP": tablet.proof(server, "POST", path)})


def shift(permit: str, started_at: float | None, ended_at: float | None = None, failed_pins: int = 0) -> dict[str, Any]:
    return {"permit": permit, "started_at": started_at, "ended_at": ended_at, "failed_pins": failed_pins}


def results(response: httpx.Response) -> list[dict[str, Any]]:
    return assert_json(response)["results"]


def reasons(response: httpx.Response) -> list[str | None]:
    return [result["reason"] for result in results(response)]


def audit(server: FieldpassServer, admin: SignedIn) -> list[dict[str, Any]]:
    return assert_json(server.api("GET", "/admin/audit", token=admin.access_token))["entries"]


def test_a_badge_sign_in_answers_a_permit_for_the_tablet_that_verifies_with_the_jwks_and_holds_nothing_secret(
    offline_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = offline_server
    tablet = enrolled_tablet(server, admin)
    worker, badge, answer = badge_holder(server, admin, tablet)
    claims = verified_permit(server, answer["offline_permit"])
    assert set(claims) == PERMIT_CLAIMS, claims
    assert (claims["sub"], claims["email"], claims["role"]) == (worker.user_id, worker.email, "worker"), claims
    assert claims["cnf"] == {"jkt": tablet.key.thumbprint} and claims["max_failed_pins"] == MAX_FAILED_PINS, claims
    assert claims["exp"] - claims["iat"] == PERMIT_TTL and abs(claims["iat"] - time.time()) < 30, claims
    assert claims["realms"] == server.verify_access_token(answer["access_token"])["realms"], claims
    text = base64.urlsafe_b64decode(answer["offline_permit"].split(".")[1] + "==").decode()
    for secret in (badge["badge"], badge["temporary_pin"], OWN_PIN, answer["refresh_token"]):
        assert secret not in text
    # Not an access token: it has no audience, so a sync server's check refuses it, as /me does.
    with pytest.raises(jwt.MissingRequiredClaimError):
        server.verify_access_token(answer["offline_permit"])
    with http_client() as client:
        assert client.get(f"{server.url}/me", headers={"Authorization": f"Bearer {answer['offline_permit']}"}).status_code == 401


def test_with_offline_shifts_off_no_permit_is_issued_and_none_is_listed(directory_server: FieldpassServer) -> None:
    server = directory_server
    admin = sign_in(server, ADMIN_EMAIL)
    tablet = enrolled_tablet(server, admin)
    _, _, answer = badge_holder(server, admin, tablet)
    assert "offline_permit" not in answer and set(answer) == {"access_token", "token_type", "refresh_token", "expires_in", "shift_id"}
    assert listed(server, tablet) == {}


def test_the_tablet_lists_its_live_permits_and_loses_a_revoked_badges_a_disabled_persons_and_all_when_unenrolled(
    offline_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = offline_server
    tablet, other_tablet = enrolled_tablet(server, admin), enrolled_tablet(server, admin)
    revoked, _, _ = badge_holder(server, admin, tablet)
    disabled, _, _ = badge_holder(server, admin, tablet)
    kept, kept_badge, _ = badge_holder(server, admin, tablet)
    # The latest sign-in's permit only, one per person, each still verifying with the JWKS.
    again = assert_json(badge_sign_in(server, tablet, kept_badge["badge"], OWN_PIN))
    held = listed(server, tablet)
    assert set(held) == {revoked.user_id, disabled.user_id, kept.user_id}, held
    assert verified_permit(server, held[kept.user_id])["jti"] == verified_permit(server, again["offline_permit"])["jti"]
    assert listed(server, other_tablet) == {}

    assert server.api("DELETE", f"/admin/users/{revoked.user_id}/badge", token=admin.access_token).status_code == 204
    set_disabled(server, admin, disabled.user_id, True)
    assert set(listed(server, tablet)) == {kept.user_id}

    assert server.api("DELETE", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token).status_code == 204
    assert_api_error(permits(server, tablet), 403, "shared_device_refused")


def test_reconciliation_records_a_finished_and_a_running_offline_shift_once_and_the_running_one_gets_working_tokens(
    offline_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = offline_server
    tablet = enrolled_tablet(server, admin)
    first, _, first_answer = badge_holder(server, admin, tablet)
    second, _, second_answer = badge_holder(server, admin, tablet)
    now = time.time()
    # Offline: the first worker ran a shift, then the second took over and is still on it (the
    # permits are seconds old; the clocks may differ by a minute).
    sent = (
        shift(first_answer["offline_permit"], now - 30, now - 20, failed_pins=1),
        shift(second_answer["offline_permit"], now - 10),
    )
    answer = results(report(server, tablet, *sent))
    assert [(r["status"], r["reason"]) for r in answer] == [("accepted", None), ("accepted", None)], answer
    assert answer[0]["permit_jti"] == verified_permit(server, first_answer["offline_permit"])["jti"]
    assert "access_token" not in answer[0] and answer[0]["shift_id"]
    running = answer[1]
    claims = server.verify_access_token(running["access_token"])
    assert (claims["sub"], claims["shift_id"], claims["amr"]) == (second.user_id, running["shift_id"], ["pin", "badge", "offline"])
    assert claims["cnf"] == {"jkt": tablet.key.thumbprint} and running["token_type"] == "DPoP"
    assert assert_json(me(server, running["access_token"], tablet))["user"]["id"] == second.user_id
    assert current_shift(server, tablet)["shift_id"] == running["shift_id"]
    assert shift_events(server, tablet)[-2:] == [("shift_ended", second.email, "next_worker"), ("shift_started", second.email, None)]

    # The same report again: answered alike, without tokens, and nothing is recorded twice.
    repeated = results(report(server, tablet, *sent))
    assert [(r["status"], r["shift_id"]) for r in repeated] == [(r["status"], r["shift_id"]) for r in answer], repeated
    assert all("access_token" not in r for r in repeated)
    history = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))["shifts"]
    offline = [s for s in history if s["shift_id"] in {answer[0]["shift_id"], running["shift_id"]}]
    assert len(offline) == 2, history
    ended = next(s for s in offline if s["shift_id"] == answer[0]["shift_id"])
    assert (ended["user_id"], ended["end_reason"]) == (first.user_id, "ended_offline"), ended
    entries = [e for e in audit(server, admin) if (e.get("after") or {}).get("shift_id") == answer[0]["shift_id"]]
    assert sorted(e["action"] for e in entries) == ["shift.end", "shift.start"], entries
    assert all(e["after"]["offline_permit"] == answer[0]["permit_jti"] for e in entries), entries
    assert next(e for e in entries if e["action"] == "shift.start")["after"]["started_at"] == str(int(now - 30))


def test_reconciliation_refuses_a_forged_a_foreign_a_future_a_disabled_persons_and_a_revoked_badges_shift(
    offline_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = offline_server
    tablet, other_tablet = enrolled_tablet(server, admin), enrolled_tablet(server, admin)
    _, _, answer = badge_holder(server, admin, tablet)
    permit = answer["offline_permit"]
    now = time.time()
    stranger = ec.generate_private_key(ec.SECP256R1())
    forged = [
        reforge(permit, claims={"cnf": {"jkt": other_tablet.key.thumbprint}}),
        jwt.encode(verified_permit(server, permit), stranger, algorithm="ES256", headers={"typ": "offline-permit+jwt"}),
        jwt.encode(verified_permit(server, permit), None, algorithm="none", headers={"typ": "offline-permit+jwt"}),
        reforge(answer["access_token"], claims={}),
        answer["access_token"],
    ]
    refused = report(server, tablet, *[shift(token, now - 10, now - 5) for token in forged])
    assert reasons(refused) == ["permit_invalid"] * len(forged), results(refused)
    assert all(r["status"] == "refused" and r["shift_id"] is None for r in results(refused))
    # The tablet's own permit, sent by another tablet: not that tablet's.
    assert reasons(report(server, other_tablet, shift(permit, now - 10, now - 5))) == ["not_this_device"]
    # Started in the future, or before its permit was issued.
    assert reasons(report(server, tablet, shift(permit, now + 600, None), )) == ["impossible_time"]
    assert reasons(report(server, tablet, shift(permit, now - 7200, now - 7100))) == ["impossible_time"]

    disabled, _, disabled_answer = badge_holder(server, admin, tablet)
    revoked, _, revoked_answer = badge_holder(server, admin, tablet)
    holder = current_shift(server, tablet)
    set_disabled(server, admin, disabled.user_id, True)
    assert server.api("DELETE", f"/admin/users/{revoked.user_id}/badge", token=admin.access_token).status_code == 204
    time.sleep(1.1)
    later = time.time()
    answers = report(
        server, tablet, shift(disabled_answer["offline_permit"], later - 0.5, later), shift(revoked_answer["offline_permit"], later - 0.5))
    assert reasons(answers) == ["user_disabled", "badge_revoked"], results(answers)
    # Nothing refused reached the tablet's shifts.
    assert current_shift(server, tablet) == holder
    # A shift that began before either happened is on record: the permit held then.
    before = report(server, tablet, shift(revoked_answer["offline_permit"], now, now + 0.5))
    assert [(r["status"], r["reason"]) for r in results(before)] == [("accepted", None)]


def test_a_permit_that_expired_before_the_shift_started_is_refused(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    server = start_server(fieldpass_bin, idp, tmp_path, {"SHARED_DEVICES_OFFLINE_PERMIT_TTL": "1"}, environments=DIRECTORY_ENVIRONMENTS)
    try:
        admin = sign_in(server, ADMIN_EMAIL)
        tablet = enrolled_tablet(server, admin)
        _, _, answer = badge_holder(server, admin, tablet)
        # A second's permit may have expired by now: its signature is what is checked here.
        expires = verified_permit(server, answer["offline_permit"], expiry=False)["exp"]
        while time.time() < expires + 0.5:
            time.sleep(0.2)
        assert listed(server, tablet) == {}
        answers = report(server, tablet, shift(answer["offline_permit"], expires - 0.5, expires - 0.2), shift(answer["offline_permit"], expires))
        assert [(r["status"], r["reason"]) for r in results(answers)] == [("accepted", None), ("refused", "expired")]
    finally:
        server.stop()


def test_wrong_pins_typed_offline_count_into_the_badges_lockout_once(offline_server: FieldpassServer, admin: SignedIn) -> None:
    server = offline_server
    tablet = enrolled_tablet(server, admin)
    worker, badge, answer = badge_holder(server, admin, tablet)
    permit = answer["offline_permit"]
    # Two wrong PINs offline, reported twice: counted once.
    for _ in range(2):
        assert results(report(server, tablet, shift(permit, None, None, failed_pins=2)))[0]["status"] == "accepted"
    left = assert_api_error(badge_sign_in(server, tablet, badge["badge"], "11112222"), 401, "invalid_grant")["attempts_left"]
    assert left == MAX_FAILED_PINS - 3
    # The running total reaches the limit: the badge locks, audited, online too.
    report(server, tablet, shift(permit, None, None, failed_pins=2 + MAX_FAILED_PINS))
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], OWN_PIN), 423, "badge_locked")
    assert any(e["action"] == "badge.lock" and e["target"] == f"user:{worker.user_id}" for e in audit(server, admin))


def test_a_report_is_bounded_and_checked_before_anything_is_recorded(offline_server: FieldpassServer, admin: SignedIn) -> None:
    server = offline_server
    tablet = enrolled_tablet(server, admin)
    _, _, answer = badge_holder(server, admin, tablet)
    permit, now = answer["offline_permit"], time.time()
    bad = [
        [shift(permit, now - 10), shift(permit, now - 5, now - 1)],
        [shift(permit, now - 5, now - 10)],
        [shift(permit, None, now)],
        [shift(permit, now, None, failed_pins=-1)],
        [shift(permit, 1e300, None)],
        [shift("x", now - 10, now - 5)] * 101,
        [{"permit": permit, "started_at": "yesterday", "ended_at": None, "failed_pins": 0}],
    ]
    for shifts in bad:
        assert_api_error(report(server, tablet, *shifts), 400, "invalid_request")
    assert current_shift(server, tablet) is not None  # the online shift goes on untouched
    unproven = httpx.post(f"{server.url}/shared_devices/offline_shifts", json={"shifts": []})
    assert unproven.status_code in (400, 401), unproven.text
    stranger = Tablet(device_id="none", key=type(tablet.key)())
    assert_api_error(report(server, stranger, shift(permit, now - 10, now - 5)), 403, "shared_device_refused")


# What Docs/app.md's offline example takes from the app around it.
OFFLINE_EXAMPLE_PRELUDE = """import FieldpassDevice
import Foundation

let fieldpass = URL(string: "http://127.0.0.1:9")!
let deviceKey = SoftwareDPoPKey()
let tokens = MemoryTokenStore()
let support = FileManager.default.temporaryDirectory
let scanned = "fpb_example", typedPin = "38472910"
"""


def test_the_app_guides_offline_handover_builds_against_the_library(fieldpass_bin: Path, tmp_path: Path) -> None:
    """Docs/app.md's offline block, as an app writes it, compiles and links with the library alone."""
    build_swift_example(fieldpass_bin, tmp_path / "offline-app", OFFLINE_EXAMPLE_PRELUDE + app_page_blocks("offline-example")[0])


def shared_devices_cli(server: FieldpassServer, *args: str) -> str:
    result = server.cli("shared-devices", *args, "--env", "dev", "--config", str(server.config_path))
    assert result.returncode == 0, cli_output(result)
    return result.stdout


def test_admins_see_whose_permits_a_tablet_holds_and_its_offline_shifts_in_the_api_the_cli_and_the_console_in_chromium(
    offline_server: FieldpassServer, admin: SignedIn, browser: Browser,
) -> None:
    server = offline_server
    tablet = enrolled_tablet(server, admin)
    worker, _, answer = badge_holder(server, admin, tablet)
    revoked, _, _ = badge_holder(server, admin, tablet)
    assert server.api("DELETE", f"/admin/users/{revoked.user_id}/badge", token=admin.access_token).status_code == 204
    now = time.time()
    offline = results(report(server, tablet, shift(answer["offline_permit"], now - 5, now - 2)))[0]

    page = assert_json(server.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))
    held = {p["email"]: p for p in page["offline_permits"]}
    assert set(held) == {worker.email, revoked.email}, page["offline_permits"]
    assert (held[worker.email]["withdrawn"], held[revoked.email]["withdrawn"]) == (False, True)
    assert set(held[worker.email]) == {"user_id", "email", "issued_at", "expires_at", "withdrawn"}, held
    marked = {s["shift_id"]: s.get("offline") for s in page["shifts"]}
    assert marked[offline["shift_id"]] is True and list(marked.values()).count(True) == 1, page["shifts"]

    listing = shared_devices_cli(server, "offline", tablet.device_id)
    assert f"{worker.email} ({worker.user_id})  until" in listing and "revoked or replaced" in listing, listing
    assert offline["shift_id"] in listing and "ended_offline" in listing, listing

    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/shared-devices/{tablet.device_id}")
    assert "Offline permits" in browser.text and worker.email in browser.text_of("main"), browser.describe()
    assert "revoked or replaced" in browser.text_of("main"), browser.describe()
    assert browser.text_of("td strong.offline") == "offline", browser.describe()
    # Unenrolling offers the PIN resets of whose permits it holds, each a click from their page.
    offer = browser.driver.find_element(By.CSS_SELECTOR, "details.confirm form[action$='/unenroll']").get_attribute("innerHTML")
    assert "reset the PINs of" in offer and f"/console/people/{worker.user_id}" in offer, offer
    browser.open(f"{server.url}/console/people/{worker.user_id}")
    assert "badge and PIN, offline" in browser.text_of("main"), browser.describe()

    # Unenrolling names whose PINs to reset: their permits stay on the tablet until they expire.
    unenrolled = shared_devices_cli(server, "unenroll", tablet.device_id)
    assert f"fieldpass badges reset-pin {worker.email}" in unenrolled, unenrolled
    assert_api_error(report(server, tablet, shift(answer["offline_permit"], now - 1, now)), 403, "shared_device_refused")


@pytest.mark.postgres_only
def test_the_same_report_sent_to_two_instances_at_once_is_recorded_once(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    cluster = start_cluster(
        fieldpass_bin, idp, tmp_path, 2, environments=DIRECTORY_ENVIRONMENTS,
        extra_env={"SHARED_DEVICES_OFFLINE_PERMIT_TTL": str(PERMIT_TTL)})
    try:
        a, b = cluster.instances
        admin = sign_in(a, ADMIN_EMAIL)
        tablet = enrolled_tablet(a, admin)
        _, _, answer = badge_holder(a, admin, tablet)
        now = time.time()
        sent = (shift(answer["offline_permit"], now - 60, now - 30), shift(answer["offline_permit"], now - 20))
        with ThreadPoolExecutor(max_workers=2) as pool:
            answers = [results(r) for r in pool.map(lambda server: report(server, tablet, *sent), (a, b))]
        assert [[r["status"] for r in answer] for answer in answers] == [["accepted", "accepted"]] * 2, answers
        assert answers[0][0]["shift_id"] == answers[1][0]["shift_id"] and answers[0][1]["shift_id"] == answers[1][1]["shift_id"]
        assert sum("access_token" in answer[1] for answer in answers) == 1, answers
        history = assert_json(a.api("GET", f"/admin/shared_devices/{tablet.device_id}", token=admin.access_token))["shifts"]
        assert sum(s["shift_id"] in {answers[0][0]["shift_id"], answers[0][1]["shift_id"]} for s in history) == 2, history
        assert json.dumps(history).count(answers[0][1]["shift_id"]) == 1
    finally:
        cluster.stop()
