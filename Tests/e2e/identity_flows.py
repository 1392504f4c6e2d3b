"""Sign-ins as a chosen IdP subject, admin API calls and audit-log look-ups shared by
test_identity_binding.py and test_offboarding.py.

Both run against `directory_server` (per module: `dev` with admin@example.com, `other`
with admin@other.test).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any


from helpers import (
    FieldpassServer,
    SignedIn,
    assert_event,
    assert_json,
    audit_entries,
    browser_login,
    describe,
    is_html,
    receive,
    receive_until_close,
    ws_connect,
)



# --------------------------------------------------------------------------- signing in


def idp_users(server: FieldpassServer, email: str, count: int) -> list[str]:
    """`count` IdP subjects that all carry `email` as their email claim."""
    subs = [f"sub-{uuid.uuid4().hex}" for _ in range(count)]
    for sub in subs:
        server.idp.set_user(sub, {"email": email})
    return subs


def sign_in_as(server: FieldpassServer, email: str, sub: str, device: Mapping[str, Any] | None = None) -> SignedIn:
    """Register `email` and sign in at the IdP as `sub`; the socket gets its token."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, sub)
        assert callback.status_code == 200 and is_html(callback), describe(callback)
        token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    claims = server.verify_access_token(token_event["access_token"])
    assert claims["email"] == email, claims
    return SignedIn(email, registration, token_event, claims, realm_event["realm_path"])


def refused_sign_in(
    server: FieldpassServer, email: str, sub: str | None = None, *, callback_statuses: set[int] | None = None,
    device: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Register (201) from `device` and sign in as `sub`; the socket gets login_failed only,
    then closes. Returns that event."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        callback = browser_login(registration.login_url, sub or email)
        got = receive_until_close(ws)
    statuses = callback_statuses or {200, *range(400, 500)}
    assert callback.status_code in statuses and is_html(callback), describe(callback)
    assert got.types == ["login_failed"] and got.seqs == [1], got
    assert got.closed, f"socket not closed after login_failed: {got}"
    return got.events[0]


def assert_sign_in_refused(server: FieldpassServer, email: str, error: str, sub: str | None = None, **kwargs: Any) -> None:
    event = refused_sign_in(server, email, sub, **kwargs)
    assert event.get("error") == error, event
    assert isinstance(event.get("error_description"), str) and event["error_description"], event


# --------------------------------------------------------------------------- the API


def call(server: FieldpassServer, token: str | None, method: str, path: str, status: int = 200) -> Any:
    response = server.api(method, path, token=token)
    if status == 204:
        assert response.status_code == 204, describe(response)
        return None
    return assert_json(response, status)


def user_record(server: FieldpassServer, admin: SignedIn, user_id: str) -> dict[str, Any]:
    return call(server, admin.access_token, "GET", f"/admin/users/{user_id}")


# --------------------------------------------------------------------------- the audit log


def audit_ids(server: FieldpassServer, admin: SignedIn) -> set[int]:
    return {entry["id"] for entry in audit_entries(server, admin)}


def new_entry(server: FieldpassServer, admin: SignedIn, seen: set[int], action: str, target: str) -> dict[str, Any]:
    """The one entry with `action` about `target` logged since `seen`."""
    added = [entry for entry in audit_entries(server, admin) if entry["id"] not in seen]
    matching = [entry for entry in added if entry["action"] == action and target in json.dumps(entry)]
    assert len(matching) == 1, f"expected one {action} entry about {target}, new entries: {added}"
    return matching[0]
