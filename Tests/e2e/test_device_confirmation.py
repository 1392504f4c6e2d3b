"""The device confirmation page between registration and the IdP.

`login_url` opens Fieldpass's own page, which names the device and shows the user code the
device shows; only its form (with the csrf_token field and the page's cookie) leads on to
the IdP, once. Without `confirm_device`, `login_url` is the IdP's authorization URL itself.
"""

from __future__ import annotations

import html
import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from helpers import (
    ConfirmationPage,
    FieldpassServer,
    MockIdP,
    Registration,
    assert_event,
    assert_idp_request,
    admin_cli,
    assert_silent,
    authorization_endpoint,
    browser_login,
    cli_users,
    cookie_attributes,
    describe,
    http_client,
    is_html,
    onboarding_steps,
    open_confirmation,
    receive,
    start_server,
    unique_email,
    ws_connect,
)

USER_CODE = re.compile(r"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$")
LOGIN_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")
COOKIE = "fieldpass_confirm"
TABLET = {"name": "Depot tablet 3", "platform": "ios"}


# --------------------------------------------------------------------------- servers


def _own_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory, name: str,
    extra_env: dict[str, str],
) -> Iterator[FieldpassServer]:
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp(name), extra_env)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def direct_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """`confirm_device: false`: login_url leads straight to the IdP."""
    yield from _own_server(
        fieldpass_bin, idp, tmp_path_factory, "server-direct", {"ENVIRONMENTS_DEV_CONFIRM_DEVICE": "false"}
    )


@pytest.fixture(scope="module")
def prompt_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """`idp.prompt: login`, with the confirmation page (the default)."""
    yield from _own_server(
        fieldpass_bin, idp, tmp_path_factory, "server-prompt", {"ENVIRONMENTS_DEV_IDP_PROMPT": "login"}
    )


# --------------------------------------------------------------------------- steps


def login_id_of(registration: Registration) -> str:
    return urlsplit(registration.login_url).path.rsplit("/", 1)[-1]


