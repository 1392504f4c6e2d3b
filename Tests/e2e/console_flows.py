"""The admin console as a person reaches it: a browser through the sign-in page and the IdP."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Browser, FieldpassServer


def console_sign_in(browser: Browser, server: FieldpassServer, email: str) -> None:
    browser.open(f"{server.url}/console")
    field = browser.driver.find_element(By.ID, "email")
    field.send_keys(email)
    browser.press("Continue")
    browser.sign_in_at_idp(email)
