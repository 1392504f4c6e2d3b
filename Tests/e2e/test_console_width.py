"""Every console page on a phone, and wider: nothing sticks out, nothing loses its label.

Docs/administration.md says the console works from 360 px wide. Each page the console
answers a GET with (ConsoleRoutes: the sign-in page, People, a person, Teams, a team, Shared
devices, a shared device with its shifts, Onboarding, Audit, Keys) and the message pages (not
found, admins only, not changed, not allowed here) is opened in a headless Chromium with a
360 px phone screen, then laid out again at each width of WIDTHS, up to a desktop's. At each
width:

- nothing scrolls sideways: the document is no wider than the screen. A mobile browser
  widens its layout viewport, and so `innerWidth`, to fit a page that is too wide, so the
  screen's width is the measure;
- a table whose rows are stacked (its cells no longer laid out as table cells) shows each
  cell's column label beside or above the value, and any other table shows its header row;
- every form label sits beside its field or right above it, never at the end of one line
  with its field on the next;
- no word on the page is broken mid-letter: a word is a run of letters and digits, so an email,
  a path or a dotted action may break between its parts and a hyphenated word after a hyphen,
  but nothing inside a part; ids (.id, code) may break anywhere.

At 360 px a stacked cell's accessible name also starts with its label: a screen reader meets
the label with the value, as the eye does.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from console_flows import admin_pages, console_sign_in, keep_screenshot
from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    EMAIL_DOMAIN,
    Browser,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    SignedIn,
    assert_json,
    running_server,
    sign_in,
    unique_email,
)
from helpers.chrome import PHONE
from scim_flows import DEV_TOKEN, new_user, scim, scim_json
from test_shifts import enrolled_tablet, shift_sign_in

# Layout is the templates' and the stylesheet's, the same whichever store filled the page:
# the SQLite pass checks it, and test_console.py drives the console on both stores.
pytestmark = pytest.mark.store_independent

# From the narrowest phone the console supports to a desktop, across the 600 px step where
# tables stack and forms fold.
WIDTHS = (360, 375, 390, 414, 480, 540, 600, 601, 700, 800, 1024, 1280)

# Docs/administration.md's screenshots, when asked for (FIELDPASS_E2E_SCREENSHOTS=Docs): the
# pages that show a phone's layout best.
SCREENSHOTS = {"People": "console-people.png", "a person": "console-person.png"}

# dev with a SCIM token, so that a person can come with a display name as a company's IdP
# provisions them; roles stay the console's to change.
ENVIRONMENTS = (
    EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,), scim_token_env="DEV_SCIM_TOKEN", scim_token=DEV_TOKEN),
)

# What is wrong with the page as laid out now, at a screen `arguments[0]` px wide.
PROBLEMS = """
const width = arguments[0];
const problems = [];
const shown = element => element.getClientRects().length > 0;

const scrollWidth = document.documentElement.scrollWidth;
if (scrollWidth > width) {
  // The innermost elements past the screen's edge, or holding text that is.
  const out = new Set([...document.body.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > width + 0.5));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = document.createRange();
    text.selectNodeContents(walker.currentNode);
    if (text.getBoundingClientRect().right > width + 0.5) out.add(walker.currentNode.parentElement);
  }
  const innermost = [...out].filter(e => ![...out].some(other => other !== e && e.contains(other)));
  const names = innermost.slice(0, 4).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
  problems.push(`${scrollWidth} px wide (sticking out: ${names.join(', ')})`);
}

for (const table of document.querySelectorAll('main table')) {
  const headers = [...table.querySelectorAll('thead th')];
  for (const row of table.querySelectorAll('tbody tr')) {
    // A row that says "None" spans the table and has no column to name.
    if (row.cells.length !== headers.length) continue;
    [...row.cells].forEach((cell, column) => {
      const label = headers[column].textContent.trim();
      if (getComputedStyle(cell).display === 'table-cell') {
        if (!shown(headers[column])) problems.push(`the ${label} column has no header shown`);
        return;
      }
      const before = getComputedStyle(cell, '::before');
      if (before.display === 'none' || before.content !== JSON.stringify(label)) {
        problems.push(`a stacked ${label} cell shows ${before.content === 'none' ? 'no label' : 'the label ' + before.content}`);
      }
    });
  }
}

