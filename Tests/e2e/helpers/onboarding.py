"""Whole sign-ins: register a device, sign in at the IdP, take the token events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from websockets.sync.client import ClientConnection

from .browser import browser_login
from .processes import cli_output
from .server import FieldpassServer, Registration
from .sockets import assert_event, receive, receive_until_close, ws_connect
from .web import describe, is_html


@dataclass
class Onboarded:
    registration: Registration
    token_event: dict[str, Any]
    claims: dict[str, Any]
    realm_path: str


def login_and_receive_token(
    ws: ClientConnection, registration: Registration, email: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sign in at the IdP as `email` and take the token and realm_initialized events."""
    callback = browser_login(registration.login_url, email.lower())
    assert callback.status_code == 200 and is_html(callback), describe(callback)
    token_event, realm_event = receive(ws, 2)
    assert_event(token_event, 1, "token")
    assert_event(realm_event, 2, "realm_initialized")
    return token_event, realm_event


def onboard_to_data_ready(server: FieldpassServer, email: str, device: Mapping[str, Any] | None = None) -> Onboarded:
    """First onboarding of a user: register, socket, login, mark initialized, data_ready."""
    registration = server.register(email, device)
    with ws_connect(registration.websocket_url) as ws:
        token_event, realm_event = login_and_receive_token(ws, registration, email)
        realm_path = realm_event["realm_path"]
        result = server.mark_initialized(realm_path)
        assert result.returncode == 0, cli_output(result)
        rest = receive_until_close(ws)
    assert rest.types == ["data_ready"] and rest.seqs == [3], rest
    assert rest.events[0].get("realm_path") == realm_path, rest.events
    assert rest.closed and rest.close_code == 1000, rest
    claims = server.verify_access_token(token_event["access_token"])
    return Onboarded(registration, token_event, claims, realm_path)


@dataclass
class SignedIn:
    """A device that signed in: its token event, verified claims and personal realm."""

    email: str
    registration: Registration
    token_event: dict[str, Any]
    claims: dict[str, Any]
    realm_path: str

    @property
    def access_token(self) -> str:
        return self.token_event["access_token"]

    @property
    def refresh_token(self) -> str:
        return self.token_event["refresh_token"]

    @property
    def user_id(self) -> str:
        return self.claims["sub"]


def sign_in(
    server: FieldpassServer, email: str, device: Mapping[str, Any] | None = None, *, headers: Mapping[str, str] | None = None,
) -> SignedIn:
    """Register (with `headers`, a DPoP proof say), sign in at the IdP, take the token and
    realm_initialized events, hang up.

    The session keeps waiting for data_ready (the socket is closed, not the session)."""
    registration = server.register(email, device, headers=headers)
    with ws_connect(registration.websocket_url) as ws:
        token_event, realm_event = login_and_receive_token(ws, registration, email)
    claims = server.verify_access_token(token_event["access_token"])
    # The personal realm, under the environment's realm_prefix (if any) like every realm in the token.
    realm_path = realm_event.get("realm_path", "")
    prefix = realm_path.removesuffix(f"/users/{claims['sub']}")
    assert realm_path != prefix and all(path.startswith(prefix + "/") for path in claims["realms"]), (realm_event, claims)
    return SignedIn(email, registration, token_event, claims, realm_event["realm_path"])
