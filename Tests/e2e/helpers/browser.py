"""The browser's part of a sign-in: the device confirmation page, the IdP's form, and
the redirect back to /auth_callback."""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx

from .idp import MockIdP
from .settings import IDP_CLIENT_ID
from .tokens import b64url_decode
from .web import describe, http_client, is_html

if TYPE_CHECKING:
    from .server import FieldpassServer


def login_params(login_url: str) -> dict[str, str]:
    query = parse_qs(urlsplit(login_url).query, keep_blank_values=True)
    return {key: values[0] for key, values in query.items()}


def _with_query(url: str, extra: Mapping[str, str]) -> str:
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    for key, value in extra.items():
        query[key] = [value]
    return urlunsplit(parts._replace(query=urlencode(query, doseq=True)))


def is_confirmation_url(login_url: str) -> bool:
    """Whether `login_url` is Fieldpass's device confirmation page (not the IdP itself)."""
    return urlsplit(login_url).path.startswith("/login/")


_CSRF_FIELD = re.compile(r'<input type="hidden" name="csrf_token" value="([^"]+)"')
_USER_CODE = re.compile(r'<p class="code">([A-Z]{4}-[A-Z]{4})</p>')


@dataclass
class ConfirmationPage:
    """What a browser got from `GET login_url`: the page, its form field and its cookies."""

    response: httpx.Response
    client: httpx.Client

    @property
    def csrf_token(self) -> str:
        match = _CSRF_FIELD.search(self.response.text)
        assert match, f"no csrf_token field on the page: {describe(self.response)}"
        return match.group(1)

    @property
    def user_code(self) -> str:
        match = _USER_CODE.search(self.response.text)
        assert match, f"no user code on the page: {describe(self.response)}"
        return match.group(1)

    def submit(self, form: Mapping[str, str] | None = None) -> httpx.Response:
        """POST the page's form back as a browser would (with its cookie); `form` replaces the fields."""
        fields = {"csrf_token": self.csrf_token} if form is None else dict(form)
        return self.client.post(str(self.response.request.url), data=fields)


def open_confirmation(login_url: str, client: httpx.Client) -> ConfirmationPage:
    response = client.get(login_url)
    assert response.status_code == 200 and is_html(response), describe(response)
    return ConfirmationPage(response, client)


def new_browser() -> httpx.Client:
    """One person's browser: one cookie jar, kept from the confirmation page through the IdP
    to the callback, as a real browser keeps it."""
    return http_client()


def authorize_url(login_url: str, browser: httpx.Client) -> str:
    """The IdP authorization URL behind `login_url`: through the confirmation page when there
    is one (GET, then POST its form, in `browser`), else `login_url` itself."""
    if not is_confirmation_url(login_url):
        return login_url
    page = open_confirmation(login_url, browser)
    response = page.submit()
    assert response.status_code == 303, describe(response)
    return response.headers["location"]


def idp_redirect(
    login_url: str, sub: str, *, browser: httpx.Client, deny: bool = False, idp: MockIdP | None = None,
    claims: Mapping[str, Any] | None = None,
) -> str:
    """In `browser`: confirm the device if needed, sign in (or refuse) at the IdP; returns
    the Location the IdP redirects the browser to.

    The mock IdP's user `sub` has the email claim `sub` unless `claims` (with `idp`)
    sets its claims first.

    oidc-provider-mock 0.3.4 leaves `state` out of its access_denied redirect, which
    RFC 6749 section 4.1.2.1 requires; like a conforming IdP, the helper puts the
    request's state back in.
    """
    if claims is not None:
        assert idp is not None, "claims need the idp to set them on"
        idp.set_user(sub, claims)
    idp_url = authorize_url(login_url, browser)
    return idp_answer(idp_url, {"action": "deny"} if deny else {"sub": sub}, browser)


def idp_answer(idp_url: str, form: Mapping[str, str], browser: httpx.Client) -> str:
    """POST `form` to the IdP's authorization page `idp_url` in `browser`; the Location the
    IdP redirects to, with the request's `state` put back into an error redirect that lacks it
    (see idp_redirect)."""
    response = browser.post(idp_url, data=dict(form))
    assert response.status_code == 302, f"IdP did not redirect: {describe(response)}"
    location = response.headers["location"]
    params = login_params(location)
    state = login_params(idp_url).get("state")
    if "error" in params and "state" not in params and state is not None:
        location = _with_query(location, {"state": state})
    return location


def browser_login(
    login_url: str, sub: str, deny: bool = False, *, idp: MockIdP | None = None,
    claims: Mapping[str, Any] | None = None, browser: httpx.Client | None = None,
) -> httpx.Response:
    """Play one person's browser: confirm the device, sign in at the IdP as `sub` (or deny),
    then follow the redirect to our /auth_callback. `browser` (else a new one) carries its
    cookies through all three. Returns the callback's response; its URL is
    `response.request.url`."""
    with ExitStack() as stack:
        if browser is None:
            browser = stack.enter_context(new_browser())
        location = idp_redirect(login_url, sub, browser=browser, deny=deny, idp=idp, claims=claims)
        assert urlsplit(location).path.endswith("/auth_callback"), location
        return browser.get(location)


def authorization_endpoint(idp: MockIdP) -> str:
    """The IdP's authorization endpoint, from its discovery document."""
    with http_client() as client:
        response = client.get(f"{idp.issuer}/.well-known/openid-configuration")
    assert response.status_code == 200, describe(response)
    return response.json()["authorization_endpoint"]


def assert_idp_request(server: FieldpassServer, idp_url: str, email: str, prompt: str | None = None) -> dict[str, str]:
    """`idp_url` is a complete authorization request for `email` to the server's IdP."""
    assert idp_url.split("?")[0] == authorization_endpoint(server.idp), idp_url
    params = login_params(idp_url)
    assert params.get("response_type") == "code", params
    assert params.get("client_id") == IDP_CLIENT_ID, params
    assert params.get("redirect_uri") == server.callback_url, params
    assert {"openid", "email", "profile"} <= set(params.get("scope", "").split()), params
    assert len(params.get("state", "")) >= 16, params
    assert params.get("nonce"), params
    assert params.get("code_challenge_method") == "S256", params
    assert len(b64url_decode(params.get("code_challenge", ""))) == 32, params
    assert params.get("login_hint") == email, params
    assert params.get("prompt") == prompt, params
    return params