for (const label of document.querySelectorAll('label')) {
  const field = label.control;
  if (!field || !shown(label) || !shown(field)) continue;
  // The label's own words: a label around its field ends where the field starts.
  const words = document.createRange();
  words.selectNodeContents(label);
  if (label.contains(field)) words.setEndBefore(field);
  const lines = [...words.getClientRects()].filter(rect => rect.width >= 1);
  if (!lines.length) continue;
  const last = lines[lines.length - 1];
  const box = field.getBoundingClientRect();
  const beside = last.right <= box.left + 1 && box.left - last.right <= 24 && last.top < box.bottom && last.bottom > box.top;
  const above = last.bottom <= box.top + 1 && box.top - last.bottom <= 16 && Math.abs(last.left - box.left) <= 2;
  if (!beside && !above) problems.push(`the label "${label.textContent.trim()}" is apart from its field`);
}

// Words laid out on more than one line, anywhere on the page but in ids (.id, code): a word is
// a run of letters and digits, so that an email, a path or a dotted name may break between
// its parts, and a hyphenated word after a hyphen, but never inside a part.
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  // Not shown: an unanswered question's text, inside its closed <details>, is laid out nowhere.
  if (node.parentElement.closest('.id, code, select') || !node.parentElement.checkVisibility()) continue;
  for (const match of node.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    if (new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size > 1) {
      problems.push(`a ${node.parentElement.tagName.toLowerCase()} breaks "${match[0]}" mid-word`);
    }
  }
}
return problems;
"""


def lay_out(browser: Browser, width: int) -> None:
    """The page laid out again on a phone screen `width` px wide, without reloading it (the
    page may be the answer to a POST)."""
    browser.driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True},
    )
    WebDriverWait(browser.driver, browser.timeout).until(
        lambda driver: driver.execute_script("return screen.width") == width, f"the screen did not become {width} px wide"
    )


def stacked_labels_unheard(browser: Browser) -> list[str]:
    """The cells of each stacked table's first full row whose accessible name does not start
    with their column's label."""
    unheard = []
    for table in browser.driver.find_elements(By.CSS_SELECTOR, "main table"):
        labels = [th.get_attribute("textContent").strip() for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        rows = [row for row in table.find_elements(By.CSS_SELECTOR, "tbody tr") if len(row.find_elements(By.TAG_NAME, "td")) == len(labels)]
        if not rows:
            continue
        for cell, label in zip(rows[0].find_elements(By.TAG_NAME, "td"), labels, strict=True):
            if cell.value_of_css_property("display") != "table-cell" and not cell.accessible_name.startswith(label):
                unheard.append(f"a stacked {label} cell is heard as {cell.accessible_name!r}")
    return unheard


class Widths:
    """Checks pages at every width and keeps what is wrong, so that one run lists every page's
    problems rather than the first: each once per page, with the widths it was seen at."""

    def __init__(self) -> None:
        self.problems: dict[str, list[int]] = {}

    def check(self, browser: Browser, page: str) -> None:
        """The page the browser shows now, `page` naming it, at 360 px and at each width."""
        for problem in stacked_labels_unheard(browser):
            self._keep(f"{page}: {problem}", PHONE[0])
        for width in WIDTHS:
            lay_out(browser, width)
            for problem in browser.driver.execute_script(PROBLEMS, width):
                self._keep(f"{page}: {problem}", width)
        lay_out(browser, PHONE[0])

    def _keep(self, problem: str, width: int) -> None:
        seen = self.problems.setdefault(problem, [])
        if width not in seen:
            seen.append(width)

    def assert_none(self) -> None:
        assert not self.problems, "\n".join(f"{problem} (at {', '.join(map(str, seen))} px)" for problem, seen in self.problems.items())


@pytest.fixture(scope="module")
def console_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    with running_server(fieldpass_bin, idp, tmp_path_factory.mktemp("server-console-width"), environments=ENVIRONMENTS) as server:
        yield server


@pytest.fixture(scope="module")
def admin(console_server: FieldpassServer) -> SignedIn:
    """dev's bootstrap admin, signed in once so that the admin API knows them as an admin."""
    return sign_in(console_server, ADMIN_EMAIL)


@pytest.fixture(scope="module")
def worker(console_server: FieldpassServer, admin: SignedIn) -> SignedIn:
    """A worker with everything the person page lists: a team, an explicit grant, two devices
    (one revoked, one with a long name), and the history those made."""
    server = console_server
    worker = sign_in(server, unique_email("field"))
    user_id = worker.claims["sub"]
    sign_in(server, worker.email, {"name": "Workshop tablet by the north loading dock", "platform": "android"})
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": f"Night shift {uuid.uuid4().hex[:8]}"}), 201)
    assert_json(server.api("PUT", f"/admin/teams/{team['id']}/members/{user_id}", token=admin.access_token))
    assert_json(server.api(
        "PUT", f"/admin/users/{user_id}/grants", token=admin.access_token,
        json_body={"realm_path": "/tasks/archive-2026", "access": "read"},
    ))
    devices = assert_json(server.api("GET", f"/admin/users/{user_id}/devices", token=admin.access_token))["devices"]
    revoked = server.api("DELETE", f"/admin/users/{user_id}/devices/{devices[0]['id']}", token=admin.access_token)
    assert revoked.status_code == 204, revoked.text
    return worker


@pytest.fixture(scope="module")
def tablet(console_server: FieldpassServer, admin: SignedIn, worker: SignedIn) -> str:
    """The id of a shared device of the worker's team, with a long name, that a crew lead with a
    long address held until the worker signed in on it: the list, its page with both shifts and
    the audit log name them all."""
    server = console_server
    (team,) = assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"]
    tablet = enrolled_tablet(server, admin, team["id"], name="Delivery van 12 of the north depot night crew")
    shift_sign_in(server, tablet, unique_email("lead-of-the-night-shift-crew"))
    shift_sign_in(server, tablet, worker.email)
    return tablet.device_id


def test_every_page_an_admin_sees_fits_a_phone(
    console_server: FieldpassServer, admin: SignedIn, worker: SignedIn, tablet: str, browsers
) -> None:
    server = console_server
    provisioned = unique_email("crew")
    scim_json(scim(server, "POST", "/Users", new_user(provisioned, displayName="Maria Fernanda Castillo-Villanueva de la Cruz")), 201)
    team = server.api("GET", "/admin/teams", token=admin.access_token).json()["teams"][0]
    widths = Widths()
    phone = browsers(phone=True)

    phone.open(f"{server.url}/console")
    widths.check(phone, "sign-in")
    phone.driver.find_element(By.ID, "email").send_keys("someone@nowhere.invalid")
    phone.press("Continue")
    assert phone.text_of(".problem"), phone.describe()
    widths.check(phone, "sign-in, refused")

    console_sign_in(phone, server, ADMIN_EMAIL)
    assert phone.heading == "People", phone.describe()
    provisioned_page = phone.driver.find_element(By.LINK_TEXT, provisioned).get_attribute("href")
    for page, path in admin_pages(worker.claims["sub"], team["id"], tablet).items():
        phone.open(f"{server.url}{path}")
        assert not phone.heading.startswith("Not"), phone.describe()
        if page in SCREENSHOTS:
            keep_screenshot(phone, SCREENSHOTS[page])
        widths.check(phone, page)
    phone.open(f"{server.url}/console/people/{admin.claims['sub']}")
    widths.check(phone, "the admin themself")
    phone.open(provisioned_page)
    assert phone.heading == provisioned, phone.describe()
    widths.check(phone, "a provisioned person")

    for what, path in (("person", "/console/people/"), ("team", "/console/teams/")):
        phone.open(f"{server.url}{path}{uuid.uuid4()}")
        assert phone.heading == "Not found", phone.describe()
        widths.check(phone, f"no such {what}")
    phone.open(f"{server.url}/console/people/{worker.claims['sub']}")
    phone.driver.find_element(By.ID, "grant-path").send_keys("tasks-without-a-slash")
    phone.press("Add grant")
    assert phone.heading == "Not changed", phone.describe()
    widths.check(phone, "a refused change")
    widths.assert_none()


def test_every_page_a_manager_sees_fits_a_phone(console_server: FieldpassServer, admin: SignedIn, worker: SignedIn, browsers) -> None:
    server = console_server
    # A long address, as the header shows it beside "Sign out".
    manager = sign_in(server, unique_email("lead-of-the-night-shift-crew"))
    assert_json(server.api("PUT", f"/admin/users/{manager.claims['sub']}/role", token=admin.access_token, json_body={"role": "manager"}))
    widths = Widths()
    phone = browsers(phone=True)
    console_sign_in(phone, server, manager.email)
    assert phone.heading == "People", phone.describe()
    widths.check(phone, "People, for a manager")
    phone.open(f"{server.url}/console/people/{worker.claims['sub']}")
    widths.check(phone, "a person, for a manager")
    phone.open(f"{server.url}/console/keys")
    assert phone.heading == "Admins only", phone.describe()
    widths.check(phone, "admins only")
    widths.assert_none()


def test_the_refusal_of_an_unknown_person_fits_a_phone(console_server: FieldpassServer, browsers) -> None:
    # An address with no hyphen to break at for the width of a phone.
    stranger = unique_email("maria.fernanda.castillo.villanueva.delacruz")
    widths = Widths()
    phone = browsers(phone=True)
    console_sign_in(phone, console_server, stranger)
    assert phone.heading == "Not allowed here" and stranger in phone.text, phone.describe()
    widths.check(phone, "not allowed here")
    widths.assert_none()