def assert_html(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, describe(response)
    assert is_html(response), describe(response)


def confirm(page: ConfirmationPage) -> str:
    """Submit the page's form as the browser would; returns the IdP URL it redirects to."""
    response = page.submit()
    assert response.status_code == 303, describe(response)
    return response.headers["location"]


def finish_sign_in(
    server: FieldpassServer, ws, idp_url: str, email: str, browser: httpx.Client | None = None
) -> dict[str, Any]:
    """Sign in at the IdP in `browser` (the one that confirmed, if any); the socket gets token
    and realm_initialized; returns the verified claims."""
    callback = browser_login(idp_url, email, browser=browser)
    assert_html(callback, 200)
    token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    claims = server.verify_access_token(token_event["access_token"])
    assert claims["email"] == email, claims
    assert realm_event.get("realm_path") == f"/users/{claims['sub']}", (realm_event, claims)
    return claims


def link_status(registration: Registration) -> int:
    """What the confirmation link answers in a browser that never opened it: 200 while the
    session waits for its confirmation, 410 once confirmed (or ended)."""
    with http_client() as stranger:
        response = stranger.get(registration.login_url)
    assert is_html(response), describe(response)
    return response.status_code


def assert_still_pending(registration: Registration) -> None:
    assert link_status(registration) == 200, "the session is no longer waiting for its confirmation"


def footprint(server: FieldpassServer, email: str) -> tuple[Any, ...]:
    """The onboarding steps counted so far (but expiries, which the sweep counts whenever it
    runs), the users, and `email`'s devices."""
    steps = onboarding_steps(server)
    del steps["expired"]
    return steps, cli_users(server), admin_cli(server, "devices", email)


def post_form(url: str, form: Mapping[str, str], cookie: str | None = None) -> httpx.Response:
    """A POST from a client that never opened the page (optionally with a given cookie)."""
    headers = {"cookie": f"{COOKIE}={cookie}"} if cookie is not None else None
    with http_client() as client:
        return client.post(url, data=dict(form), headers=headers)


# --------------------------------------------------------------------------- the page


def test_email_only_registration_confirms_on_the_page_and_signs_in(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, email_only=True)
    login_id = login_id_of(registration)
    with http_client() as browser, ws_connect(registration.websocket_url) as ws:
        page = open_confirmation(registration.login_url, browser)
        idp_url = confirm(page)
        claims = finish_sign_in(server, ws, idp_url, email, browser)

    assert registration.login_url == f"{server.public_url}/login/{login_id}", registration.login_url
    assert LOGIN_ID.match(login_id) and login_id != registration.session_id, registration.body
    text = html.unescape(page.response.text)
    assert "Unnamed device" in text and "unknown" in text, page.response.text
    assert page.user_code == registration.user_code, (page.user_code, registration.body)
    assert page.csrf_token and re.search(r'<form[^>]*method="post"', page.response.text, re.I), page.response.text
    assert "Continue to sign in" in text, page.response.text
    cookie = cookie_attributes(page.response, f"{COOKIE}=")
    assert "httponly" in cookie and cookie.get("samesite", "").lower() == "strict", cookie
    assert cookie.get("path") == f"/login/{login_id}", cookie
    assert_idp_request(server, idp_url, email)
    (device,) = admin_cli(server, "devices", email).splitlines()
    assert device.split(maxsplit=3)[:3] == [claims["device_id"], "active", "unknown"], device
    assert device.split(maxsplit=3)[3].startswith("Unnamed device  registered "), device
    assert link_status(registration) == 410, "the link still works after the confirmation"


def test_page_names_a_registered_device(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, TABLET)
    with http_client() as browser:
        page = open_confirmation(registration.login_url, browser)
    text = html.unescape(page.response.text)
    assert TABLET["name"] in text and TABLET["platform"] in text, page.response.text
    assert page.user_code == registration.user_code, page.response.text


def test_page_escapes_the_device_name(server: FieldpassServer, email: str) -> None:
    """A device name is the device's say: either refused as bad input, or shown as text."""
    name = '<i id="x">Ops</i> & "Co"'
    response = server.post_register({"email": email, "device": {"name": name, "platform": "android"}})
    if response.status_code != 201:
        assert response.status_code == 400 and response.json().get("error"), describe(response)
        return
    with http_client() as browser:
        page = open_confirmation(response.json()["login_url"], browser)
    assert '<i id="x">' not in page.response.text, page.response.text
    assert name in html.unescape(page.response.text), page.response.text


def test_user_codes_are_readable_and_differ(server: FieldpassServer, email: str) -> None:
    registrations = [server.register(email, email_only=True) for _ in range(5)]
    codes = [registration.user_code for registration in registrations]
    for code in codes:
        assert USER_CODE.match(code), f"user code {code!r} is not XXXX-XXXX of BCDFGHJKLMNPQRSTVWXZ"
    assert len(set(codes)) == len(codes), codes
    assert len({login_id_of(r) for r in registrations}) == len(registrations), registrations


# --------------------------------------------------------------------------- refused forms


def _other_page(server: FieldpassServer) -> ConfirmationPage:
    other = server.register(unique_email(), email_only=True)
    return open_confirmation(other.login_url, http_client())


REFUSED_POSTS: dict[str, Callable[[ConfirmationPage, ConfirmationPage], httpx.Response]] = {
    "field-missing": lambda page, other: page.submit({}),
    "field-empty": lambda page, other: page.submit({"csrf_token": ""}),
    "field-wrong": lambda page, other: page.submit({"csrf_token": secrets.token_urlsafe(32)}),
    "other-sessions-field": lambda page, other: page.submit({"csrf_token": other.csrf_token}),
    "no-cookie": lambda page, other: post_form(str(page.response.request.url), {"csrf_token": page.csrf_token}),
    "other-sessions-cookie": lambda page, other: post_form(
        str(page.response.request.url), {"csrf_token": page.csrf_token}, other.client.cookies.get(COOKIE)
    ),
    "other-sessions-cookie-and-field": lambda page, other: post_form(
        str(page.response.request.url), {"csrf_token": other.csrf_token}, other.client.cookies.get(COOKIE)
    ),
}


@pytest.mark.parametrize("post", REFUSED_POSTS.values(), ids=REFUSED_POSTS.keys())
def test_refused_form_changes_nothing_and_the_link_still_works(
    server: FieldpassServer, email: str, post: Callable[[ConfirmationPage, ConfirmationPage], httpx.Response]
) -> None:
    registration = server.register(email, email_only=True)
    other = _other_page(server)
    with http_client() as browser:
        page = open_confirmation(registration.login_url, browser)
        before = footprint(server, email)
        try:
            refused = post(page, other)
        finally:
            other.client.close()
        after = footprint(server, email)
        pending = link_status(registration)
        idp_url = confirm(page)

    assert_html(refused, 400)
    assert "location" not in refused.headers, refused.headers
    assert pending == 200, "the refused form confirmed the session"
    assert after == before, f"changed: {before} -> {after}"
    assert_idp_request(server, idp_url, email)


# --------------------------------------------------------------------------- used and unknown links


def test_used_link_answers_410_and_leads_nowhere(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, email_only=True)
    with http_client() as browser:
        page = open_confirmation(registration.login_url, browser)
        confirm(page)
        again_get = browser.get(registration.login_url)
        again_post = page.submit()
    fresh_get = server.get(urlsplit(registration.login_url).path)

    for response in (again_get, again_post, fresh_get):
        assert_html(response, 410)
        assert "location" not in response.headers, describe(response)
        assert authorization_endpoint(server.idp) not in response.text, describe(response)


@pytest.mark.parametrize("which", ["random", "session-id", "user-code"])
def test_unknown_login_id_answers_404(server: FieldpassServer, email: str, which: str) -> None:
    registration = server.register(email, email_only=True)
    login_id = {
        "random": secrets.token_urlsafe(32),
        "session-id": registration.session_id,
        "user-code": registration.user_code,
    }[which]
    url = f"{server.public_url}/login/{login_id}"
    with http_client() as browser:
        got = browser.get(url)
        posted = browser.post(url, data={"csrf_token": secrets.token_urlsafe(32)})

    assert_html(got, 404)
    assert_html(posted, 404)
    assert_still_pending(registration)


def test_a_confirmed_link_allows_one_idp_round(server: FieldpassServer, email: str) -> None:
    signed_in = onboarding_steps(server)["signed_in"]
    registration = server.register(email, email_only=True)
    with http_client() as browser, ws_connect(registration.websocket_url) as ws:
        page = open_confirmation(registration.login_url, browser)
        idp_url = confirm(page)
        second_confirmation = page.submit()
        claims = finish_sign_in(server, ws, idp_url, email, browser)
        second_round = browser_login(idp_url, email, browser=browser)
        assert_silent(ws, 1.0)

    assert_html(second_confirmation, 410)
    assert_html(second_round, 400)
    assert onboarding_steps(server)["signed_in"] == signed_in + 1, "a second IdP round issued tokens"
    (device,) = admin_cli(server, "devices", email).splitlines()
    assert device.split()[:2] == [claims["device_id"], "active"], device


def test_forged_callback_leaves_an_unconfirmed_session_pending(server: FieldpassServer, email: str) -> None:
    registration = server.register(email, email_only=True)
    with http_client() as browser, ws_connect(registration.websocket_url) as ws:
        page = open_confirmation(registration.login_url, browser)
        guesses = [
            secrets.token_urlsafe(32), login_id_of(registration), registration.session_id,
            page.csrf_token, registration.user_code,
        ]
        forged = [server.get("/auth_callback?" + urlencode({"code": "abc123", "state": s})) for s in guesses]
        assert_silent(ws, 1.0)
        pending = link_status(registration)
        claims = finish_sign_in(server, ws, confirm(page), email, browser)

    for response in forged:
        assert_html(response, 400)
    assert pending == 200, "a forged callback moved the session on"
    assert claims["email"] == email


# --------------------------------------------------------------------------- configuration


def test_without_confirmation_login_url_is_the_idp(direct_server: FieldpassServer, email: str) -> None:
    registration = direct_server.register(email, email_only=True)
    with ws_connect(registration.websocket_url) as ws:
        claims = finish_sign_in(direct_server, ws, registration.login_url, email)

    assert_idp_request(direct_server, registration.login_url, email)
    assert USER_CODE.match(registration.user_code), registration.body
    assert claims["email"] == email and claims["device_id"], claims


def test_idp_prompt_is_sent_with_the_authorization_request(prompt_server: FieldpassServer, email: str) -> None:
    registration = prompt_server.register(email, TABLET)
    with http_client() as browser, ws_connect(registration.websocket_url) as ws:
        idp_url = confirm(open_confirmation(registration.login_url, browser))
        claims = finish_sign_in(prompt_server, ws, idp_url, email, browser)

    assert_idp_request(prompt_server, idp_url, email, prompt="login")
    assert claims["email"] == email, claims
