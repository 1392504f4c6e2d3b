"""Trust, second pass: what a forwarded sign-in link, a re-used IdP account, an ended
session's socket and an invented error code can get out of Fieldpass.

Each person is a browser of their own (one cookie jar from the confirmation page through
the IdP to the callback), and each attack is run as the attacker would run it. The checks
see the service through its API, its sockets, its audit log and its metrics only.
"""

from __future__ import annotations

import html
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    EMAIL_DOMAIN,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    SignedIn,
    authorize_url,
    browser_login,
    cookie_attributes,
    describe,
    is_html,
    login_params,
    metric,
    new_browser,
    open_confirmation,
    receive_until_close,
    scrape,
    sign_in,
    start_server,
    unique_email,
    ws_connect,
)
from identity_flows import audit_ids, call, new_entry, sign_in_as, user_record
from oauth_flows import assert_me_refused, assert_refresh_refused

ATTACKER_DEVICE = {"name": "Pixel 8", "platform": "android"}
BINDING_COOKIE = "fieldpass_signin_"  # one cookie per sign-in, named after its state


def user_id_of(server: FieldpassServer, admin: SignedIn, email: str) -> str:
    users = call(server, admin.access_token, "GET", "/admin/users")["users"]
    (user,) = [user for user in users if user["email"] == email]
    return user["id"]


# --------------------------------------------------------------------------- the forwarded link


def test_a_forwarded_idp_link_gives_the_attacker_nothing(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    victim_email = unique_email("victim")
    seen = audit_ids(server, admin)

    # 1. The attacker registers the victim's email and holds the event socket.
    registration = server.register(victim_email, ATTACKER_DEVICE)
    with ws_connect(registration.websocket_url) as attacker_socket, new_browser() as attacker, new_browser() as victim:
        # 2. In his own browser he opens login_url, checks his own code and presses the button.
        page = open_confirmation(registration.login_url, attacker)
        assert page.user_code == registration.user_code
        pressed = page.submit()
        assert pressed.status_code == 303, describe(pressed)
        genuine_idp_link = pressed.headers["location"]
        # 3. He sends that genuine IdP link to the victim, who signs in in her own browser.
        at_idp = victim.post(genuine_idp_link, data={"sub": victim_email})
        assert at_idp.status_code == 302, describe(at_idp)
        callback = victim.get(at_idp.headers["location"])
        got = receive_until_close(attacker_socket)

    assert callback.status_code == 400 and is_html(callback), describe(callback)
    assert "device that started it" in html.unescape(callback.text), callback.text
    assert got.types == ["login_failed"] and got.closed, got
    assert got.events[0]["error"] == "browser_mismatch", got
    assert "token" not in json.dumps(got.events[0]).replace("error", ""), got
    entry = new_entry(server, admin, seen, "login.browser_mismatch", user_id_of(server, admin, victim_email))
    assert entry["actor"] == "browser", entry
    # The victim can still sign in, on her own device.
    assert sign_in(server, victim_email).claims["email"] == victim_email


def test_a_callback_with_another_sessions_cookie_is_refused(directory_server: FieldpassServer) -> None:
    """The victim confirmed a sign-in of her own in this browser; the forwarded link is not it."""
    server = directory_server
    victim_email = unique_email("victim")
    attackers = server.register(victim_email, ATTACKER_DEVICE)
    own = server.register(victim_email, {"name": "Victim phone", "platform": "ios"})
    with ws_connect(attackers.websocket_url) as attacker_socket, new_browser() as attacker, new_browser() as victim:
        forwarded = authorize_url(attackers.login_url, attacker)
        authorize_url(own.login_url, victim)  # her browser now holds her own session's cookie
        assert any(cookie.name.startswith(BINDING_COOKIE) for cookie in victim.cookies.jar)
        callback = browser_login(forwarded, victim_email, browser=victim)
        got = receive_until_close(attacker_socket)

    assert callback.status_code == 400 and is_html(callback), describe(callback)
    assert got.types == ["login_failed"] and got.events[0]["error"] == "browser_mismatch", got


def test_the_honest_flow_in_one_browser_signs_in(directory_server: FieldpassServer) -> None:
    server = directory_server
    email = unique_email()
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws, new_browser() as browser:
        page = open_confirmation(registration.login_url, browser)
        pressed = page.submit()
        callback = browser_login(pressed.headers["location"], email, browser=browser)
        got = receive_until_close(ws, timeout=5)

    assert callback.status_code == 200 and is_html(callback), describe(callback)
    assert got.types[:2] == ["token", "realm_initialized"], got
    flags = cookie_attributes(pressed, BINDING_COOKIE)
    assert "httponly" in flags and flags.get("samesite", "").lower() == "lax", flags
    assert flags.get("path") == "/auth_callback", flags
    assert 0 < int(flags["max-age"]) <= 600, flags
    assert "secure" not in flags, "Secure on an http:// public_url would keep the cookie from coming back"


def test_two_sign_ins_started_in_one_browser_both_finish(directory_server: FieldpassServer) -> None:
    server = directory_server
    first, second = (server.register(unique_email()) for _ in range(2))
    with new_browser() as browser, ws_connect(first.websocket_url) as ws1, ws_connect(second.websocket_url) as ws2:
        first_idp = authorize_url(first.login_url, browser)
        second_idp = authorize_url(second.login_url, browser)
        callbacks = [
            browser_login(second_idp, second.email, browser=browser),
            browser_login(first_idp, first.email, browser=browser),
        ]
        got = [receive_until_close(ws, timeout=3) for ws in (ws1, ws2)]

    assert [c.status_code for c in callbacks] == [200, 200], [describe(c) for c in callbacks]
    assert all(g.types[:2] == ["token", "realm_initialized"] for g in got), got


# --------------------------------------------------------------------------- one IdP account, one person

PROMOTABLE = unique_email("boss")


@pytest.fixture(scope="module")
def bootstrap_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    """dev with two bootstrap admins: the usual one, and PROMOTABLE, who has not signed in."""
    environments = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL, PROMOTABLE), (DEV_BACKEND,)),)
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp("bootstrap"), environments=environments)
    try:
        yield server
    finally:
        server.stop()


