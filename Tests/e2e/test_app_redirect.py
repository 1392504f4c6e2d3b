"""The way back to the app (`app_redirect_uris`, RFC 8252): a device that registers with one
of its environment's redirect URIs gets the person's browser sent back to it when the
sign-in ends, `303 See Other` to `<uri>?result=signed_in` or `?result=login_failed&error=...`,
with the app's `app_state`, and its tokens still only over its own socket or long-poll.

Each person is one headless Chromium (one cookie jar from the confirmation page through the
IdP to the callback). A desktop app's loopback URI is served by a small HTTP server of the
test's, where Chromium really lands; a phone app's private-use scheme, which Chromium cannot
open, is read from the browser's own network log. The checks see the service through its
API, its CLI, its metrics, and what the browser and the device were sent.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    EMAIL_DOMAIN,
    OTHER_ADMIN_EMAIL,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    OTHER_ENV,
    Browser,
    EnvironmentSpec,
    FieldpassServer,
    LoopbackApp,
    MockIdP,
    Registration,
    app_return_query,
    assert_api_error,
    authorize_url,
    browser_login,
    describe,
    idp_answer,
    is_html,
    login_params,
    new_browser,
    poll,
    poll_until,
    receive,
    receive_until_close,
    registration_footprint,
    registrations,
    running_server,
    server_env,
    server_in,
    unique_email,
    ws_connect,
)

# A phone app's private-use scheme in reverse-domain form, and an https URI the app claims
# (with a query of its own, so that Fieldpass must append with `&`).
APP_SCHEME_URI = "com.example.fieldapp:/signed-in"
HTTPS_URI = "https://app.example.com/fieldpass/return?from=fieldpass"
# A desktop app listening on IPv6 loopback (listed, never landed on).
IPV6_LOOPBACK_URI = "http://[::1]:49152/signed-in"
# Listed for the other environment only.
OTHER_APP_URI = "com.example.otherapp:/signed-in"
# The devices the apps run on.
DEPOT_PC = {"name": "Depot PC 2", "platform": "windows"}
PHONE = {"name": "Field phone 14", "platform": "ios"}
ATTACKERS_PHONE = {"name": "Pixel 8", "platform": "android"}


def fresh_app_state() -> str:
    """An app_state as an app might make one, with every character a query parser could
    misread (space, +, &, =, %, #, /, ?, quotes), unique to the test."""
    return f"req {secrets.token_hex(4)} +1&x=y%20/?#'\"~"


@pytest.fixture(scope="module")
def app() -> Iterator[LoopbackApp]:
    """The desktop app's loopback redirect URI, http://127.0.0.1:PORT/signed-in."""
    with LoopbackApp() as listening:
        yield listening


@pytest.fixture(scope="module")
def app_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory, app: LoopbackApp
) -> Iterator[FieldpassServer]:
    """dev (with its service account, for the realm feed) lists the loopback app, the phone
    app's scheme, an IPv6 loopback URI and an https URI; `other` lists a URI of its own. Used by
    this module only, so dev's users and realms change only through its requests."""
    environments = (
        EnvironmentSpec(
            "dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), (DEV_BACKEND,),
            app_redirect_uris=(app.uri, APP_SCHEME_URI, IPV6_LOOPBACK_URI, HTTPS_URI),
        ),
        EnvironmentSpec(OTHER_ENV, (OTHER_DOMAIN,), (OTHER_ADMIN_EMAIL,), (OTHER_BACKEND,), app_redirect_uris=(OTHER_APP_URI,)),
    )
    with running_server(fieldpass_bin, idp, tmp_path_factory.mktemp("app-redirect"), environments=environments) as server:
        yield server


# --------------------------------------------------------------------------- checks


def expected_return(redirect_uri: str, **query: str) -> str:
    """`redirect_uri` with `query` appended in order, each value percent-encoded but RFC 3986's
    unreserved characters (Python's quote with safe="" leaves exactly those bare)."""
    separator = "&" if "?" in redirect_uri else "?"
    return redirect_uri + separator + "&".join(f"{name}={quote(value, safe='')}" for name, value in query.items())


