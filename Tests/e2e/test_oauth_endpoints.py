"""Authorization server metadata (RFC 8414) and bad input on the OAuth endpoints.

The metadata must describe this server exactly, and every endpoint it names must answer.
Malformed requests to POST /token, /revoke and /introspect get a clear JSON error and
change nothing: the rows of the directory, devices, refresh and revoked tokens are
compared before and after every case. The requests carry live tokens, so a request that
was wrongly carried out would show in the store.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
import pytest

from helpers import (
    DEV_BACKEND,
    FieldpassServer,
    IntegrationClient,
    SignedIn,
    assert_api_error,
    assert_json,
    describe,
    directory_view,
    feed_realms,
    http_client,
    registrations,
    sign_in,
    unique_email,
)
from oauth_flows import introspection

METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
ENDPOINTS = {"token_endpoint": "/token", "revocation_endpoint": "/revoke", "introspection_endpoint": "/introspect"}
AUTH_METHOD_LISTS = (
    "token_endpoint_auth_methods_supported",
    "revocation_endpoint_auth_methods_supported",
    "introspection_endpoint_auth_methods_supported",
)
# The client authentication methods registered with IANA (RFC 8414 section 2, RFC 7591).
KNOWN_AUTH_METHODS = {
    "none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt",
    "tls_client_auth", "self_signed_tls_client_auth",
}
FORM = "application/x-www-form-urlencoded"


# --------------------------------------------------------------------------- metadata


def metadata(server: FieldpassServer, path: str = METADATA_PATHS[0]) -> dict[str, Any]:
    body = assert_json(server.get(path))
    assert isinstance(body, dict), body
    return body


def post_empty_form(url: str) -> httpx.Response:
    with http_client() as client:
        return client.post(url, content=b"", headers={"content-type": FORM})


def assert_under(url: Any, base: str) -> None:
    """An absolute URL on this server, without query or fragment."""
    assert isinstance(url, str) and url.startswith(base + "/"), (url, base)
    parts = urlsplit(url)
    assert not parts.query and not parts.fragment, url


def test_both_metadata_documents_are_the_same(directory_server: FieldpassServer) -> None:
    documents = [metadata(directory_server, path) for path in METADATA_PATHS]

    assert documents[0] == documents[1], documents


def test_metadata_is_valid_rfc_8414(directory_server: FieldpassServer) -> None:
    server = directory_server

    doc = metadata(server)

    issuer = doc.get("issuer")
    assert issuer == server.public_url, (issuer, server.public_url)
    parts = urlsplit(issuer)
    assert parts.scheme == "https" or (parts.scheme == "http" and parts.hostname == "127.0.0.1"), issuer
    assert not parts.query and not parts.fragment, issuer
    for member, path in ENDPOINTS.items():
        assert doc.get(member) == f"{server.public_url}{path}", (member, doc)
    for member in [name for name in doc if name.endswith("_endpoint")] + ["jwks_uri"]:
        assert_under(doc.get(member), server.public_url)
    assert set(doc.get("grant_types_supported", [])) == {"refresh_token", "client_credentials"}, doc
    assert doc.get("response_types_supported") == [], doc
    for member in AUTH_METHOD_LISTS:
        methods = doc.get(member)
        assert isinstance(methods, list) and methods and set(methods) <= KNOWN_AUTH_METHODS, (member, doc)
        assert "client_secret_basic" in methods, (member, doc)
    assert "none" not in doc["introspection_endpoint_auth_methods_supported"], doc
    assert not [name for name in doc if name.startswith("registration")], doc


def test_issued_tokens_carry_the_metadata_issuer(directory_server: FieldpassServer) -> None:
    server = directory_server
    with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as client:
        token = client.authenticate()["access_token"]

    claims = server.verify_access_token(token)

    assert claims["iss"] == metadata(server)["issuer"], claims


def test_jwks_uri_serves_the_signing_keys(directory_server: FieldpassServer) -> None:
    url = metadata(directory_server)["jwks_uri"]

    with http_client() as client:
        response = client.get(url)

    assert response.status_code == 200, describe(response)
    assert "json" in response.headers.get("content-type", ""), describe(response)
    keys = response.json().get("keys")
    assert isinstance(keys, list) and keys, describe(response)
    assert all(isinstance(key, dict) and key.get("kty") and key.get("kid") for key in keys), keys


def test_every_endpoint_in_the_metadata_answers_with_an_oauth_error(directory_server: FieldpassServer) -> None:
    doc = metadata(directory_server)
    urls = [doc[name] for name in doc if name.endswith("_endpoint")]
    assert set(urls) >= {doc[member] for member in ENDPOINTS}, doc

    responses = [post_empty_form(url) for url in urls]

    for response in responses:
        assert 400 <= response.status_code < 500 and response.status_code not in (404, 405), describe(response)
        assert_api_error(response, response.status_code)


# --------------------------------------------------------------------------- bad input


@dataclass(frozen=True)
class Live:
    """Live tokens that every bad request carries; none of them may be used up."""

    access: str
    refresh: str
    service: str
    user_id: str


@pytest.fixture(scope="module")
def live(directory_server: FieldpassServer) -> Live:
    device = sign_in(directory_server, unique_email("bystander"))
    with IntegrationClient(directory_server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as client:
        service = client.authenticate()["access_token"]
    return Live(device.access_token, device.refresh_token, service, device.user_id)


def basic(raw: bytes) -> str:
    return "Basic " + base64.b64encode(raw).decode()


GOOD_BASIC = basic(f"{DEV_BACKEND.id}:{DEV_BACKEND.secret}".encode())

BAD_BASIC = {
    "scheme-only": "Basic",
    "not-base64": "Basic !!!not-base64!!!",
    "no-colon": basic(DEV_BACKEND.id.encode()),
    "wrong-secret": basic(f"{DEV_BACKEND.id}:wrong-secret".encode()),
    "empty-client-id": basic(f":{DEV_BACKEND.secret}".encode()),
    "unknown-client": basic(f"nobody:{DEV_BACKEND.secret}".encode()),
    "non-utf8-credentials": basic(DEV_BACKEND.id.encode() + b":\xff\xfe\x80"),
    "trailing-garbage": GOOD_BASIC + "garbage",
    "two-credentials": f"{GOOD_BASIC}, {GOOD_BASIC}",
}


def _empty_200(response: httpx.Response) -> bool:
    return response.status_code == 200 and response.content == b""


def _inactive_200(response: httpx.Response) -> bool:
    return response.status_code == 200 and response.json() == {"active": False}


def _never(response: httpx.Response) -> bool:
    return False


@dataclass(frozen=True)
class Endpoint:
    """A well-formed request to one endpoint: the form around the token field, the token
    it carries, a second live token (for duplicates) and its client authentication."""

    path: str
    token_field: str
    other_fields: tuple[tuple[str, str], ...]
    token: Callable[[Live], str]
    second_token: Callable[[Live], str]
    authorization: str | None
    # Whether a response is the harmless answer to a well-formed request with an unknown
    # token (RFC 7009: 200; RFC 7662: inactive), which is as good as an error for odd tokens.
    ignores_unknown: Callable[[httpx.Response], bool]
    odd_token_errors: frozenset[str] = frozenset({"invalid_request"})

    def good(self, live: Live) -> list[tuple[str, str]]:
        return [*self.other_fields, (self.token_field, self.token(live))]

    def without_token(self) -> bytes:
        return urlencode(self.other_fields).encode()


REVOKE = Endpoint("/revoke", "token", (), lambda live: live.access, lambda live: live.refresh, None, _empty_200)
INTROSPECT = Endpoint(
    "/introspect", "token", (), lambda live: live.access, lambda live: live.service, GOOD_BASIC, _inactive_200
)
TOKEN = Endpoint(
    "/token", "refresh_token", (("grant_type", "refresh_token"),), lambda live: live.refresh, lambda live: live.access,
    None, _never, frozenset({"invalid_request", "invalid_grant"}),
)


@dataclass(frozen=True)
class Case:
    id: str
    endpoint: Endpoint
    body: Callable[[Live], bytes]
    status: int
    error: str | frozenset[str] | None
    content_type: str = FORM
    authorization: str | None | bool = True  # True: the endpoint's own
    odd_token: bool = False  # the endpoint's harmless answer to an unknown token is fine too

    def param(self) -> Any:
        return pytest.param(self, id=f"{self.endpoint.path[1:]}-{self.id}")


def form(*pairs: tuple[str, str]) -> bytes:
    return urlencode(list(pairs)).encode()


def raw_form(*parts: bytes) -> bytes:
    """Form fields joined as they are, for bytes urlencode would escape."""
    return b"&".join(part for part in parts if part)


def _cases(endpoint: Endpoint) -> list[Case]:
    def good(live: Live) -> bytes:
        return form(*endpoint.good(live))

    def with_token_bytes(raw: Callable[[Live], bytes]) -> Callable[[Live], bytes]:
        return lambda live: raw_form(endpoint.without_token(), endpoint.token_field.encode() + b"=" + raw(live))

    def odd(case_id: str, body: Callable[[Live], bytes]) -> Case:
        return Case(case_id, endpoint, body, 400, endpoint.odd_token_errors, odd_token=True)

    broken_name = endpoint.token_field.encode().replace(b"token", b"tok\xffen")
    return [
        Case("json-body", endpoint, lambda live: json.dumps(dict(endpoint.good(live))).encode(), 400, "invalid_request",
             content_type="application/json"),
        Case("form-labelled-text-plain", endpoint, good, 400, "invalid_request", content_type="text/plain"),
        Case("no-content-type", endpoint, good, 400, "invalid_request", content_type=""),
        Case("1MB-body", endpoint, lambda live: form(*endpoint.good(live), ("padding", "x" * (1 << 20))), 413,
             "payload_too_large"),
        Case("missing-token", endpoint, lambda live: endpoint.without_token(), 400, "invalid_request"),
        Case("non-utf8-token-field-name", endpoint,
             lambda live: raw_form(endpoint.without_token(), broken_name + b"=" + endpoint.token(live).encode()),
             400, "invalid_request"),
        Case("duplicate-token", endpoint,
             lambda live: form(*endpoint.good(live), (endpoint.token_field, endpoint.second_token(live))),
             400, "invalid_request"),
        odd("10kB-token", with_token_bytes(lambda live: b"t" * 10240)),
        odd("non-utf8-token-bytes", with_token_bytes(lambda live: b"\xff\xfe\x80" + endpoint.token(live)[:20].encode())),
        odd("non-utf8-token-percent-encoded", with_token_bytes(lambda live: b"%FF%FE%80")),
        *[
            Case(f"basic-{name}", endpoint, good, 401, "invalid_client", authorization=header)
            for name, header in BAD_BASIC.items()
        ],
    ]


CASES = [
    *_cases(REVOKE),
    *_cases(INTROSPECT),
    *_cases(TOKEN),
    Case("without-client-auth", INTROSPECT, lambda live: form(("token", live.access)), 401, "invalid_client",
         authorization=None),
    Case("duplicate-token-type-hint", REVOKE, lambda live: form(
        ("token", live.access), ("token_type_hint", "access_token"), ("token_type_hint", "refresh_token")),
        400, "invalid_request"),
    Case("duplicate-grant-type", TOKEN, lambda live: form(
        ("grant_type", "refresh_token"), ("grant_type", "client_credentials"), ("refresh_token", live.refresh)),
        400, "invalid_request"),
    Case("duplicate-grant-type-with-client-auth", TOKEN, lambda live: form(
        ("grant_type", "client_credentials"), ("grant_type", "refresh_token"), ("refresh_token", live.refresh)),
        400, "invalid_request", authorization=GOOD_BASIC),
]


def send(server: FieldpassServer, case: Case, live: Live) -> httpx.Response:
    headers = {"content-type": case.content_type} if case.content_type else {}
    authorization = case.endpoint.authorization if case.authorization is True else case.authorization
    if authorization:
        headers["authorization"] = authorization
    with http_client() as client:
        try:
            return client.post(f"{server.public_url}{case.endpoint.path}", content=case.body(live), headers=headers)
        except httpx.TransportError as failure:
            pytest.fail(f"no HTTP response: {failure!r}")


def state(server: FieldpassServer, admin: SignedIn, user_id: str, tokens: list[str]) -> tuple[Any, ...]:
    """What dev's admin sees (with the devices of `user_id`), the realm feed, the registrations
    counted, and what introspection says of each of `tokens`."""
    return (
        directory_view(server, admin.access_token, of_users=[user_id]),
        feed_realms(server, DEV_BACKEND),
        registrations(server),
        [introspection(server, token) for token in tokens],
    )


@pytest.mark.parametrize("case", [case.param() for case in CASES])
def test_bad_request_is_refused_and_changes_nothing(
    directory_server: FieldpassServer, admin: SignedIn, live: Live, case: Case
) -> None:
    server = directory_server
    tokens = [live.access, live.refresh, live.service]
    before = state(server, admin, live.user_id, tokens)

    response = send(server, case, live)

    if not (case.odd_token and case.endpoint.ignores_unknown(response)):
        assert_api_error(response, case.status, case.error)
    if response.status_code == 401:
        assert response.headers.get("www-authenticate", "").lower().startswith("basic"), describe(response)
    for leak in ("access_token", '"active":true', '"active": true'):
        assert leak not in response.text, describe(response)
    assert state(server, admin, live.user_id, tokens) == before, f"{case.id} changed the store"


def post_form(server: FieldpassServer, path: str, data: dict[str, str]) -> httpx.Response:
    with http_client() as client:
        response = client.post(f"{server.public_url}{path}", data=data)
    assert response.status_code == 200, describe(response)
    return response


def test_valid_requests_change_what_the_checks_compare(directory_server: FieldpassServer, admin: SignedIn) -> None:
    """The comparison above is real: each valid request does show in it."""
    server = directory_server
    device = sign_in(server, unique_email("control"))
    successor: dict[str, Any] = {}

    def rotate() -> None:
        successor.update(post_form(server, "/token", {"grant_type": "refresh_token",
                                                      "refresh_token": device.refresh_token}).json())

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("refresh", rotate),
        ("revoke the access token", lambda: post_form(server, "/revoke", {"token": successor["access_token"]})),
        ("revoke the refresh token", lambda: post_form(server, "/revoke", {"token": successor["refresh_token"]})),
    ]
    for what, step in steps:
        tokens = [device.access_token, device.refresh_token]
        tokens += [successor[key] for key in ("access_token", "refresh_token") if key in successor]
        before = state(server, admin, device.user_id, tokens)
        step()
        assert state(server, admin, device.user_id, tokens) != before, f"{what} changed nothing visible"
