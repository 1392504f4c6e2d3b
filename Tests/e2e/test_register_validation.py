"""POST /register_device: bad input gets a JSON error and changes nothing.

Runs against its own server (`quiet_server`) so that row counts change only
through the requests made here.
"""

from __future__ import annotations

import json

import httpx
import pytest

from helpers import FieldpassServer, describe, unique_email

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
    before = quiet_server.row_counts()
    try:
        response = quiet_server.post_register(content=raw)
    except httpx.TransportError as failure:
        pytest.fail(f"no HTTP response for a {len(raw)}-byte body: {failure!r}")
    after = quiet_server.row_counts()

    assert response.status_code == status, describe(response)
    assert response.headers.get("content-type", "").startswith("application/json"), describe(response)
    payload = response.json()
    assert isinstance(payload, dict), describe(response)
    assert payload.get("error") == error, describe(response)
    assert isinstance(payload.get("error_description"), str) and payload["error_description"], describe(response)
    assert after == before, f"rows changed: {before} -> {after}"


def test_valid_register_is_visible_in_row_counts(quiet_server: FieldpassServer) -> None:
    """The counting above is real: a valid registration does show up."""
    email = unique_email()
    before = quiet_server.row_counts()
    quiet_server.register(email, DEVICE)
    after = quiet_server.row_counts()
    for table in ("users", "realms", "sessions"):
        assert after[table] == before[table] + 1, f"{table}: {before} -> {after}"

    quiet_server.register(email, DEVICE)
    again = quiet_server.row_counts()
    assert again["users"] == after["users"], f"same user created twice: {after} -> {again}"
    assert again["realms"] == after["realms"], f"same realm created twice: {after} -> {again}"
    assert again["sessions"] == after["sessions"] + 1, f"{after} -> {again}"