def assert_app_return(location: str, redirect_uri: str, secret_values: list[str], **query: str) -> None:
    """`location` is exactly `redirect_uri` with `query` appended: no other key, and none of
    `secret_values` (session id, OAuth state and code, tokens) anywhere in it."""
    assert app_return_query(location, redirect_uri) == {name: [value] for name, value in query.items()}, location
    assert location == expected_return(redirect_uri, **query), location
    for value in secret_values:
        assert value not in location, f"{location!r} carries a secret: {value!r}"


@dataclass
class AtTheIdP:
    """A device registered with an app's redirect URI and app_state, confirmed in a browser
    that is now on the IdP's page."""

    registration: Registration
    app_state: str
    state: str  # the OAuth state of the IdP link

    def secrets(self, *events: dict[str, Any], code: str | None = None) -> list[str]:
        """What must never reach the app's URI: the session id, the login link's id, the
        OAuth state and `code`, and any token of `events`."""
        login_id = urlsplit(self.registration.login_url).path.rsplit("/", 1)[-1]
        found = [self.registration.session_id, login_id, self.state] + ([code] if code else [])
        return found + [event[key] for event in events for key in ("access_token", "refresh_token") if key in event]


def confirmed_to_the_idp(
    server: FieldpassServer, browser: Browser, email: str, redirect_uri: str, device: dict[str, str]
) -> AtTheIdP:
    """Registers `email`'s device with `redirect_uri` and a fresh app_state; then in `browser`
    opens the login link, checks the code and presses on to the IdP."""
    app_state = fresh_app_state()
    registration = server.register(email, device, app_redirect_uri=redirect_uri, app_state=app_state)
    browser.open(registration.login_url)
    assert browser.text_of(".code") == registration.user_code, browser.describe()
    browser.press("Continue to sign in")
    return AtTheIdP(registration, app_state, login_params(browser.url)["state"])


def code_sent_to(browser: Browser, server: FieldpassServer) -> str:
    """The authorization code of the IdP's redirect to the callback that `browser` followed."""
    (to_callback,) = [r for r in browser.redirects() if r.location.startswith(f"{server.callback_url}?")]
    return login_params(to_callback.location)["code"]


def callback_redirect(browser: Browser, server: FieldpassServer) -> str:
    """The Location of the callback's 303, as the browser was sent it."""
    redirect = browser.wait_for_redirect(f"{server.callback_url}?")
    assert redirect.status == 303, redirect
    return redirect.location


def assert_landed(browser: Browser, app: LoopbackApp, location: str) -> None:
    """The browser shows the app's page at `location`, which the app received once."""
    assert browser.url == location, browser.describe()
    assert browser.heading == "Back in the app", browser.describe()
    parts = urlsplit(location)
    assert app.arrivals().count(f"{parts.path}?{parts.query}") == 1, app.arrivals()


# --------------------------------------------------------------------------- signed in


def test_the_browser_lands_on_the_apps_loopback_uri_and_the_device_gets_its_token(
    app_server: FieldpassServer, app: LoopbackApp, browsers: Callable[..., Browser], email: str
) -> None:
    browser = browsers(network_log=True)
    started = confirmed_to_the_idp(app_server, browser, email, app.uri, DEPOT_PC)
    with ws_connect(started.registration.websocket_url) as device:
        browser.sign_in_at_idp(email)
        token_event, realm_event = receive(device, 2)

    location = callback_redirect(browser, app_server)
    assert_landed(browser, app, location)
    secret_values = started.secrets(token_event, code=code_sent_to(browser, app_server))
    assert_app_return(location, app.uri, secret_values, result="signed_in", app_state=started.app_state)
    assert (token_event["type"], realm_event["type"]) == ("token", "realm_initialized"), (token_event, realm_event)
    assert app_server.verify_access_token(token_event["access_token"])["email"] == email


