"""Identity binding and email verification.

The first sign-in binds a user to the IdP's (issuer, sub); another sub with the same email
is refused until an admin resets the binding. An environment may require the IdP's
`email_verified` claim; an `email_verified: false` is refused even when it does not.

Runs against `directory_server` (per module: `dev` with admin@example.com, `other` with
admin@other.test), and a server of its own that requires `email_verified`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import FieldpassServer, MockIdP, SignedIn, start_server, unique_email, user_id_by_email
from identity_flows import (
    assert_sign_in_refused,
    audit_ids,
    call,
    idp_users,
    new_entry,
    sign_in_as,
    user_record,
)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def strict_server(
    fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FieldpassServer]:
    """`idp.require_email_verified: true` for dev."""
    server = start_server(
        fieldpass_bin, idp, tmp_path_factory.mktemp("server-strict"),
        {"ENVIRONMENTS_DEV_IDP_REQUIRE_EMAIL_VERIFIED": "true"},
    )
    try:
        yield server
    finally:
        server.stop()


# --------------------------------------------------------------------------- identity binding


def test_first_sign_in_binds_the_idp_identity(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    (sub,) = idp_users(server, email, 1)
    server.register(email)
    user_id = user_id_by_email(server, admin.access_token, email)
    unbound = user_record(server, admin, user_id)

    signed_in = sign_in_as(server, email, sub)
    bound = user_record(server, admin, signed_in.user_id)

    assert "idp_subject" not in unbound and "idp_issuer" not in unbound and unbound.get("disabled") is False, unbound
    assert signed_in.user_id == user_id
    assert bound.get("idp_issuer") == server.idp.issuer and bound.get("idp_subject") == sub, bound
    assert bound.get("disabled") is False, bound


def standing(listing: dict) -> list[dict]:
    """A device list without `last_seen_at`, which the refused attempt's registration of the
    same device moves, as any registration does: what a sign-in could have changed."""
    return [{key: value for key, value in device.items() if key != "last_seen_at"} for device in listing["devices"]]


def test_another_subject_with_the_same_email_is_refused(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    sub_a, sub_b = idp_users(server, email, 2)
    # One phone (one installation): the attempt registers the very device that signed in.
    phone = {"name": "Pixel 8", "platform": "android", "install_id": f"phone-of-{sub_a}"}
    first = sign_in_as(server, email, sub_a, phone)
    seen = audit_ids(server, admin)
    devices = f"/admin/users/{first.user_id}/devices"
    devices_before = standing(call(server, admin.access_token, "GET", devices))

    assert_sign_in_refused(server, email, "identity_mismatch", sub_b, callback_statuses={400}, device=phone)

    after = standing(call(server, admin.access_token, "GET", devices))
    assert after == devices_before, "the refused sign-in reached a device"
    assert user_record(server, admin, first.user_id).get("idp_subject") == sub_a
    entry = new_entry(server, admin, seen, "identity.mismatch", first.user_id)
    assert entry["actor"] == "idp" and entry["target"] == f"user:{first.user_id}", entry
    assert entry.get("before") == {"issuer": server.idp.issuer, "subject": sub_a}, entry
    assert entry.get("after") == {"issuer": server.idp.issuer, "subject": sub_b}, entry


def test_reset_identity_lets_the_next_sign_in_bind_anew(directory_server: FieldpassServer, admin: SignedIn) -> None:
    server = directory_server
    email = unique_email()
    sub_a, sub_b = idp_users(server, email, 2)
    first = sign_in_as(server, email, sub_a)
    seen = audit_ids(server, admin)

    call(server, admin.access_token, "DELETE", f"/admin/users/{first.user_id}/identity", 204)
    reset = user_record(server, admin, first.user_id)
    second = sign_in_as(server, email, sub_b)

    assert "idp_subject" not in reset and "idp_issuer" not in reset, reset
    entry = new_entry(server, admin, seen, "identity.reset", first.user_id)
    assert entry["actor"] == f"user:{admin.user_id}", entry
    assert second.user_id == first.user_id, (second.claims, first.claims)
    assert user_record(server, admin, first.user_id).get("idp_subject") == sub_b
    assert_sign_in_refused(server, email, "identity_mismatch", sub_a, callback_statuses={400})


# --------------------------------------------------------------------------- email_verified


VERIFICATION_CASES = {
    # id: (server fixture, email_verified claim or None for absent, expected error or None)
    "required-absent": ("strict_server", None, "email_not_verified"),
    "required-false": ("strict_server", False, "email_not_verified"),
    "required-true": ("strict_server", True, None),
    "default-absent": ("directory_server", None, None),
    "default-false": ("directory_server", False, "email_not_verified"),
}


@pytest.mark.parametrize(("server_name", "verified", "error"), VERIFICATION_CASES.values(), ids=VERIFICATION_CASES.keys())
def test_email_verified_claim(request: pytest.FixtureRequest, server_name: str, verified: bool | None, error: str | None) -> None:
    server: FieldpassServer = request.getfixturevalue(server_name)
    email = unique_email()
    claims = {"email": email} if verified is None else {"email": email, "email_verified": verified}
    server.idp.set_user(email, claims)

    if error is None:
        assert sign_in_as(server, email, email).claims["email"] == email
    else:
        assert_sign_in_refused(server, email, error)