def test_one_idp_account_whose_email_changes_cannot_bind_a_second_user(bootstrap_server: FieldpassServer) -> None:
    server = bootstrap_server
    admin = sign_in(server, ADMIN_EMAIL)
    worker_email = unique_email("worker")
    sub = f"sub-{worker_email}"
    server.idp.set_user(sub, {"email": worker_email})
    worker = sign_in_as(server, worker_email, sub)
    seen = audit_ids(server, admin)

    # The IdP account's email changes (Entra sends no email_verified) to a bootstrap admin's.
    server.idp.set_user(sub, {"email": PROMOTABLE})
    registration = server.register(PROMOTABLE)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, sub)
        got = receive_until_close(ws)

    assert callback.status_code == 400 and is_html(callback), describe(callback)
    assert got.types == ["login_failed"] and got.events[0]["error"] == "identity_in_use", got
    promotable_id = user_id_of(server, admin, PROMOTABLE)
    record = user_record(server, admin, promotable_id)
    assert record["role"] == "worker", f"the second user was promoted: {record}"
    assert "idp_subject" not in record, f"the second user was bound: {record}"
    entry = new_entry(server, admin, seen, "identity.in_use", promotable_id)
    assert entry["actor"] == "idp" and entry["after"]["bound_to"] == f"user:{worker.user_id}", entry

    # An admin resets the first user's binding: what that account obtained stops working at once,
    # and the sign-in still waiting for its data ends.
    call(server, admin.access_token, "DELETE", f"/admin/users/{worker.user_id}/identity", 204)
    with ws_connect(f"{worker.registration.websocket_url}&after=2") as ws:
        ended = receive_until_close(ws)
    assert ended.types == ["session_expired"] and ended.closed, ended
    assert_refresh_refused(server, worker.refresh_token)
    assert_me_refused(server, worker.access_token)
    devices = call(server, admin.access_token, "GET", f"/admin/users/{worker.user_id}/devices")["devices"]
    assert devices and all(device.get("revoked_at") for device in devices), devices
    reset = new_entry(server, admin, seen, "identity.reset", worker.user_id)
    assert reset["after"] == {"devices_revoked": "1"}, reset