def test_a_private_use_scheme_is_sent_the_result_and_the_device_polls_its_token(
    app_server: FieldpassServer, browsers: Callable[..., Browser], email: str
) -> None:
    """Chromium cannot open com.example.fieldapp: (no app claims the scheme here), so after
    "Authorize" the IdP's page stays. The callback's 303 is read from Chromium's own network
    log (chromedriver's performance log of DevTools Network events): the one browser that
    confirmed made the request, with its cookie; nothing is replayed outside it. The device
    follows its events by long-poll."""
    browser = browsers(network_log=True, phone=True)
    started = confirmed_to_the_idp(app_server, browser, email, APP_SCHEME_URI, PHONE)
    browser.sign_in_at_idp(email, new_page=False)
    location = callback_redirect(browser, app_server)
    answers = poll_until(started.registration.events_url, 2)

    events = [event for answer in answers for event in answer.events]
    assert [event["type"] for event in events] == ["token", "realm_initialized"], events
    secret_values = started.secrets(*events, code=code_sent_to(browser, app_server))
    assert_app_return(location, APP_SCHEME_URI, secret_values, result="signed_in", app_state=started.app_state)
    assert app_server.verify_access_token(events[0]["access_token"])["email"] == email


def test_a_uri_with_a_query_of_its_own_gets_the_result_after_an_ampersand(app_server: FieldpassServer, email: str) -> None:
    """Without app_state, none is added. (An https URI on a made-up host cannot be landed on:
    an httpx client plays the person's one browser, cookie jar and all, and is shown the 303.)"""
    registration = app_server.register(email, app_redirect_uri=HTTPS_URI)
    callback = browser_login(registration.login_url, email)

    assert callback.status_code == 303, describe(callback)
    assert callback.headers["location"] == f"{HTTPS_URI}&result=signed_in", callback.headers
    assert callback.content == b"", describe(callback)


def test_without_an_app_redirect_uri_the_sign_in_ends_on_fieldpass_own_page(
    app_server: FieldpassServer, email: str
) -> None:
    registration = app_server.register(email)
    callback = browser_login(registration.login_url, email)

    assert callback.status_code == 200 and is_html(callback), describe(callback)
    assert "Signed in" in callback.text and "location" not in callback.headers, describe(callback)


# --------------------------------------------------------------------------- failed


def test_a_refusal_at_the_idp_returns_login_failed_with_its_code(
    app_server: FieldpassServer, app: LoopbackApp, browsers: Callable[..., Browser], email: str
) -> None:
    """The device learns it by long-poll, which ends the session."""
    browser = browsers(network_log=True)
    started = confirmed_to_the_idp(app_server, browser, email, app.uri, DEPOT_PC)
    browser.deny_at_idp()
    location = callback_redirect(browser, app_server)
    got = poll(started.registration.events_url, wait=10)

    assert_landed(browser, app, location)
    assert_app_return(
        location, app.uri, started.secrets(), result="login_failed", error="access_denied", app_state=started.app_state
    )
    assert got.types == ["login_failed"] and got.events[0]["error"] == "access_denied" and got.ended, got


def test_a_forwarded_link_finished_in_another_browser_returns_browser_mismatch(
    app_server: FieldpassServer, app: LoopbackApp, browsers: Callable[..., Browser]
) -> None:
    """The attacker registers the victim's email with his app's redirect URI and forwards the
    genuine IdP link; the victim's browser is sent to the URI with the failure, never a token."""
    victim_email = unique_email("victim")
    attacker, victim = browsers(), browsers(network_log=True, phone=True)
    started = confirmed_to_the_idp(app_server, attacker, victim_email, app.uri, ATTACKERS_PHONE)
    with ws_connect(started.registration.websocket_url) as attacker_app:
        victim.open(attacker.url)
        victim.sign_in_at_idp(victim_email)
        got = receive_until_close(attacker_app)

    location = callback_redirect(victim, app_server)
    assert_landed(victim, app, location)
    secret_values = started.secrets(code=code_sent_to(victim, app_server))
    assert_app_return(
        location, app.uri, secret_values, result="login_failed", error="browser_mismatch", app_state=started.app_state
    )
    assert got.types == ["login_failed"] and got.events[0]["error"] == "browser_mismatch" and got.closed, got
    assert not any("access_token" in event or "refresh_token" in event for event in got.events), got


