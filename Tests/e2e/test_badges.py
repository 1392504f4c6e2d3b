"""Badge + PIN sign-in on shared devices: an admin (or, where the environment lets him, the
team's manager) issues a badge and a temporary PIN; the worker scans the badge on an enrolled
tablet, types the PIN and a new one, and the shift starts with tokens bound to the tablet's
key, marked as started with a temporary PIN and audited with its issuer. Wrong PINs are
counted and the fifth locks the badge until an admin resets the PIN; everything else that is
wrong gets one answer. One company's badge tries never take another's PIN checks. The
tablet's key and proofs are made here with `cryptography` and PyJWT.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By

from console_flows import console_sign_in
from helpers import (
    ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, OTHER_ADMIN_EMAIL, OTHER_DOMAIN, Browser, EnvironmentSpec, FieldpassServer, MockIdP,
    SignedIn, assert_api_error, assert_json, cli_output, http_client, sign_in, start_server, unique_email,
)
from helpers.audit import audit_entries
from helpers.dpop import DeviceKey
from oauth_flows import introspection
from test_shifts import (
    Tablet, current_shift, enrolled_tablet, manager_of, me, qr_text, refresh, shift_events, tablet_at_two_instances,
)

MAX_FAILED_PINS = 5
TEMPORARY_PIN_AMR = ["pin", "badge", "temporary_pin"]


@pytest.fixture(scope="module")
def admin(directory_server: FieldpassServer) -> SignedIn:
    return sign_in(directory_server, ADMIN_EMAIL)


def issue(server: FieldpassServer, token: str, user_id: str) -> dict[str, Any]:
    issued = assert_json(server.api("POST", f"/admin/users/{user_id}/badge", token=token), 201)
    assert set(issued) == {"badge_id", "badge", "temporary_pin", "expires_at"}, issued
    assert re.fullmatch(r"fpb_[A-Za-z0-9_-]{43}", issued["badge"]) and re.fullmatch(r"[0-9]{8}", issued["temporary_pin"]), issued
    return issued


def badge_sign_in(server: FieldpassServer, tablet: Tablet, badge: str, pin: str, new_pin: str | None = None) -> httpx.Response:
    body = {"badge": badge, "pin": pin} | ({"new_pin": new_pin} if new_pin else {})
    with http_client() as client:
        return client.post(
            f"{server.url}/shared_devices/shift", json=body, headers={"DPoP": tablet.proof(server, "POST", "/shared_devices/shift")})


def worker_with_badge(server: FieldpassServer, admin: SignedIn) -> tuple[SignedIn, dict[str, Any]]:
    worker = sign_in(server, unique_email("crew"))
    return worker, issue(server, admin.access_token, worker.user_id)


def started(server: FieldpassServer, tablet: Tablet, badge: dict[str, Any], new_pin: str = "38472910") -> dict[str, Any]:
    """The worker's first sign-in with the badge: the temporary PIN and a PIN of their own."""
    return assert_json(badge_sign_in(server, tablet, badge["badge"], badge["temporary_pin"], new_pin))


