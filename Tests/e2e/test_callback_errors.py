"""What /auth_callback does with refusals, mismatches, replays, forgeries and expiry."""

from __future__ import annotations

import secrets
from urllib.parse import urlencode, urlsplit

import pytest

from helpers import (
    FieldpassServer,
    assert_silent,
    authorize_url,
    browser_login,
    describe,
    is_html,
    login_params,
    new_browser,
    receive,
    receive_until_close,
    unique_email,
    ws_connect,
)


def assert_html_page(response, statuses) -> None:
    assert response.status_code in statuses, describe(response)
    assert is_html(response), describe(response)


@pytest.mark.parametrize(
    ("deny", "sign_in_as_someone_else", "error"),
    [(True, False, "access_denied"), (False, True, "email_mismatch")],
    ids=["denied-at-idp", "email-mismatch"],
)
def test_a_failed_sign_in_sends_login_failed(
    server: FieldpassServer, email: str, deny: bool, sign_in_as_someone_else: bool, error: str
) -> None:
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        sub = unique_email("bob") if sign_in_as_someone_else else email
        callback = browser_login(registration.login_url, sub, deny=deny)
        assert_html_page(callback, {200, *range(400, 500)})
        got = receive_until_close(ws)

    assert got.types == ["login_failed"] and got.seqs == [1], got
    assert got.events[0].get("error") == error, got.events
    assert isinstance(got.events[0].get("error_description"), str), got.events
    assert got.closed, f"socket not closed after login_failed: {got}"


def test_unverified_email_is_refused(server: FieldpassServer, email: str) -> None:
    registration = server.register(email)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(
            registration.login_url, email, idp=server.idp,
            claims={"email": email, "email_verified": False},
        )
        assert_html_page(callback, {200, *range(400, 500)})
        got = receive_until_close(ws)

    assert got.types == ["login_failed"] and got.seqs == [1], got
    assert isinstance(got.events[0].get("error"), str) and got.events[0]["error"], got.events
    assert got.closed, f"socket not closed after login_failed: {got}"


def test_replayed_callback_is_rejected_and_issues_nothing(server: FieldpassServer, email: str) -> None:
    registration = server.register(email)
    first = browser_login(registration.login_url, email)
    assert_html_page(first, {200})

    replay = server.get(first.request.url.raw_path.decode())
    assert_html_page(replay, {400})

    with ws_connect(registration.websocket_url) as ws:
        got = receive_until_close(ws, timeout=2.0)
    assert got.types.count("token") == 1, got
    assert got.types == ["token", "realm_initialized"] and got.seqs == [1, 2], got


FORGED_QUERIES = {
    "unknown state": "code=abc123&state={random}",
    "unknown state, no code": "state={random}",
    "empty state": "code=abc123&state=",
    "missing state": "code=abc123",
    "no parameters": "",
    "error without state": "error=access_denied",
    "error with unknown state": "error=access_denied&state={random}",
}


@pytest.mark.parametrize("query", FORGED_QUERIES.values(), ids=FORGED_QUERIES.keys())
def test_forged_callback_is_rejected(server: FieldpassServer, query: str) -> None:
    response = server.get("/auth_callback?" + query.format(random=secrets.token_urlsafe(32)))
    assert_html_page(response, {400})


def test_forged_callbacks_leave_live_sessions_alone(server: FieldpassServer, email: str) -> None:
    registration = server.register(email)
    with new_browser() as browser, ws_connect(registration.websocket_url) as ws:
        idp_url = authorize_url(registration.login_url, browser)
        real_state = login_params(idp_url)["state"]
        near_misses = [real_state[:-1], real_state + "x", real_state.swapcase(), real_state[::-1]]
        for query in FORGED_QUERIES.values():
            response = server.get("/auth_callback?" + query.format(random=secrets.token_urlsafe(32)))
            assert_html_page(response, {400})
        for state in near_misses:
            if state == real_state:
                continue
            response = server.get("/auth_callback?" + urlencode({"code": "abc123", "state": state}))
            assert_html_page(response, {400})
        assert_silent(ws, 1.0)

        # The session still works afterwards, in the browser that confirmed it.
        callback = browser_login(idp_url, email, browser=browser)
        assert_html_page(callback, {200})
        events = receive(ws, 2)
    assert [e["type"] for e in events] == ["token", "realm_initialized"], events


def test_expired_session(short_ttl_server: FieldpassServer, email: str) -> None:
    registration = short_ttl_server.register(email)
    assert 0 < registration.expires_in <= 2, registration.body
    with ws_connect(registration.websocket_url) as ws:
        got = receive_until_close(ws, timeout=10.0)
    assert got.types == ["session_expired"] and got.seqs == [1], got
    assert got.closed, f"socket not closed after session_expired: {got}"

    # The confirmation link of an ended session says it is used; nothing leads to the IdP.
    assert_html_page(short_ttl_server.get(urlsplit(registration.login_url).path), {410})