@pytest.fixture(scope="module")
def short_ttl_app_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """Sessions that expire after 2 s (swept every second); dev lists the phone app's scheme."""
    environments = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), app_redirect_uris=(APP_SCHEME_URI,)),)
    short = {"SESSIONS_TTL": "2", "SESSIONS_SWEEP_INTERVAL": "1"}
    with running_server(fieldpass_bin, idp, tmp_path_factory.mktemp("app-redirect-ttl"), short, environments=environments) as server:
        yield server


def test_a_sign_in_that_outlasts_its_session_returns_session_expired(short_ttl_app_server: FieldpassServer, email: str) -> None:
    """README, "Back to the app": `error` is `session_expired` when the sign-in outlasted the
    session. The person confirms, then lingers at the IdP until the device has been told
    `session_expired` (by long-poll: no fixed sleep), then signs in. (The person's browser is
    an httpx client, one cookie jar throughout; the 303 is what matters here.)"""
    server = short_ttl_app_server
    app_state = fresh_app_state()
    registration = server.register(email, PHONE, app_redirect_uri=APP_SCHEME_URI, app_state=app_state)
    with new_browser() as browser:
        idp_url = authorize_url(registration.login_url, browser)
        expired = poll(registration.events_url, wait=10)
        callback = browser.get(idp_answer(idp_url, {"sub": email}, browser))

    assert expired.types == ["session_expired"] and expired.ended, expired
    assert callback.status_code == 303, describe(callback)
    secret_values = [registration.session_id, login_params(idp_url)["state"]]
    assert_app_return(
        callback.headers["location"], APP_SCHEME_URI, secret_values,
        result="login_failed", error="session_expired", app_state=app_state,
    )


# --------------------------------------------------------------------------- refused registrations

# Near misses of the listed URIs: exact match means exact.
REFUSED_URIS: dict[str, Callable[[LoopbackApp], Any]] = {
    "unlisted": lambda app: "com.example.evilapp:/signed-in",
    "scheme-in-other-case": lambda app: APP_SCHEME_URI.replace("fieldapp", "FieldApp"),
    "host-in-other-case": lambda app: HTTPS_URI.replace("app.example.com", "APP.example.com"),
    "trailing-slash": lambda app: APP_SCHEME_URI + "/",
    "extra-query": lambda app: APP_SCHEME_URI + "?next=/admin",
    "without-its-query": lambda app: HTTPS_URI.split("?")[0],
    "a-prefix-of-one": lambda app: APP_SCHEME_URI[:-1],
    "one-as-prefix": lambda app: APP_SCHEME_URI + "-evil",
    "fragment-added": lambda app: app.uri + "#x",
    "loopback-other-port": lambda app: app.uri.replace(f":{urlsplit(app.uri).port}", f":{urlsplit(app.uri).port + 1}"),
    "localhost-for-the-ip": lambda app: app.uri.replace("127.0.0.1", "localhost"),
    "percent-encoded": lambda app: APP_SCHEME_URI.replace("-", "%2D"),
    "another-environments": lambda app: OTHER_APP_URI,
    "empty": lambda app: "",
    "not-a-string": lambda app: [APP_SCHEME_URI],
}

REFUSED_STATES: dict[str, Any] = {
    "too-long": "x" * 129,
    "empty": "",
    "control-character": "order\x07",
    "newline": "order\n7",
    "delete": "order\x7f",
    "non-ascii": "café",
    "not-a-string": 7,
}


