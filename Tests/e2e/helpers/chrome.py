"""A real browser: Debian's headless Chromium, driven through its chromedriver by Selenium.

One `Browser` is one person: a fresh profile in a temporary folder, so a cookie jar of its
own from Fieldpass's confirmation page through the IdP to /auth_callback. It reaches only
loopback addresses: everything else (the mock IdP's stylesheet on a CDN, Chromium's own
background requests) goes to a proxy address where nothing listens, and fails at once.
"""

from __future__ import annotations

import base64
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from .processes import _die_with_parent
from .settings import HTTP_TIMEOUT

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DESKTOP = (1280, 900)
PHONE = (360, 780)  # CSS pixels, device pixel ratio 1: a 360 px wide screenshot

# Browsers not yet quit, so that a failing test can show where each one was.
OPEN_BROWSERS: list[Browser] = []


@dataclass(frozen=True)
class Cookie:
    """A cookie as the browser stored it, with the flags it was set with."""

    name: str
    value: str
    domain: str
    path: str
    http_only: bool
    secure: bool
    same_site: str | None  # "Strict", "Lax", "None", or None when the cookie named none
    session: bool  # no Expires or Max-Age: gone when the browser closes


def _options(phone: bool, profile: Path) -> webdriver.ChromeOptions:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container: Chromium's sandbox cannot start
        "--disable-dev-shm-usage",  # a container's /dev/shm is small
        f"--user-data-dir={profile}",
        "--hide-scrollbars",  # pages and screenshots as wide as the screen
        # Loopback never goes through a proxy, so only outside requests reach this one.
        "--proxy-server=127.0.0.1:9",
    ):
        options.add_argument(argument)
    # The page gets exactly this screen (a window's size would include room for its toolbars,
    # and Chromium's window is at least 500 px wide); a phone's is also a touch screen.
    width, height = PHONE if phone else DESKTOP
    metrics = {"width": width, "height": height, "pixelRatio": 1, "mobile": phone, "touch": phone}
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    return options


class Browser:
    """One person's headless Chromium, its pages on a 1280 x 900 screen, or with `phone=True`
    a 360 x 780 touch screen. Call quit() when done (the `browser` fixtures do)."""

    def __init__(self, *, phone: bool = False, timeout: float = HTTP_TIMEOUT) -> None:
        self.timeout = timeout
        # The profile, and chromedriver's log; removed by quit().
        self._folder = Path(tempfile.mkdtemp(prefix="fieldpass-chromium-"))
        try:
            service = Service(CHROMEDRIVER, log_output=str(self._folder / "chromedriver.log"),
                              popen_kw={"preexec_fn": _die_with_parent})
            self.driver = webdriver.Chrome(options=_options(phone, self._folder / "profile"), service=service)
        except BaseException:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise
        self.driver.set_page_load_timeout(timeout)
        OPEN_BROWSERS.append(self)

    def quit(self) -> None:
        if self in OPEN_BROWSERS:
            OPEN_BROWSERS.remove(self)
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.quit()

    # ---- what the page shows

    def open(self, url: str) -> None:
        self.driver.get(url)

    @property
    def url(self) -> str:
        return self.driver.current_url

    @property
    def heading(self) -> str:
        """The page's first <h1>, as shown."""
        return self.text_of("h1")

    @property
    def text(self) -> str:
        """Everything the page shows, as a person reads it."""
        return self.text_of("body")

    def text_of(self, css_selector: str) -> str:
        return self.driver.find_element(By.CSS_SELECTOR, css_selector).text

    def describe(self) -> str:
        """Where the browser is and what it shows, for failure messages."""
        try:
            return f"at {self.url}:\n{self.text}"
        except WebDriverException as error:
            return f"<page unreadable: {error.msg}>"

    # ---- acting as the person

    def press(self, label: str) -> None:
        """Click the button labelled `label`, then wait until the next page has loaded."""
        button = self.driver.find_element(By.XPATH, f"//button[normalize-space()={_xpath_literal(label)}]")
        self._click_and_wait(button)

    def sign_in_at_idp(self, sub: str) -> None:
        """On oidc-provider-mock's authorization page: type `sub` (whose email claim is `sub`
        unless set otherwise with MockIdP.set_user) and press "Authorize". Returns once the
        page the IdP redirects to has loaded."""
        field = self.driver.find_element(By.CSS_SELECTOR, "form input[name='sub']")
        field.clear()
        field.send_keys(sub)
        self._click_and_wait(field.find_element(By.XPATH, "ancestor::form//button[@type='submit']"))

    def deny_at_idp(self) -> None:
        """On oidc-provider-mock's authorization page: press "Deny"."""
        self.press("Deny")

    def _click_and_wait(self, element: WebElement) -> None:
        element.click()
        wait = WebDriverWait(self.driver, self.timeout)
        wait.until(lambda driver: _gone(element), "the page did not change")
        wait.until(lambda driver: driver.execute_script("return document.readyState") == "complete",
                   "the next page did not finish loading")

    # ---- what the browser keeps

    def cookies(self) -> list[Cookie]:
        """Every cookie of this browser, whatever its domain and path (WebDriver's own
        get_cookies sees only those the current page would be sent)."""
        stored = self.driver.execute_cdp_cmd("Storage.getCookies", {})["cookies"]
        return [_cookie(raw) for raw in stored]

    def cookie(self, name_prefix: str) -> Cookie:
        """The one cookie whose name starts with `name_prefix` (a whole name, or the start of a
        family of names)."""
        found = [cookie for cookie in self.cookies() if cookie.name.startswith(name_prefix)]
        assert len(found) == 1, f"expected one cookie named {name_prefix}..., got {found}"
        return found[0]

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        """A PNG of what the screen shows now, or with `full_page` of the whole page, as wide
        as the screen and as long as the page."""
        if full_page:
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
            png = base64.b64decode(shot["data"])
        else:
            png = self.driver.get_screenshot_as_png()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        return path


def _gone(element: WebElement) -> bool:
    """Whether `element`'s page has been replaced. Selenium's staleness_of knows only the
    stale-element error; Chromium answers "does not belong to the document" instead while the
    old document is being torn down, which means the same."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in (error.msg or ""):
            return True
        raise


def _cookie(raw: dict[str, Any]) -> Cookie:
    return Cookie(
        name=raw["name"], value=raw["value"], domain=raw["domain"], path=raw["path"],
        http_only=raw["httpOnly"], secure=raw["secure"], same_site=raw.get("sameSite"),
        session=raw["session"],
    )


def _xpath_literal(text: str) -> str:
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"
