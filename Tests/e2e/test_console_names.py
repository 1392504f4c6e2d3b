"""The console names people, teams and devices as a person reads them: the audit log shows an
email, a team's name, a device's name where the API's entries hold ids, and each id is one
click away (the name opens to show it, with a link to its page, which shows it too).

Run on both stores: the audit page reads the names with its entries in one statement, written
once for SQLite and PostgreSQL.
"""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from console_flows import console_sign_in
from helpers import ADMIN_EMAIL, Browser, FieldpassServer, SignedIn, assert_json, sign_in, unique_email
from test_shifts import Tablet, enrolled_tablet, shift_sign_in


def crew_on_a_tablet(server: FieldpassServer, admin: SignedIn, email_prefix: str, team_name: str, van: str | None = None
                     ) -> tuple[SignedIn, dict[str, str], Tablet]:
    """A person on a new team, holding a shift on a new tablet of the team (named `van`, or
    anything)."""
    crew = sign_in(server, unique_email(email_prefix))
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token,
                                  json_body={"name": f"{team_name} {uuid.uuid4().hex[:6]}"}), 201)
    assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{crew.user_id}", token=admin.access_token))
    tablet = enrolled_tablet(server, admin, team["id"], name=van)
    shift_sign_in(server, tablet, crew.email)
    return crew, team, tablet


def audit_row(browser: Browser, action: str, about: str) -> list[WebElement]:
    """The cells of the newest row of the Audit page with `action`, about `about`."""
    for row in browser.driver.find_elements(By.CSS_SELECTOR, "main tbody tr"):
        cells = row.find_elements(By.TAG_NAME, "td")
        if len(cells) == 5 and cells[2].text == action and cells[3].text == about:
            return cells
    raise AssertionError(f"no {action} row about {about}: {browser.describe()}")


def opened(cell: WebElement, name: str) -> str:
    """Clicks the name `name` in `cell` and answers the id it shows, hidden until then."""
    (named,) = [d for d in cell.find_elements(By.CSS_SELECTOR, "details.named") if d.find_element(By.TAG_NAME, "summary").text == name]
    shown = named.find_element(By.CSS_SELECTOR, ".id")
    assert not shown.is_displayed(), f"the id of {name} shows before a click"
    named.find_element(By.TAG_NAME, "summary").click()
    assert shown.is_displayed()
    return shown.text


def test_the_audit_log_names_people_teams_and_devices_with_each_id_one_click_away(
    directory_server: FieldpassServer, admin: SignedIn, browser: Browser
) -> None:
    server = directory_server
    van = f"Van {uuid.uuid4().hex[:6]}"
    crew, team, tablet = crew_on_a_tablet(server, admin, "maria.fernandez-lopez", "Night shift", van)

    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/audit")
    main = browser.text_of("main")
    for hidden in (f"user:{crew.user_id}", f"team:{team['id']}", f"shared_device:{tablet.device_id}", crew.user_id, team["id"]):
        assert hidden not in main, f"{hidden} shows before a click"

    # A membership: who added whom to which team.
    added = audit_row(browser, "team.add_member", team["name"])
    assert added[1].text == ADMIN_EMAIL and opened(added[1], ADMIN_EMAIL) == f"user:{admin.user_id}"
    assert opened(added[3], team["name"]) == f"team:{team['id']}"
    assert f"person: {crew.email}" in added[4].text and "member: no → yes" in added[4].text, added[4].text
    assert opened(added[4], crew.email) == crew.user_id

    # A shared device: made for the team, then enrolled by the device itself.
    created = audit_row(browser, "shared_device.create", van)
    assert opened(created[3], van) == f"shared_device:{tablet.device_id}"
    assert f"team: {team['name']}" in created[4].text and opened(created[4], team["name"]) == team["id"]
    enrolled = audit_row(browser, "shared_device.enroll", van)
    assert enrolled[1].text == van and opened(enrolled[1], van) == f"shared_device:{tablet.device_id}"

    # A shift: the worker on the device.
    started = audit_row(browser, "shift.start", van)
    assert started[1].text == crew.email and f"person: {crew.email}" in started[4].text, started[4].text
    assert opened(started[4], crew.email) == crew.user_id

    # Each name's page is one more click, and shows the id too.
    opened_team = added[3].find_element(By.LINK_TEXT, "Open").get_attribute("href")
    browser.open(opened_team)
    assert browser.heading == team["name"] and browser.text_of("dl.facts dd.id") == team["id"], browser.describe()
    browser.open(f"{server.url}/console/shared-devices/{tablet.device_id}")
    assert browser.text_of("dl.facts dd.id") == tablet.device_id, browser.describe()
    browser.open(f"{server.url}/console/people/{crew.user_id}")
    assert browser.text_of("dl.facts dd.id") == crew.user_id, browser.describe()


def test_the_shared_device_tables_name_teams_and_people_with_links_to_them(
    directory_server: FieldpassServer, admin: SignedIn, browser: Browser
) -> None:
    server = directory_server
    crew, team, tablet = crew_on_a_tablet(server, admin, "crew", "Day shift")

    console_sign_in(browser, server, ADMIN_EMAIL)
    browser.open(f"{server.url}/console/shared-devices")
    row = browser.driver.find_element(By.XPATH, f"//tbody/tr[td/a[contains(@href, '/shared-devices/{tablet.device_id}')]]")
    team_link = row.find_element(By.LINK_TEXT, team["name"]).get_attribute("href")
    holder_link = row.find_element(By.LINK_TEXT, crew.email).get_attribute("href")
    assert (team_link, holder_link) == (f"{server.url}/console/teams/{team['id']}", f"{server.url}/console/people/{crew.user_id}")
    browser.open(f"{server.url}/console/shared-devices/{tablet.device_id}")
    assert browser.driver.find_element(By.CSS_SELECTOR, "dl.facts").find_element(By.LINK_TEXT, team["name"])
    shifts = browser.driver.find_element(By.XPATH, "//h2[text()='Shifts']/following-sibling::table[1]")
    assert shifts.find_element(By.LINK_TEXT, crew.email).get_attribute("href") == holder_link
    assert "still on shift" in shifts.text, shifts.text