def test_the_first_sign_in_sets_a_pin_and_starts_a_shift_with_the_right_claims(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker, badge = worker_with_badge(server, admin)
    refused = assert_api_error(badge_sign_in(server, tablet, badge["badge"], badge["temporary_pin"]), 403, "pin_change_required")
    assert "new_pin" in refused["error_description"]
    # A refused new PIN names the rule it broke, so the app can say it in the worker's words.
    for weak, rule in (("12345678", "run"), ("78901234", "run"), ("77777777", "one_digit"), ("1234", "length"), ("abcdefgh", "digits_only")):
        refusal = assert_api_error(badge_sign_in(server, tablet, badge["badge"], badge["temporary_pin"], weak), 400, "invalid_new_pin")
        assert (refusal["pin_rule"], refusal["pin_length"]) == (rule, 8), refusal
    assert current_shift(server, tablet) is None

    tokens = started(server, tablet, badge)
    assert set(tokens) == {"access_token", "token_type", "refresh_token", "expires_in", "shift_id"} and tokens["token_type"] == "DPoP"
    claims = server.verify_access_token(tokens["access_token"])
    assert claims["sub"] == worker.user_id and claims["email"] == worker.email, claims
    # Started with the admin's temporary PIN: the shift says so.
    assert (claims["shift_id"], claims["device_id"], claims["amr"]) == (tokens["shift_id"], tablet.device_id, TEMPORARY_PIN_AMR)
    assert claims["cnf"] == {"jkt": tablet.key.thumbprint}, claims
    assert current_shift(server, tablet)["email"] == worker.email
    assert shift_events(server, tablet) == [("shift_started", worker.email, None)]
    assert assert_json(me(server, tokens["access_token"], tablet))["user"]["id"] == worker.user_id
    # A refresh keeps how the worker signed in: every token of the shift says the badge and PIN.
    refreshed = server.verify_access_token(assert_json(refresh(server, tokens["refresh_token"], tablet))["access_token"])
    assert (refreshed["shift_id"], refreshed["amr"]) == (tokens["shift_id"], TEMPORARY_PIN_AMR), refreshed

    # The temporary PIN works no more; the worker's own does, and the next sign-in ends this shift.
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], badge["temporary_pin"]), 401, "invalid_grant")
    again = assert_json(badge_sign_in(server, tablet, badge["badge"], "38472910"))
    assert again["shift_id"] != tokens["shift_id"]
    assert server.verify_access_token(again["access_token"])["amr"] == ["pin", "badge"]
    assert introspection(server, tokens["access_token"]) == {"active": False}
    audit = assert_json(server.api("GET", "/admin/audit", token=admin.access_token))["entries"]
    mine = [e for e in audit if e["target"] == f"user:{worker.user_id}"][:3]
    assert [e["action"] for e in mine] == ["badge.sign_in", "badge.sign_in", "badge.issue"], audit[:6]
    # The first sign-in names who made its PIN; the worker's own names nobody.
    assert [(e.get("after") or {}).get("pin_issued_by") for e in mine[:2]] == [None, f"user:{admin.user_id}"], mine


def test_five_wrong_pins_lock_the_badge_until_an_admin_resets_the_pin(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker, badge = worker_with_badge(server, admin)
    started(server, tablet, badge)
    for left in range(MAX_FAILED_PINS - 1, 0, -1):
        assert assert_api_error(badge_sign_in(server, tablet, badge["badge"], "11112222"), 401, "invalid_grant")["attempts_left"] == left
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], "11112222"), 423, "badge_locked")
    # The sixth, with the right PIN, is refused too.
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], "38472910"), 423, "badge_locked")
    audit = assert_json(server.api("GET", "/admin/audit", token=admin.access_token))["entries"]
    assert any(e["action"] == "badge.lock" and e["target"] == f"user:{worker.user_id}" for e in audit), audit[:5]
    metrics = server.get("/metrics").text
    assert re.search(r'fieldpass_badge_sign_ins_total\{result="locked"\} [1-9]', metrics), metrics[-2000:]

    reset = assert_json(server.api("POST", f"/admin/users/{worker.user_id}/badge/pin", token=admin.access_token))
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], "38472910"), 401, "invalid_grant")
    assert_json(badge_sign_in(server, tablet, badge["badge"], reset["temporary_pin"], "59203817"))


