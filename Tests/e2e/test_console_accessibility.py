"""The console's pages as assistive technology and the keyboard meet them, in a real Chromium.

On every page an admin reaches, on a desktop's screen and on a phone's: each control has an
accessible name (Chromium's own, from its accessibility tree); the Tab key reaches every
control, in the page's order; and every piece of text, a stacked table's generated labels
too, has a contrast of at least 4.5:1 against what is behind it (WCAG 2 AA).
"""

from __future__ import annotations

import uuid

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

from console_flows import admin_pages, console_sign_in
from helpers import ADMIN_EMAIL, Browser, FieldpassServer, SignedIn, assert_json, sign_in, unique_email

# What assistive technology and the keyboard meet is the templates' and the stylesheet's, the same whichever store filled the page:
# the SQLite pass checks it, and test_console.py drives the console on both stores.
pytestmark = pytest.mark.store_independent

CONTROLS = "a[href], button, summary, input:not([type=hidden]), select, textarea"
AA_CONTRAST = 4.5

# For each element with text of its own, or with generated text before it (a stacked table
# cell's label): its text colour and the first opaque background at or behind it, as [r, g, b]
# (an element's colour with alpha is blended over that background).
TEXT_COLOURS = """
function rgba(text) { return text.match(/[\\d.]+/g).map(Number); }
function background(element) {
  for (let at = element; at; at = at.parentElement) {
    const colour = rgba(getComputedStyle(at).backgroundColor);
    if (colour.length < 4 || colour[3] > 0) return colour.slice(0, 3);
  }
  return [255, 255, 255];
}
function seen(text, tag, style, under) {
  let colour = rgba(style.color);
  if (colour.length === 4) colour = colour.slice(0, 3).map((c, i) => c * colour[3] + under[i] * (1 - colour[3]));
  return {text: text.trim().slice(0, 40), tag: tag, colour: colour.slice(0, 3), background: under};
}
const found = [];
for (const element of document.body.querySelectorAll('*')) {
  const style = getComputedStyle(element);
  if (style.visibility === 'hidden' || style.display === 'none') continue;
  const own = [...element.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  if (own) found.push(seen(element.textContent, element.tagName, style, background(element)));
  const before = getComputedStyle(element, '::before');
  if (before.display !== 'none' && /^".+"$/.test(before.content)) {
    found.push(seen(before.content, element.tagName + '::before', before, background(element)));
  }
}
return found;
"""


def luminance(rgb: list[float]) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
    red, green, blue = (channel(value) for value in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: list[float], second: list[float]) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def controls(browser: Browser) -> list[WebElement]:
    return [element for element in browser.driver.find_elements(By.CSS_SELECTOR, CONTROLS) if element.is_displayed()]


def assert_every_control_is_named(browser: Browser, page: str) -> None:
    unnamed = [
        element.get_attribute("outerHTML")[:120] for element in controls(browser) if not element.accessible_name.strip()
    ]
    assert not unnamed, f"{page}: controls without an accessible name: {unnamed}"


def assert_tab_reaches_every_control(browser: Browser, page: str) -> None:
    """From nothing focused, Tab after Tab: every control once, in the page's order, then out."""
    expected = [element.id for element in controls(browser)]
    browser.driver.execute_script("document.activeElement && document.activeElement.blur()")
    reached: list[str] = []
    for _ in range(len(expected) + 1):
        ActionChains(browser.driver).send_keys(Keys.TAB).perform()
        focused = browser.driver.switch_to.active_element
        if focused.tag_name == "body" or focused.id in reached:
            break
        reached.append(focused.id)
    assert reached == expected, f"{page}: Tab reached {len(reached)} of {len(expected)} controls, or in another order"


def assert_text_has_contrast(browser: Browser, page: str) -> None:
    texts = browser.driver.execute_script(TEXT_COLOURS)
    assert texts, f"{page}: no text found"
    faint = [
        f"{text['tag']} {text['text']!r}: {contrast(text['colour'], text['background']):.2f}"
        for text in texts
        if contrast(text["colour"], text["background"]) < AA_CONTRAST
    ]
    assert not faint, f"{page}: text under {AA_CONTRAST}:1 contrast: {faint}"


# On a desktop's screen, and on a phone's, where tables stack and their labels are generated.
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_every_console_page_is_named_reachable_by_keyboard_and_legible(
    directory_server: FieldpassServer, admin: SignedIn, browsers, phone: bool
) -> None:
    server = directory_server
    worker = sign_in(server, unique_email("field"))
    team = assert_json(server.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": f"Crew {uuid.uuid4().hex[:8]}"}), 201)
    browser = browsers(phone=phone)
    browser.open(f"{server.url}/console")
    assert_every_control_is_named(browser, "sign-in")
    assert_tab_reaches_every_control(browser, "sign-in")
    assert_text_has_contrast(browser, "sign-in")

    console_sign_in(browser, server, ADMIN_EMAIL)
    for page, path in admin_pages(worker.claims["sub"], team["id"]).items():
        browser.open(f"{server.url}{path}")
        assert not browser.heading.startswith("Not"), browser.describe()
        assert_every_control_is_named(browser, page)
        assert_tab_reaches_every_control(browser, page)
        assert_text_has_contrast(browser, page)

    # Each check fails on a page spoiled in its way (changed from a script, which the CSP allows
    # WebDriver and no page): a field with no label, a link Tab skips, grey on white.
    spoils = {
        assert_every_control_is_named: ("document.querySelector('h1').after(document.createElement('input'))", "without an accessible name"),
        assert_tab_reaches_every_control: ("document.querySelector('nav a').tabIndex = -1", "Tab reached"),
        assert_text_has_contrast: ("document.querySelector('h1').style.color = '#aaa'", "under 4.5:1"),
    }
    for check, (spoil, complaint) in spoils.items():
        browser.open(f"{server.url}/console/people")
        browser.driver.execute_script(spoil)
        with pytest.raises(AssertionError, match=complaint):
            check(browser, "a spoiled page")
    if phone:
        # A stacked cell's generated label is text too: grey on white fails it as well.
        browser.open(f"{server.url}/console/people")
        browser.driver.execute_script("document.querySelector('td[data-label]').style.color = '#aaa'")
        with pytest.raises(AssertionError, match="TD::before"):
            assert_text_has_contrast(browser, "a spoiled page")
