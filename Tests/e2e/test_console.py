"""The admin console in a real browser, signed in through the development IdP.

Each person is one headless Chromium with its own cookies, from the console's sign-in page
through the IdP to /auth_callback. What a change did is checked from outside: the changed
person's tokens at /me and /token, and the audit log over the admin API.
"""

from __future__ import annotations

import time

import httpx
import jwt
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from console_flows import console_sign_in, keep_screenshot
from helpers import ADMIN_EMAIL, DIRECTORY_ENVIRONMENTS, Browser, FieldpassServer, SignedIn, sign_in, start_server, unique_email
from helpers.audit import audit_entries


def person_page(browser: Browser, server: FieldpassServer, person: SignedIn) -> None:
    browser.open(f"{server.url}/console/people/{person.claims['sub']}")
    assert browser.heading == person.email, browser.describe()


def form_token(browser: Browser) -> str:
    return browser.driver.find_element(By.CSS_SELECTOR, "input[name='csrf_token']").get_attribute("value")


def post_as(server: FieldpassServer, cookie: str, path: str, form: dict[str, str]) -> httpx.Response:
    """A form POST with a console cookie, as a script (or another site's form) would send it."""
    with httpx.Client(timeout=10, follow_redirects=False) as client:
        return client.post(f"{server.url}{path}", data=form, cookies={"fieldpass_console": cookie})


def me(server: FieldpassServer, token: str) -> httpx.Response:
    return server.api("GET", "/me", token=token)


def test_an_admin_runs_people_and_teams_from_the_console(
    directory_server: FieldpassServer, admin: SignedIn, browsers
) -> None:
    server = directory_server
    crew, leaver, phone_owner, member = (sign_in(server, unique_email(name)) for name in ("crew", "leaver", "phone", "member"))
    browser = browsers()
    console_sign_in(browser, server, ADMIN_EMAIL)
    assert browser.heading == "People", browser.describe()
    cookie = browser.cookie("fieldpass_console")
    assert cookie.http_only and cookie.same_site == "Lax" and cookie.path == "/console" and not cookie.secure

    # Promote: the worker's next token says manager.
    person_page(browser, server, crew)
    Select(browser.driver.find_element(By.ID, "role")).select_by_value("manager")
    browser.press("Save")
    refreshed = server.refresh(crew.refresh_token)
    assert refreshed.status_code == 200, refreshed.text
    assert jwt.decode(refreshed.json()["access_token"], options={"verify_signature": False})["role"] == "manager"

    # Disable: the person's still valid access token is refused at once.
    assert me(server, leaver.access_token).status_code == 200
    person_page(browser, server, leaver)
    # One click only asks: nothing changes until the question is answered.
    answer = browser.ask("Disable")
    assert leaver.email in browser.text_of("main") and answer.is_displayed()
    assert me(server, leaver.access_token).status_code == 200
    browser.confirm("Disable")
    assert "disabled" in browser.text
    assert me(server, leaver.access_token).status_code == 401

    # Revoke a device: its refresh token stops working. Its row names it as the CLI and the
    # API do, with when it registered and where it stands.
    person_page(browser, server, phone_owner)
    devices = browser.driver.find_element(By.XPATH, "//h2[text()='Devices']/following-sibling::table[1]")
    headers = [cell.text for cell in devices.find_elements(By.CSS_SELECTOR, "thead th")]
    assert headers == ["Device", "Registered", "Last seen", "State"], headers
    (row,) = devices.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert phone_owner.claims["device_id"] in row.text and "active" in row.text, row.text
    browser.confirm("Revoke")
    assert server.refresh(phone_owner.refresh_token).status_code == 400

    # Create a team and add a member.
    team = f"Night shift {time.time_ns()}"
    browser.open(f"{server.url}/console/teams")
    browser.driver.find_element(By.ID, "team-name").send_keys(team)
    browser.press("Create team")
    browser.open(browser.driver.find_element(By.LINK_TEXT, team).get_attribute("href"))
    assert browser.heading == team, browser.describe()
    browser.driver.find_element(By.ID, "member-email").send_keys(member.email)
    browser.press("Add member")
    assert member.email in browser.text_of("main")
    keep_screenshot(browser, "console-team.png")

    # Every change is in the audit page, as the console's.
    browser.open(f"{server.url}/console/audit")
    audit = browser.text_of("main")
    for action in ("user.role", "user.disable", "device.revoke", "team.create", "team.add_member"):
        assert action in audit, audit
    by_console = {
        (entry["action"], entry["target"]) for entry in audit_entries(server, admin) if entry["actor"] == f"console:{admin.claims['sub']}"
    }
    assert ("user.role", f"user:{crew.claims['sub']}") in by_console
    assert ("user.disable", f"user:{leaver.claims['sub']}") in by_console
    # People are shown, and found, by email: the ids stay in the API's entries.
    assert leaver.email in audit and f"user:{leaver.claims['sub']}" not in audit, audit
    assert f"{ADMIN_EMAIL} (console)" in audit, audit
    browser.driver.find_element(By.ID, "person").send_keys(leaver.email)
    browser.press("Show")
    about_leaver = browser.text_of("tbody")
    assert "user.disable" in about_leaver and "user.role" not in about_leaver, about_leaver
    browser.open(f"{server.url}/console/audit?person=nobody%40example.com")
    assert browser.text_of("tbody") == "Nothing matches", browser.text_of("tbody")

    # Signing out kills the cookie on the server, not only in this browser.
    browser.press("Sign out")
    assert browser.url.endswith("/console")
    stale = post_as(server, cookie.value, "/console/teams", {"name": "After sign-out", "csrf_token": "x"})
    assert stale.status_code == 303 and stale.headers["location"].endswith("/console")
    with httpx.Client(timeout=10) as client:
        gone = client.get(f"{server.url}/console/people", cookies={"fieldpass_console": cookie.value})
    assert gone.status_code == 303


