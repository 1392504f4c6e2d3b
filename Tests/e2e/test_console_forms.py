"""The console's forms in Chromium, as a person uses them: a change is made once, and what
cannot be undone asks first.

- "Enroll device" answers with a redirect to the page of the new code (post/redirect/get): a
  reload shows the device and enrolls no second one, and the code is shown that once. A name
  a device of the environment holds is refused with a page that says why.
- "Delete team", "Issue a new badge" and "Reset PIN" ask first, as Revoke, Unenroll and End
  shift do: one click opens the question and changes nothing; its button makes the change.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from console_flows import console_sign_in
from helpers import ADMIN_EMAIL, Browser, FieldpassServer, SignedIn, assert_json, audit_entries, sign_in, unique_email
from helpers.dpop import DeviceKey
from test_shifts import qr_text
from test_shared_devices import enroll


def form_token(browser: Browser) -> str:
    return browser.driver.find_element(By.CSS_SELECTOR, "input[name='csrf_token']").get_attribute("value")


def devices_named(server: FieldpassServer, admin: SignedIn, name: str) -> list[dict[str, Any]]:
    listed = assert_json(server.api("GET", "/admin/shared_devices", token=admin.access_token))["shared_devices"]
    return [device for device in listed if device["name"].lower() == name.lower()]


def test_enroll_device_is_sent_once_and_its_code_shown_once(directory_server: FieldpassServer, admin: SignedIn, browsers, tmp_path) -> None:
    server = directory_server
    name = f"Van {uuid.uuid4().hex[:8]}"
    browser = browsers(network_log=True)
    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/shared-devices")
    browser.driver.find_element(By.ID, "device-name").send_keys(name)
    browser.press("Enroll device")

    # The form's answer is a redirect to a page of its own, which shows the code.
    (device,) = devices_named(server, admin, name)
    code_page = f"{server.url}/console/shared-devices/{device['device_id']}/code"
    assert browser.url == code_page, browser.describe()
    posted = browser.wait_for_redirect(f"{server.url}/console/shared-devices")
    assert (posted.url, posted.status, posted.location) == (
        f"{server.url}/console/shared-devices", 303, f"/console/shared-devices/{device['device_id']}/code"), posted
    code = browser.text_of("#enrollment-code")
    assert qr_text(browser.driver.find_element(By.CSS_SELECTOR, "svg.qr").get_attribute("outerHTML"), tmp_path) == code

    # A reload enrolls nothing more, and the code is gone from the page and the browser.
    browser.driver.refresh()
    assert browser.heading == name and not browser.driver.find_elements(By.ID, "enrollment-code"), browser.describe()
    assert code not in browser.text
    assert len(devices_named(server, admin, name)) == 1
    assert not [cookie for cookie in browser.cookies() if cookie.name == "fieldpass_console_once"]
    # Neither does going back to it.
    browser.open(code_page)
    assert browser.url == f"{server.url}/console/shared-devices/{device['device_id']}", browser.describe()

    # The name is the device's while its code works: enrolling it again says so.
    browser.open(f"{server.url}/console/shared-devices")
    browser.driver.find_element(By.ID, "device-name").send_keys(name.upper())
    browser.press("Enroll device")
    assert browser.heading == "Not changed" and "A shared device with this name" in browser.text_of("main"), browser.describe()
    assert len(devices_named(server, admin, name)) == 1
    # And the code shown once is the device's.
    assert assert_json(enroll(server, code, DeviceKey()))["device_id"] == device["device_id"]


def test_the_code_page_shows_the_code_to_the_session_that_enrolled_only(
    directory_server: FieldpassServer, admin: SignedIn, browsers
) -> None:
    server = directory_server
    enrolling = browsers()
    console_sign_in(enrolling, server, ADMIN_EMAIL)
    enrolling.open(f"{server.url}/console/shared-devices")
    session = enrolling.cookie("fieldpass_console").value
    form = {"name": f"Van {uuid.uuid4().hex[:8]}", "team_id": "", "csrf_token": form_token(enrolling)}
    with httpx.Client(timeout=10, follow_redirects=False) as client:
        posted = client.post(f"{server.url}/console/shared-devices", data=form, cookies={"fieldpass_console": session})
    assert posted.status_code == 303, posted.text
    page = posted.headers["location"]
    (device,) = devices_named(server, admin, form["name"])
    assert page == f"/console/shared-devices/{device['device_id']}/code", page
    set_cookie = posted.headers["set-cookie"]
    assert f"; Path={page};" in set_cookie and "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie, set_cookie
    once = re.fullmatch(r"fieldpass_console_once=([A-Z-]+\.[A-Za-z0-9_-]{43});.*", set_cookie)
    assert once, set_cookie

    def opened(session: str, value: str) -> httpx.Response:
        with httpx.Client(timeout=10, follow_redirects=False) as client:
            return client.get(f"{server.url}{page}", cookies={"fieldpass_console": session, "fieldpass_console_once": value})

    device_page = f"/console/shared-devices/{device['device_id']}"
    # Another admin's session given this browser's cookie, or the cookie with another seal: no code.
    other = browsers()
    console_sign_in(other, server, ADMIN_EMAIL)
    for stolen in (opened(other.cookie("fieldpass_console").value, once.group(1)), opened(session, once.group(1)[:-4] + "AAAA")):
        assert stolen.status_code == 303 and stolen.headers["location"] == device_page, stolen.text
    shown = opened(session, once.group(1))
    assert shown.status_code == 200 and f'id="enrollment-code">{once.group(1).split(".")[0]}<' in shown.text, shown.text
    assert shown.headers["cache-control"] == "no-store" and "Max-Age=0" in shown.headers["set-cookie"], shown.headers


def test_delete_team_issue_a_new_badge_and_reset_pin_ask_first(directory_server: FieldpassServer, admin: SignedIn, browser) -> None:
    server = directory_server
    token = admin.access_token
    team = assert_json(server.api("POST", "/admin/teams", token=token, json_body={"name": f"Day crew {uuid.uuid4().hex[:8]}"}), 201)
    worker = sign_in(server, unique_email("crew"))
    assert_json(server.api("POST", f"/admin/users/{worker.user_id}/badge", token=token), 201)

    def made(action: str) -> int:
        return len([e for e in audit_entries(server, admin) if e["action"] == action and e["target"] == f"user:{worker.user_id}"])

    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/teams/{team['id']}")
    answer = browser.ask("Delete team")
    assert answer.is_displayed() and team["name"] in browser.text_of("details.confirm[open]"), browser.describe()
    assert server.api("GET", f"/admin/teams/{team['id']}", token=token).status_code == 200
    browser.confirm("Delete team")
    assert browser.url == f"{server.url}/console/teams", browser.describe()
    assert server.api("GET", f"/admin/teams/{team['id']}", token=token).status_code == 404

    browser.open(f"{server.url}/console/people/{worker.user_id}")
    assert not browser.driver.find_elements(By.XPATH, "//button[normalize-space()='Issue a new badge' or normalize-space()='Reset PIN']"
                                            "[not(ancestor::details)]"), "a badge action acts on one click"
    for action, label in (("badge.issue", "Issue a new badge"), ("badge.reset_pin", "Reset PIN")):
        before = made(action)
        assert browser.ask(label).is_displayed()
        assert made(action) == before, f"{label} acted before it was answered"
        browser.confirm(label)
        assert made(action) == before + 1, browser.describe()
        browser.open(f"{server.url}/console/people/{worker.user_id}")
