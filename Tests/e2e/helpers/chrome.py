"""A real browser: Debian's headless Chromium, driven through its chromedriver by Selenium.

One `Browser` is one person: a fresh profile in a temporary folder, so a cookie jar of its
own from Fieldpass's confirmation page through the IdP to /auth_callback. It reaches only
loopback addresses: everything else (the mock IdP's stylesheet on a CDN, Chromium's own
background requests) goes to a proxy address where nothing listens, and fails at once.
Started with `network_log=True`, it also keeps Chromium's network log, to show the redirects
it was sent, even one to an app's own scheme that it cannot open.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from .browser import idp_answer, new_browser
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


@dataclass(frozen=True)
class Redirect:
    """A redirect the browser was sent, from its network log: the URL that answered, the
    status, and the Location header exactly as sent."""

    url: str
    status: int
    location: str


def _options(phone: bool, profile: Path, network_log: bool) -> webdriver.ChromeOptions:
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
    if network_log:
        # chromedriver's performance log: the DevTools Network events, redirects included.
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    return options


class Browser:
    """One person's headless Chromium, its pages on a 1280 x 900 screen, or with `phone=True`
    a 360 x 780 touch screen; with `network_log=True` it keeps its network log (redirects()).
    Call quit() when done (the `browser` fixtures do)."""

    def __init__(self, *, phone: bool = False, timeout: float = HTTP_TIMEOUT, network_log: bool = False) -> None:
        self.timeout = timeout
        self.network_log = network_log
        self._redirects: list[Redirect] = []
        # The profile, and chromedriver's log; removed by quit().
        self._folder = Path(tempfile.mkdtemp(prefix="fieldpass-chromium-"))
        try:
            service = Service(CHROMEDRIVER, log_output=str(self._folder / "chromedriver.log"),
                              popen_kw={"preexec_fn": _die_with_parent})
            options = _options(phone, self._folder / "profile", network_log)
            self.driver = webdriver.Chrome(options=options, service=service)
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

    def ask(self, label: str) -> WebElement:
        """Open the question of an action that asks first (its summary reads `label…`), unless
        it is open; the button that answers it, not pressed yet."""
        summary = self.driver.find_element(By.XPATH, f"//summary[normalize-space()={_xpath_literal(label + '…')}]")
        if summary.find_element(By.XPATH, "..").get_attribute("open") is None:
            summary.click()
        return summary.find_element(By.XPATH, "following-sibling::form//button[@type='submit']")

    def confirm(self, label: str) -> None:
        """An action that asks first: open its question, then press the button that answers
        it, and wait until the next page has loaded."""
        self._click_and_wait(self.ask(label))

    def sign_in_at_idp(self, sub: str, *, new_page: bool = True) -> None:
        """On oidc-provider-mock's authorization page: type `sub` (whose email claim is `sub`
        unless set otherwise with MockIdP.set_user) and press "Authorize". Returns once the
        page the IdP redirects to has loaded; with `new_page=False`, once pressed: where the
        redirects end outside the browser (an app's own scheme), the IdP's page stays."""
        field = self.driver.find_element(By.CSS_SELECTOR, "form input[name='sub']")
        field.clear()
        field.send_keys(sub)
        button = field.find_element(By.XPATH, "ancestor::form//button[@type='submit']")
        if not new_page:
            button.click()
            return
        idp = _origin(self.url)
        self._click_and_wait(button)
        # The IdP answers with a redirect to the client's callback. Under load, Chromium can
        # report the IdP's page gone and loaded while that redirect is still pending (the
        # likeliest reading of one CI failure), and a navigation started then cancels it:
        # wait until the browser has left.
        WebDriverWait(self.driver, self.timeout).until(
            lambda driver: _origin(driver.current_url) != idp
            and driver.execute_script("return document.readyState") == "complete",
            "the browser did not leave the IdP",
        )

    def deny_at_idp(self) -> None:
        """On oidc-provider-mock's authorization page: refuse, as a conforming IdP's "Deny"
        would, and follow its redirect.

        oidc-provider-mock 0.3.4's own "Deny" redirects without `state` (RFC 6749 section
        4.1.2.1 requires it), so no client could tell whose refusal it is. So the mock's
        answer to that same form is fetched for the browser (the mock keeps no session of
        the browser's) and the browser follows it, with the request's `state` put back in
        (helpers.browser.idp_answer), carrying its own cookies."""
        with new_browser() as fetcher:
            self.open(idp_answer(self.url, {"action": "deny"}, fetcher))

    def _click_and_wait(self, element: WebElement) -> None:
        element.click()
        wait = WebDriverWait(self.driver, self.timeout)
        wait.until(lambda driver: _gone(element), "the page did not change")
        wait.until(lambda driver: driver.execute_script("return document.readyState") == "complete",
                   "the next page did not finish loading")

    # ---- what the browser was sent

    def redirects(self) -> list[Redirect]:
        """Every redirect this browser has been sent so far, oldest first (with
        `network_log=True`)."""
        assert self.network_log, "start the browser with network_log=True"
        for entry in self.driver.get_log("performance"):  # what came since the last call
            message = json.loads(entry["message"])["message"]
            answer = message["params"].get("redirectResponse")
            if message["method"] == "Network.requestWillBeSent" and answer is not None:
                headers = {name.lower(): value for name, value in answer["headers"].items()}
                self._redirects.append(Redirect(answer["url"], answer["status"], headers.get("location", "")))
        return list(self._redirects)

    def wait_for_redirect(self, url_prefix: str) -> Redirect:
        """The redirect sent by a URL starting with `url_prefix` (the first one), once sent."""
        found: list[Redirect] = []

        def sent(driver: object) -> bool:
            found[:] = [redirect for redirect in self.redirects() if redirect.url.startswith(url_prefix)]
            return bool(found)

        WebDriverWait(self.driver, self.timeout).until(sent, f"no redirect from {url_prefix}")
        return found[0]

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


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


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