def assert_refused_and_nothing_stored(server: FieldpassServer, body: dict[str, Any], naming: str) -> None:
    """`POST /register_device` of `body` answers 400 invalid_request naming `naming`, and no
    user, realm or registration appears."""
    before = registration_footprint(server)
    response = server.post_register(body)
    after = registration_footprint(server)

    payload = assert_api_error(response, 400, "invalid_request")
    assert naming in payload["error_description"], describe(response)
    assert after == before, f"stored something: {before} -> {after}"


@pytest.mark.parametrize("uri", REFUSED_URIS.values(), ids=REFUSED_URIS.keys())
def test_an_unlisted_redirect_uri_is_refused_and_stores_nothing(
    app_server: FieldpassServer, app: LoopbackApp, uri: Callable[[LoopbackApp], Any]
) -> None:
    body = {"email": unique_email(), "device": PHONE, "app_redirect_uri": uri(app), "app_state": "order-7"}
    assert_refused_and_nothing_stored(app_server, body, "app_redirect_uri")


@pytest.mark.parametrize("app_state", REFUSED_STATES.values(), ids=REFUSED_STATES.keys())
def test_a_bad_app_state_is_refused_and_stores_nothing(app_server: FieldpassServer, app_state: Any) -> None:
    body = {"email": unique_email(), "device": PHONE, "app_redirect_uri": APP_SCHEME_URI, "app_state": app_state}
    assert_refused_and_nothing_stored(app_server, body, "app_state")


def test_an_app_state_without_a_redirect_uri_is_refused_and_stores_nothing(app_server: FieldpassServer) -> None:
    body = {"email": unique_email(), "device": PHONE, "app_state": "order-7"}
    assert_refused_and_nothing_stored(app_server, body, "app_state")


def test_each_listed_uri_and_the_app_state_limits_are_accepted(app_server: FieldpassServer, app: LoopbackApp) -> None:
    """The other side of the refusals: every listed URI exactly, with app_state at 1 and 128
    printable characters; each registration is stored."""
    listed = (app.uri, APP_SCHEME_URI, IPV6_LOOPBACK_URI, HTTPS_URI)
    states = (" ", "~" * 128, "".join(chr(code) for code in range(0x20, 0x7F)))
    before = registrations(app_server)
    for uri in listed:
        for app_state in states:
            app_server.register(unique_email(), app_redirect_uri=uri, app_state=app_state)
    assert registrations(app_server) - before == len(listed) * len(states)


# --------------------------------------------------------------------------- configuration

BAD_ENTRIES = {
    "http-not-loopback": "http://app.example.com/signed-in",
    "fragment": "https://app.example.com/signed-in#done",
    "scheme-without-a-dot": "fieldapp:/signed-in",
    "localhost": "http://localhost:8765/signed-in",
    "loopback-without-port": "http://127.0.0.1/signed-in",
    "credentials": "https://user:pass@app.example.com/signed-in",
    "relative": "/signed-in",
}


@pytest.mark.parametrize("entry", BAD_ENTRIES.values(), ids=BAD_ENTRIES.keys())
def test_a_bad_app_redirect_uris_entry_stops_start_up_naming_the_key(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path, entry: str
) -> None:
    """Next to good entries (which start, as app_server shows), one bad one stops start-up. The
    message names the entry by its place, never by its text, which may hold a password."""
    environments = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), app_redirect_uris=(APP_SCHEME_URI, entry, HTTPS_URI)),)
    server = server_in(tmp_path, fieldpass_bin, idp, server_env(None, environments), environments=environments)
    server.workdir.mkdir(parents=True, exist_ok=True)
    server.write_config()
    stderr = server.refused_start()
    assert "environments.dev.app_redirect_uris: entry 2 " in stderr, stderr
    assert entry not in stderr and "user:pass" not in stderr, stderr
