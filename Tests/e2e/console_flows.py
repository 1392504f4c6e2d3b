"""The admin console as a person reaches it: a browser through the sign-in page and the IdP."""

from __future__ import annotations

import os
from pathlib import Path

from selenium.webdriver.common.by import By

from helpers import Browser, FieldpassServer

# Where screenshots for Docs/ are written when asked (FIELDPASS_E2E_SCREENSHOTS=Docs).
SCREENSHOTS = os.environ.get("FIELDPASS_E2E_SCREENSHOTS")


def console_sign_in(browser: Browser, server: FieldpassServer, email: str) -> None:
    browser.open(f"{server.url}/console")
    field = browser.driver.find_element(By.ID, "email")
    field.send_keys(email)
    browser.press("Continue")
    browser.sign_in_at_idp(email)


def admin_pages(person_id: str, team_id: str, device_id: str | None = None) -> dict[str, str]:
    """The paths of the pages an admin reaches from the console's navigation (its GET routes),
    by name, with the person's, the team's and (if given) the shared device's page of the ids
    given."""
    return {
        "People": "/console/people",
        "a person": f"/console/people/{person_id}",
        "Teams": "/console/teams",
        "a team": f"/console/teams/{team_id}",
        "Shared devices": "/console/shared-devices",
        **({"a shared device": f"/console/shared-devices/{device_id}"} if device_id else {}),
        "Onboarding": "/console/onboarding",
        "Audit": "/console/audit",
        "Keys": "/console/keys",
    }


def keep_screenshot(browser: Browser, name: str) -> None:
    if SCREENSHOTS:
        shot = browser.screenshot(Path(SCREENSHOTS) / name)
        assert shot.stat().st_size > 0