# --------------------------------------------------------------------------- sockets of ended sessions


def failed_session(server: FieldpassServer) -> tuple[str, int]:
    """A session that ended with login_failed: its socket URL and its last seq."""
    registration = server.register(unique_email())
    with ws_connect(registration.websocket_url) as ws:
        browser_login(registration.login_url, registration.email, deny=True)
        got = receive_until_close(ws)
    assert got.types == ["login_failed"] and got.closed, got
    return registration.websocket_url, got.seqs[-1]


@pytest.mark.parametrize("after", ["0", "last", "beyond"])
def test_a_socket_for_an_ended_session_is_closed_at_once(directory_server: FieldpassServer, after: str) -> None:
    server = directory_server
    url, last = failed_session(server)
    since = {"0": 0, "last": last, "beyond": last + 5}[after]
    _, before = scrape(server)

    opened = time.monotonic()
    with ws_connect(f"{url}&after={since}") as ws:
        got = receive_until_close(ws, timeout=5)
    took = time.monotonic() - opened

    assert got.closed and got.close_code == 1000, got
    assert took < 1.0, f"closed after {took:.2f} s"
    assert got.seqs == ([1] if since == 0 else []), got
    # The process's socket count goes back down (the server counts a socket out as it ends).
    deadline = time.monotonic() + 2
    while metric(scrape(server)[1], "fieldpass_event_sockets") > metric(before, "fieldpass_event_sockets"):
        assert time.monotonic() < deadline, "the event socket count did not go back down"
        time.sleep(0.05)


def test_a_socket_for_a_completed_session_past_its_end_is_closed(directory_server: FieldpassServer) -> None:
    server = directory_server
    email = unique_email()
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        browser_login(registration.login_url, email)
        got = receive_until_close(ws, timeout=2)
        realm = got.events[1]["realm_path"]
        assert server.mark_initialized(realm).returncode == 0
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.closed, rest

    with ws_connect(f"{registration.websocket_url}&after=3") as again:
        replay = receive_until_close(again, timeout=5)
    assert replay.closed and replay.close_code == 1000 and replay.events == [], replay


# --------------------------------------------------------------------------- metric labels


def test_an_invented_error_adds_no_metric_series(directory_server: FieldpassServer) -> None:
    server = directory_server
    email = unique_email()
    invented = "made_up_by_" + email.split("@")[0].replace("-", "_")
    registration = server.register(email)
    _, before = scrape(server)
    with ws_connect(registration.websocket_url) as ws, new_browser() as browser:
        state = login_params(authorize_url(registration.login_url, browser))["state"]
        description = "x" * 1000 + "\u0007\n"
        callback = browser.get(
            f"{server.url}/auth_callback", params={"state": state, "error": invented, "error_description": description}
        )
        got = receive_until_close(ws)
    text, after = scrape(server)

    assert callback.status_code == 400 and is_html(callback), describe(callback)
    event = got.events[0]
    assert event["error"] == invented, event
    assert len(event["error_description"]) <= 200 and event["error_description"].isprintable(), event
    assert invented not in text, "a caller's error code became a metric label"
    failed = "fieldpass_login_failed_total"
    assert metric(after, failed, reason="other") - metric(before, failed, reason="other") == 1, text


def test_a_known_error_keeps_its_own_label(directory_server: FieldpassServer) -> None:
    server = directory_server
    registration = server.register(unique_email())
    _, before = scrape(server)
    with ws_connect(registration.websocket_url) as ws:
        browser_login(registration.login_url, registration.email, deny=True)
        receive_until_close(ws)
    _, after = scrape(server)
    failed = "fieldpass_login_failed_total"
    assert metric(after, failed, reason="access_denied") - metric(before, failed, reason="access_denied") == 1