def test_a_revoked_or_replaced_badge_and_a_wrong_device_are_refused_alike(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker, first = worker_with_badge(server, admin)
    second = issue(server, admin.access_token, worker.user_id)
    answers = [badge_sign_in(server, tablet, first["badge"], first["temporary_pin"], "38472910")]
    stranger = Tablet(tablet.device_id, DeviceKey())
    answers.append(badge_sign_in(server, stranger, second["badge"], second["temporary_pin"], "38472910"))
    other_admin = sign_in(server, OTHER_ADMIN_EMAIL)
    other_tablet = enrolled_tablet(server, other_admin)
    answers.append(badge_sign_in(server, other_tablet, second["badge"], second["temporary_pin"], "38472910"))
    answers.append(badge_sign_in(server, tablet, "fpb_" + "A" * 43, "38472910"))
    for answer in answers:
        body = assert_api_error(answer, 401, "invalid_grant")
        assert "attempts_left" not in body and body["error_description"] == "The badge or PIN is not valid.", body
    # None of them counted: the replacing badge's five tries are all there.
    assert assert_api_error(badge_sign_in(server, tablet, second["badge"], "11112222"), 401, "invalid_grant")["attempts_left"] == 4
    assert_json(badge_sign_in(server, tablet, second["badge"], second["temporary_pin"], "38472910"))

    assert server.api("DELETE", f"/admin/users/{worker.user_id}/badge", token=admin.access_token).status_code == 204
    assert_api_error(badge_sign_in(server, tablet, second["badge"], "38472910"), 401, "invalid_grant")
    assert_api_error(server.api("DELETE", f"/admin/users/{worker.user_id}/badge", token=admin.access_token), 404, "unknown_badge")
    # A disabled person's badge is refused as well.
    disabled = sign_in(server, unique_email("gone"))
    badge = issue(server, admin.access_token, disabled.user_id)
    assert_json(server.api("POST", f"/admin/users/{disabled.user_id}/disable", token=admin.access_token))
    assert_api_error(badge_sign_in(server, tablet, badge["badge"], badge["temporary_pin"], "38472910"), 401, "invalid_grant")


def test_who_may_issue_a_badge(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    manager, team = manager_of(server, admin)
    member, outsider = sign_in(server, unique_email("member")), sign_in(server, unique_email("outsider"))
    assert_json(server.api("PUT", f"/admin/teams/{team}/members/{member.user_id}", token=admin.access_token))
    # Only admins make temporary PINs here: a manager neither issues nor resets, his team's or not.
    for user_id in (member.user_id, outsider.user_id):
        assert_api_error(server.api("POST", f"/admin/users/{user_id}/badge", token=manager), 403, "forbidden")
    issue(server, admin.access_token, member.user_id)
    assert_api_error(server.api("POST", f"/admin/users/{member.user_id}/badge/pin", token=manager), 403, "forbidden")
    assert_api_error(server.api("POST", f"/admin/users/{member.user_id}/badge", token=outsider.access_token), 403, "forbidden")
    other_admin = sign_in(server, OTHER_ADMIN_EMAIL)
    assert_api_error(server.api("POST", f"/admin/users/{member.user_id}/badge", token=other_admin.access_token), 404, "unknown_user")
    # An admin in the manager's team: her badge would sign the manager in as her.
    boss = sign_in(server, unique_email("boss"))
    assert_json(server.api("PUT", f"/admin/users/{boss.user_id}/role", token=admin.access_token, json_body={"role": "admin"}))
    assert_json(server.api("PUT", f"/admin/teams/{team}/members/{boss.user_id}", token=admin.access_token))
    issue(server, admin.access_token, boss.user_id)
    assert_api_error(server.api("DELETE", f"/admin/users/{boss.user_id}/badge", token=manager), 404, "unknown_user")
    # A lost card of his team's worker he may still stop.
    assert server.api("DELETE", f"/admin/users/{member.user_id}/badge", token=manager).status_code == 204
    for body in (b"{", b'{"badge": 5, "pin": "1"}', b'{"pin": "38472910"}'):
        with http_client() as client:
            response = client.post(
                f"{server.url}/shared_devices/shift", content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, response.text


def test_the_cli_issues_a_badge_and_a_teams_printable_cards_whose_qr_codes_are_the_badges(
    directory_server: FieldpassServer, admin: SignedIn, tmp_path: Path,
) -> None:
    server = directory_server

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return server.cli("badges", *args, "--env", "dev", "--config", str(server.config_path))

    tablet = enrolled_tablet(server, admin)
    worker = sign_in(server, unique_email("crew"))
    issued = cli("issue", worker.email)
    assert issued.returncode == 0, cli_output(issued)
    badge = re.search(r"^Badge, shown this once: (fpb_\S+)$", issued.stdout, re.M)
    pin = re.search(r"temporary PIN ([0-9]{8}),", issued.stdout)
    assert badge and pin, cli_output(issued)
    assert_json(badge_sign_in(server, tablet, badge.group(1), pin.group(1), "38472910"))
    # A forgotten PIN: the CLI gives the same card a new temporary PIN.
    reset = cli("reset-pin", worker.email)
    new_pin = re.search(r"temporary PIN ([0-9]{8});", reset.stdout)
    assert reset.returncode == 0 and new_pin, cli_output(reset)
    assert_api_error(badge_sign_in(server, tablet, badge.group(1), "38472910"), 401, "invalid_grant")
    assert_json(badge_sign_in(server, tablet, badge.group(1), new_pin.group(1), "59203817"))
    assert cli("revoke", worker.email).returncode == 0
    assert_api_error(badge_sign_in(server, tablet, badge.group(1), "38472910"), 401, "invalid_grant")
    again = cli("revoke", worker.email)
    assert again.returncode != 0 and "has no badge" in again.stderr, cli_output(again)
    no_badge = cli("reset-pin", worker.email)
    assert no_badge.returncode != 0 and "has no badge" in no_badge.stderr, cli_output(no_badge)

    # A team's cards: one per member, each QR code the member's badge.
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": f"Night {worker.user_id[:6]}"}), 201)
    members = [sign_in(server, unique_email("night")) for _ in range(3)]
    for member in members:
        assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{member.user_id}", token=admin.access_token))
    sheet = tmp_path / "cards.svg"
    printed = cli("issue", "--team", team["name"], "--out", str(sheet))
    assert printed.returncode == 0 and "Badge, shown this once" not in printed.stdout, cli_output(printed)
    subprocess.run(["rsvg-convert", "--zoom", "6", "-o", str(tmp_path / "cards.png"), str(tmp_path / "cards-1.svg")], check=True)
    read = subprocess.run(["zbarimg", "--raw", "-q", str(tmp_path / "cards.png")], capture_output=True, text=True, check=True)
    scanned = sorted(read.stdout.split())
    assert len(scanned) == 3 and all(code.startswith("fpb_") for code in scanned), read.stdout
    pins = dict(re.findall(r"^(\S+): badge \S+, temporary PIN ([0-9]{8}),", printed.stdout, re.M))
    assert sorted(pins) == sorted(m.email for m in members), cli_output(printed)
    # Each scanned code signs its member in, with the PIN printed beside their email.
    signed_in = set()
    for code in scanned:
        for email, temporary in pins.items():
            answer = badge_sign_in(server, tablet, code, temporary, "38472910")
            if answer.status_code == 200:
                signed_in.add(server.verify_access_token(answer.json()["access_token"])["email"])
                break
    assert signed_in == {m.email for m in members}


def test_an_admin_issues_prints_resets_and_revokes_a_badge_in_the_console_in_chromium(
    directory_server: FieldpassServer, admin: SignedIn, browser: Browser, tmp_path: Path,
) -> None:
    server = directory_server
    tablet = enrolled_tablet(server, admin)
    worker = sign_in(server, unique_email("crew"))
    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/people/{worker.user_id}")
    browser.press("Issue badge")
    assert worker.email in browser.text_of(".badge-card"), browser.describe()
    badge = qr_text(browser.driver.find_element(By.CSS_SELECTOR, ".badge-card svg.qr").get_attribute("outerHTML"), tmp_path)
    pin = browser.text_of("#temporary-pin")
    assert badge.startswith("fpb_") and re.fullmatch(r"[0-9]{8}", pin), browser.describe()
    assert_json(badge_sign_in(server, tablet, badge, pin, "38472910"))

    browser.open(f"{server.url}/console/people/{worker.user_id}")
    assert "Issued" in browser.text and "still the temporary one" not in browser.text_of("main"), browser.describe()
    # The shift the temporary PIN started is the admin's word, and the worker's page says whose.
    assert browser.text_of("tr.temporary-pin .pin-issuer") == f"{ADMIN_EMAIL} (console)", browser.describe()
    browser.confirm("Reset PIN")
    reset = re.search(r"new temporary PIN is ([0-9]{8})\.", browser.text)
    assert reset, browser.describe()
    assert_json(badge_sign_in(server, tablet, badge, reset.group(1), "59203817"))
    browser.open(f"{server.url}/console/people/{worker.user_id}")
    browser.confirm("Revoke badge")
    assert "None: a badge and a PIN" in browser.text, browser.describe()
    assert_api_error(badge_sign_in(server, tablet, badge, "59203817"), 401, "invalid_grant")


def test_a_badge_and_a_device_are_rate_limited_on_top_of_the_lockout(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    limits = {"badge_sign_in": {"per_minute": 1, "burst": 3}, "shared_device_sign_in": {"per_minute": 1, "burst": 5}}
    server = start_server(fieldpass_bin, idp, tmp_path, environments=DIRECTORY_ENVIRONMENTS, limits=limits)
    try:
        admin = sign_in(server, ADMIN_EMAIL)
        tablet = enrolled_tablet(server, admin)
        _, badge = worker_with_badge(server, admin)
        for _ in range(3):
            assert_api_error(badge_sign_in(server, tablet, badge["badge"], "11112222"), 401, "invalid_grant")
        limited = badge_sign_in(server, tablet, badge["badge"], "11112222")
        assert_api_error(limited, 429, "rate_limited")
        assert "with this badge" in limited.json()["error_description"] and limited.headers["Retry-After"]
        # Another badge on the same tablet: the device's limit (five tries) is reached next.
        _, other = worker_with_badge(server, admin)
        assert_api_error(badge_sign_in(server, tablet, other["badge"], "11112222"), 401, "invalid_grant")
        refused = badge_sign_in(server, tablet, other["badge"], "11112222")
        assert_api_error(refused, 429, "rate_limited")
        assert "from this device" in refused.json()["error_description"]
    finally:
        server.stop()


@pytest.mark.postgres_only
def test_concurrent_wrong_pins_at_two_instances_never_try_more_than_the_limit(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path,
) -> None:
    with tablet_at_two_instances(fieldpass_bin, idp, tmp_path) as (a, b, admin, tablet):
        worker = sign_in(a, unique_email("crew"))
        badge = issue(a, admin.access_token, worker.user_id)
        assert_json(badge_sign_in(a, tablet, badge["badge"], badge["temporary_pin"], "38472910"))
        with ThreadPoolExecutor(max_workers=12) as pool:
            answers = list(pool.map(
                lambda i: badge_sign_in((a, b)[i % 2], tablet, badge["badge"], f"1111{i:04d}"), range(24)))
        wrong = [r for r in answers if r.status_code == 401]
        locked = [r for r in answers if r.status_code == 423]
        assert len(wrong) + len(locked) == 24, [r.status_code for r in answers]
        assert len(wrong) == MAX_FAILED_PINS - 1, [r.json() for r in answers]
        assert sorted(r.json()["attempts_left"] for r in wrong) == list(range(1, MAX_FAILED_PINS))
        assert_api_error(badge_sign_in(b, tablet, badge["badge"], "38472910"), 423, "badge_locked")


def test_a_manager_cannot_become_his_teams_worker_unless_the_environment_lets_managers_make_pins(
    directory_server: FieldpassServer, admin: SignedIn,
) -> None:
    """Item 4 of the review, run as the manager would: issue or reset the worker's badge to learn
    a temporary PIN, enroll his own key as a tablet of the team, and sign in as the worker."""
    server = directory_server
    manager, team = manager_of(server, admin)
    manager_id = server.verify_access_token(manager)["sub"]
    worker = sign_in(server, unique_email("crew"))
    assert_json(server.api("PUT", f"/admin/teams/{team}/members/{worker.user_id}", token=admin.access_token))
    his_tablet = enrolled_tablet(server, manager, team_id=team)

    # No PIN of his making: neither a new badge nor a reset of the one the admin issued.
    assert_api_error(server.api("POST", f"/admin/users/{worker.user_id}/badge", token=manager), 403, "forbidden")
    badge = issue(server, admin.access_token, worker.user_id)
    assert_api_error(server.api("POST", f"/admin/users/{worker.user_id}/badge/pin", token=manager), 403, "forbidden")
    # Guessing is what is left to him, and the lockout ends it.
    for _ in range(MAX_FAILED_PINS):
        assert badge_sign_in(server, his_tablet, badge["badge"], "11112222", "38472910").status_code in (401, 423)
    assert_api_error(badge_sign_in(server, his_tablet, badge["badge"], badge["temporary_pin"], "38472910"), 423, "badge_locked")
    audit = audit_entries(server, admin)
    assert not [e for e in audit if e["actor"] == f"user:{manager_id}" and e["action"] in ("badge.issue", "badge.reset_pin")]
    assert not [e for e in audit if e["action"] == "badge.sign_in" and e["target"] == f"user:{worker.user_id}"], audit[:5]


@pytest.fixture(scope="module")
def managers_issue_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """dev lets its managers make their workers' temporary PINs (`badges.managers_issue`)."""
    dev, other = DIRECTORY_ENVIRONMENTS
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-managers-issue"),
        environments=(EnvironmentSpec(dev.id, dev.email_domains, dev.bootstrap_admins, managers_issue_badges=True), other))
    yield server
    server.stop()


def test_where_managers_make_pins_a_shift_started_with_his_pin_is_marked_audited_and_shown(
    managers_issue_server: FieldpassServer, browser: Browser,
) -> None:
    """The environment took the risk (`Docs/trust.md`): the manager's way of item 4 gives him the
    worker's tokens, but every one of them says so, the audit log names him, and the worker's
    page in the console shows it."""
    server = managers_issue_server
    admin = sign_in(server, ADMIN_EMAIL)
    manager_email = unique_email("manager")
    manager, team = manager_of(server, admin, manager_email)
    manager_id = server.verify_access_token(manager)["sub"]
    worker = sign_in(server, unique_email("crew"))
    assert_json(server.api("PUT", f"/admin/teams/{team}/members/{worker.user_id}", token=admin.access_token))
    his_tablet = enrolled_tablet(server, manager, team_id=team)

    badge = issue(server, manager, worker.user_id)
    tokens = started(server, his_tablet, badge, new_pin="61830472")
    claims = server.verify_access_token(tokens["access_token"])
    assert claims["sub"] == worker.user_id and claims["realms"].get(f"/users/{worker.user_id}") == "write", claims
    assert claims["amr"] == TEMPORARY_PIN_AMR, claims
    refreshed = server.verify_access_token(assert_json(refresh(server, tokens["refresh_token"], his_tablet))["access_token"])
    assert refreshed["amr"] == TEMPORARY_PIN_AMR, refreshed
    # A reset is his word again: the next shift with it is marked as well.
    pin = assert_json(server.api("POST", f"/admin/users/{worker.user_id}/badge/pin", token=manager))["temporary_pin"]
    again = assert_json(badge_sign_in(server, his_tablet, badge["badge"], pin, "52938174"))
    assert server.verify_access_token(again["access_token"])["amr"] == TEMPORARY_PIN_AMR

    audit = audit_entries(server, admin)
    signed_in = [e for e in audit if e["action"] == "badge.sign_in" and e["target"] == f"user:{worker.user_id}"]
    assert [e["after"]["pin_issued_by"] for e in signed_in] == [f"user:{manager_id}"] * 2, signed_in
    made = [e["action"] for e in audit if e["actor"] == f"user:{manager_id}" and e["target"] == f"user:{worker.user_id}"]
    assert made == ["badge.reset_pin", "badge.issue"], made

    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/people/{worker.user_id}")
    issuers = [cell.text for cell in browser.driver.find_elements(By.CSS_SELECTOR, "tr.temporary-pin .pin-issuer")]
    assert issuers == [manager_email] * 2, browser.describe()


def test_one_companys_badge_flood_never_refuses_another_companys_worker(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    """Item 3 of the review, run as the flooding company would, within every limit: twenty
    enrolled tablets of dev, two tries at a time each, made-up badges with a `new_pin`,
    waiting as `Retry-After` says when refused. Meanwhile other's worker signs in, every time."""
    devices, per_device, tries = 20, 2, 14
    # Each tablet stays within `limits.shared_device_sign_in` (30 at once, 30 a minute); the
    # per-address limit is raised, since here twenty tablets share one address.
    limits = {
        "register_device": {"per_minute": 6000, "burst": 6000},
        "badge_sign_in": {"per_minute": 6, "burst": 10}, "shared_device_sign_in": {"per_minute": 30, "burst": 30},
    }
    assert per_device * tries <= limits["shared_device_sign_in"]["burst"]
    server = start_server(fieldpass_bin, idp, tmp_path, environments=DIRECTORY_ENVIRONMENTS, limits=limits)
    try:
        admin = sign_in(server, ADMIN_EMAIL)
        tablets = [enrolled_tablet(server, admin) for _ in range(devices)]
        other_admin = sign_in(server, OTHER_ADMIN_EMAIL)
        their_tablet = enrolled_tablet(server, other_admin)
        their_worker = sign_in(server, unique_email("crew", OTHER_DOMAIN))
        badge = issue(server, other_admin.access_token, their_worker.user_id)

        stop, refused_once = threading.Event(), threading.Event()
        flood: list[int] = []

        def attack(tablet: Tablet) -> None:
            for _ in range(tries):
                if stop.is_set():
                    return
                status = badge_sign_in(server, tablet, "fpb_" + secrets.token_urlsafe(32), "11112222", "38472910").status_code
                flood.append(status)
                if status == 503:
                    refused_once.set()
                    stop.wait(1)  # Retry-After: 1

        with ThreadPoolExecutor(devices * per_device) as pool:
            attackers = [pool.submit(attack, tablet) for tablet in tablets for _ in range(per_device)]
            # dev's share of the PIN checks is taken: from now on it is full whenever a try of its waits.
            assert refused_once.wait(60), Counter(flood)
            answers = [badge_sign_in(server, their_tablet, badge["badge"], badge["temporary_pin"], "38472910").status_code]
            for _ in range(4):
                answers.append(badge_sign_in(server, their_tablet, badge["badge"], "38472910").status_code)
            stop.set()
            for attacker in attackers:
                attacker.result()
        assert answers == [200] * 5, (answers, Counter(flood))
        # The flood was dev's own: refused or turned away, never limited.
        assert set(flood) <= {401, 503}, Counter(flood)
    finally:
        server.stop()
