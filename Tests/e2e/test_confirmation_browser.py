"""The device confirmation page in a real browser (headless Chromium): what a person sees and
presses from the login link to "Signed in", and the forwarded IdP link, run with two people's
browsers as the attacker would run it."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from helpers import (
    Browser,
    FieldpassServer,
    assert_event,
    assert_idp_request,
    receive,
    receive_until_close,
    unique_email,
    ws_connect,
)

TABLET = {"name": "Depot tablet 3", "platform": "ios"}
ATTACKER_DEVICE = {"name": "Pixel 8", "platform": "android"}


def test_a_person_confirms_the_device_signs_in_and_the_app_gets_its_token(
    server: FieldpassServer, browser: Browser, email: str
) -> None:
    registration = server.register(email, TABLET)
    login_path = urlsplit(registration.login_url).path
    with ws_connect(registration.websocket_url) as app:
        browser.open(registration.login_url)
        assert browser.heading == "Confirm your device", browser.describe()
        assert browser.text_of(".code") == registration.user_code, browser.describe()
        assert "Depot tablet 3 (ios)" in browser.text, browser.describe()
        page_cookie = browser.cookie("fieldpass_confirm")

        browser.press("Continue to sign in")
        assert_idp_request(server, browser.url, email)
        binding_cookie = browser.cookie("fieldpass_signin_")

        browser.sign_in_at_idp(email)
        assert urlsplit(browser.url).path == "/auth_callback", browser.describe()
        assert browser.heading == "Signed in", browser.describe()
        token_event, realm_event = receive(app, 2)

    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    assert server.verify_access_token(token_event["access_token"])["email"] == email
    assert (page_cookie.http_only, page_cookie.same_site, page_cookie.path) == (True, "Strict", login_path)
    assert (binding_cookie.http_only, binding_cookie.same_site, binding_cookie.path) == (True, "Lax", "/auth_callback")
    assert not page_cookie.secure and not binding_cookie.secure, "Secure cookies never come back over http://"


def test_a_forwarded_idp_link_signs_the_victim_in_for_nobody(
    server: FieldpassServer, browsers: Callable[..., Browser]
) -> None:
    victim_email = unique_email("victim")
    attacker, victim = browsers(), browsers(phone=True)
    # The attacker registers his own device with the victim's email and holds its socket.
    registration = server.register(victim_email, ATTACKER_DEVICE)
    with ws_connect(registration.websocket_url) as attacker_app:
        # In his own browser he opens the login link, sees his own code and presses the button...
        attacker.open(registration.login_url)
        assert attacker.text_of(".code") == registration.user_code, attacker.describe()
        attacker.press("Continue to sign in")
        # ...and sends the genuine IdP link he lands on to the victim, who signs in on her phone.
        victim.open(attacker.url)
        victim.sign_in_at_idp(victim_email)
        got = receive_until_close(attacker_app)

    assert urlsplit(victim.url).path == "/auth_callback", victim.describe()
    assert victim.heading == "Sign-in failed", victim.describe()
    assert "Finish signing in on the device that started it" in victim.text, victim.describe()
    assert got.types == ["login_failed"] and got.closed, got
    assert got.events[0]["error"] == "browser_mismatch", got
    assert not any("access_token" in event or "refresh_token" in event for event in got.events), got
