"""POST /register_device: bad input gets a JSON error and changes nothing.

Runs against its own server (`quiet_server`) so that what the server shows of its state
(the users `fieldpass admin users` lists, the realms on the integration feed, the
registrations its metrics count) changes only through the requests made here.
"""

from __future__ import annotations

import json

import httpx
import pytest

from helpers import FieldpassServer, describe, registration_footprint, unique_email

DEVICE = {"name": "Pixel 8", "platform": "android"}
VALID_EMAIL = "valid.user@example.com"


def body(value: object) -> bytes:
    return json.dumps(value).encode()


CASES = [
    # id, raw body, status, error code
    ("not-json", b"{not json", 400, "invalid_request"),
    ("empty-body", b"", 400, "invalid_request"),
    ("json-array", body([{"email": VALID_EMAIL, "device": DEVICE}]), 400, "invalid_request"),
    ("json-string", body(VALID_EMAIL), 400, "invalid_request"),
    ("missing-email", body({"device": DEVICE}), 400, "invalid_request"),
    ("email-number", body({"email": 42, "device": DEVICE}), 400, "invalid_request"),
    ("email-null", body({"email": None, "device": DEVICE}), 400, "invalid_request"),
    ("device-string", body({"email": VALID_EMAIL, "device": "Pixel 8"}), 400, "invalid_request"),
    ("email-no-at", body({"email": "not-an-email", "device": DEVICE}), 400, "invalid_email"),
    ("email-no-domain", body({"email": "a@", "device": DEVICE}), 400, "invalid_email"),
    ("email-no-local-part", body({"email": "@b.com", "device": DEVICE}), 400, "invalid_email"),
    ("email-with-space", body({"email": "a b@example.com", "device": DEVICE}), 400, "invalid_email"),
    # The Kelvin sign lower-cases to "k": read as kim@example.com, it would reach Kim's account.
    ("email-kelvin-sign", body({"email": "\u212aim@example.com", "device": DEVICE}), 400, "invalid_email"),
    ("unknown-domain", body({"email": "alice@unknown.test", "device": DEVICE}), 404, "unknown_domain"),
    (
        "1MB-body",
        body({"email": VALID_EMAIL, "device": {"name": "x" * (1 << 20), "platform": "android"}}),
        413,
        "payload_too_large",
    ),
]


@pytest.mark.parametrize(
    ("raw", "status", "error"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_bad_register_request_is_rejected_and_stores_nothing(
    quiet_server: FieldpassServer, raw: bytes, status: int, error: str
) -> None:
    before = registration_footprint(quiet_server)
    try:
        response = quiet_server.post_register(content=raw)
    except httpx.TransportError as failure:
        pytest.fail(f"no HTTP response for a {len(raw)}-byte body: {failure!r}")
    after = registration_footprint(quiet_server)

    assert response.status_code == status, describe(response)
    assert response.headers.get("content-type", "").startswith("application/json"), describe(response)
    payload = response.json()
    assert isinstance(payload, dict), describe(response)
    assert payload.get("error") == error, describe(response)
    assert isinstance(payload.get("error_description"), str) and payload["error_description"], describe(response)
    assert after == before, f"stored something: {before} -> {after}"


def test_valid_register_is_visible_in_the_footprint(quiet_server: FieldpassServer) -> None:
    """The comparison above is real: a valid registration does show up."""
    email = unique_email()
    before = registration_footprint(quiet_server)
    quiet_server.register(email, DEVICE)
    after = registration_footprint(quiet_server)
    (added_user,) = set(after["users"]) - set(before["users"])
    assert added_user.split()[2] == email, added_user
    assert len(after["users"]) == len(before["users"]) + 1, f"users: {before} -> {after}"
    assert len(after["realms"]) == len(before["realms"]) + 1, f"realms: {before} -> {after}"
    assert after["registrations"] == before["registrations"] + 1, f"{before} -> {after}"

    quiet_server.register(email, DEVICE)
    again = registration_footprint(quiet_server)
    assert again["users"] == after["users"], f"same user created twice: {after} -> {again}"
    assert again["realms"] == after["realms"], f"same realm created twice: {after} -> {again}"
    assert again["registrations"] == after["registrations"] + 1, f"{after} -> {again}"