def test_a_manager_sees_people_but_can_change_nothing(
    directory_server: FieldpassServer, admin: SignedIn, browsers
) -> None:
    server = directory_server
    manager, worker = sign_in(server, unique_email("boss")), sign_in(server, unique_email("hand"))
    promoted = server.api("PUT", f"/admin/users/{manager.claims['sub']}/role", token=admin.access_token, json_body={"role": "manager"})
    assert promoted.status_code == 200, promoted.text
    browser = browsers()
    console_sign_in(browser, server, manager.email)
    assert browser.heading == "People", browser.describe()
    person_page(browser, server, worker)
    forms = browser.driver.find_elements(By.TAG_NAME, "form")
    assert [form.get_attribute("action") for form in forms] == [f"{server.url}/console/sign-out"]

    cookie, token = browser.cookie("fieldpass_console").value, form_token(browser)
    for path, form in (
        (f"/console/people/{worker.claims['sub']}/role", {"role": "admin"}),
        (f"/console/people/{worker.claims['sub']}/disable", {}),
        ("/console/teams", {"name": "Managers' own"}),
    ):
        refused = post_as(server, cookie, path, {**form, "csrf_token": token})
        assert refused.status_code == 403, (path, refused.text)
    assert me(server, worker.access_token).json()["role"] == "worker"
    teams = server.api("GET", "/admin/teams", token=admin.access_token).json()["teams"]
    assert "Managers' own" not in {team["name"] for team in teams}
    browser.open(f"{server.url}/console/audit")
    assert browser.heading == "Admins only"


def test_a_worker_is_refused_at_sign_in(directory_server: FieldpassServer, browsers) -> None:
    worker = sign_in(directory_server, unique_email("hand"))
    browser = browsers()
    console_sign_in(browser, directory_server, worker.email)
    assert browser.heading == "Not allowed here", browser.describe()
    assert not [c for c in browser.cookies() if c.name == "fieldpass_console"]


def test_a_form_without_its_sessions_token_changes_nothing(
    directory_server: FieldpassServer, admin: SignedIn, browsers
) -> None:
    server = directory_server
    first, second = browsers(), browsers()
    console_sign_in(first, server, ADMIN_EMAIL)
    console_sign_in(second, server, ADMIN_EMAIL)
    first.open(f"{server.url}/console/teams")
    second.open(f"{server.url}/console/teams")
    cookie, others_token = first.cookie("fieldpass_console").value, form_token(second)
    name = f"Forged {time.time_ns()}"
    for form in ({"name": name}, {"name": name, "csrf_token": ""}, {"name": name, "csrf_token": others_token}):
        refused = post_as(server, cookie, "/console/teams", form)
        assert refused.status_code == 403, refused.text
    teams = server.api("GET", "/admin/teams", token=admin.access_token).json()["teams"]
    assert name not in {team["name"] for team in teams}
    # The same form with its own token goes through.
    made = post_as(server, cookie, "/console/teams", {"name": name, "csrf_token": form_token(first)})
    assert made.status_code == 303


def test_an_idle_session_goes_back_to_sign_in(fieldpass_bin, idp, tmp_path, browsers) -> None:
    server = start_server(fieldpass_bin, idp, tmp_path, {"CONSOLE_IDLE_TIMEOUT": "2"}, environments=DIRECTORY_ENVIRONMENTS)
    try:
        browser = browsers()
        console_sign_in(browser, server, ADMIN_EMAIL)
        assert browser.heading == "People", browser.describe()
        time.sleep(3)
        browser.open(f"{server.url}/console/teams")
        assert browser.heading == "Sign in to the Fieldpass console", browser.describe()
    finally:
        server.stop()
