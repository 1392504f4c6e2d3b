"""Tenancy: an admin grants only realms of their own environment, and an IdP's issuer is
taken exactly as configured, plain http only on loopback."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any


from helpers import (
    OTHER_ADMIN_EMAIL,
    OTHER_DOMAIN,
    FieldpassServer,
    SignedIn,
    assert_api_error,
    assert_json,
    cli_output,
    directory_view,
    server_in,
    sign_in,
    unique_email,
)



def grant(server: FieldpassServer, admin: SignedIn, user_id: str, realm_path: str):
    return server.api(
        "PUT", f"/admin/users/{user_id}/grants", token=admin.access_token,
        json_body={"realm_path": realm_path, "access": "read"},
    )


def test_realms_of_another_environment_are_unknown(directory_server: FieldpassServer, admin: SignedIn) -> None:
    worker = sign_in(directory_server, unique_email())
    stranger = sign_in(directory_server, unique_email(domain=OTHER_DOMAIN))
    other_admin = sign_in(directory_server, OTHER_ADMIN_EMAIL)
    their_team = assert_json(
        directory_server.api("POST", "/admin/teams", token=other_admin.access_token, json_body={"name": "Theirs"}), 201
    )
    def observed() -> tuple[Any, ...]:
        return (
            directory_view(directory_server, admin.access_token, of_users=[worker.user_id]),
            directory_view(directory_server, other_admin.access_token, of_users=[stranger.user_id]),
        )

    before = observed()

    for path in (
        f"/users/{stranger.user_id}", f"/users/{stranger.user_id}/notes", f"/teams/{their_team['id']}",
        f"/users/{uuid.uuid4()}", f"/teams/{uuid.uuid4()}",
    ):
        assert_api_error(grant(directory_server, admin, worker.user_id, path), 404, "unknown_realm")

    assert observed() == before
    colleague = sign_in(directory_server, unique_email())
    for path in (f"/users/{colleague.user_id}", "/teams/*", "/users/*", "/tasks"):
        realms = assert_json(grant(directory_server, admin, worker.user_id, path))["grants"]
        assert realms.get(path) == "read", (path, realms)


def start_with_issuer(fieldpass_bin: Path, server: FieldpassServer, tmp_path: Path, issuer: str):
    """`fieldpass migrate` with the server's config and another issuer: it reads and checks
    the whole configuration, as `serve` does, without a port."""
    probe = server_in(tmp_path, fieldpass_bin, server.idp, dict(server.env, ENVIRONMENTS_DEV_IDP_ISSUER=issuer))
    probe.write_config()
    return probe.cli("migrate", "--config", str(probe.config_path))


def test_plain_http_issuers_only_on_loopback(fieldpass_bin: Path, server: FieldpassServer, tmp_path: Path) -> None:
    refused = start_with_issuer(fieldpass_bin, server, tmp_path, "http://idp.example.com")
    assert refused.returncode != 0, cli_output(refused)
    assert "environments.dev.idp.issuer" in refused.stderr and "https" in refused.stderr, cli_output(refused)

    accepted = start_with_issuer(fieldpass_bin, server, tmp_path, "https://idp.example.com/")
    assert accepted.returncode == 0, cli_output(accepted)
