"""Roles and teams from the sign-in's claims (`roles_from_idp`, `teams_from_idp`).

A person's claims are set at the development IdP with its `PUT /users/{sub}`; each sign-in is
one browser through the confirmation page, the IdP and the callback. The first token already
carries the mapped role and team realms (verified from the JWKS alone); what the IdP manages
the admin API and CLI refuse (409 `managed_by_idp`); a claim that is missing, or Entra's group
overage marker, changes nothing and is logged once; every change is audited with actor `idp`.

One server per module, logging JSON, with three environments on the same IdP:
- `every` (every.test): roles and teams at every sign-in, teams by the prefix `crew-`;
- `first` (first.test): the same mappings, at the first sign-in only;
- `mapped` (mapped.test): teams from a map alone, roles the admins' (a bootstrap admin).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from helpers import (
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    SignedIn,
    assert_api_error,
    assert_json,
    audit_entries,
    cli_output,
    server_env,
    server_in,
    sign_in,
    unique_email,
)

ROLES = {"claim": "roles", "map": {"Fieldpass.Admin": "admin", "Fieldpass.Manager": "manager"}, "default": "worker"}
CREW_TEAMS = {"claim": "groups", "prefix": "crew-", "map": {"4f1c0e2a-night": "Night shift"}}
NIGHT_GROUP = "4f1c0e2a-night"
ENVIRONMENTS = (
    EnvironmentSpec(
        "every", ("every.test",),
        roles_from_idp={**ROLES, "sync": "every_sign_in"}, teams_from_idp={**CREW_TEAMS, "sync": "every_sign_in"},
    ),
    EnvironmentSpec(
        "first", ("first.test",),
        roles_from_idp={**ROLES, "sync": "first_sign_in"}, teams_from_idp={**CREW_TEAMS, "sync": "first_sign_in"},
    ),
    EnvironmentSpec(
        "mapped", ("mapped.test",), bootstrap_admins=("admin@mapped.test",),
        teams_from_idp={"claim": "groups", "map": {"g-north": "North"}},
    ),
)
SKIPPED = "Sign-in claim unusable, its mapping changes nothing"


@pytest.fixture(scope="module")
def claims_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    workdir = tmp_path_factory.mktemp("server-idp-claims")
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, ENVIRONMENTS), environments=ENVIRONMENTS)
    server.serve_args = ("--log-format", "json")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def person(domain: str) -> str:
    """A new person's email, unique to the test (the IdP's users outlive the module)."""
    return unique_email("crew", domain)


def signed_in(server: FieldpassServer, email: str, claims: Mapping[str, Any]) -> SignedIn:
    """Set `email`'s claims at the IdP (its subject is the email), then sign in a new device."""
    server.idp.set_user(email, {"email": email, **claims})
    return sign_in(server, email)


@pytest.fixture(scope="module")
def every_admin(claims_server: FieldpassServer) -> SignedIn:
    """`every`'s admin: admin because the IdP's roles claim says so."""
    admin = signed_in(claims_server, "admin@every.test", {"roles": ["Fieldpass.Admin"]})
    assert admin.claims["role"] == "admin", admin.claims
    return admin


@pytest.fixture(scope="module")
def first_admin(claims_server: FieldpassServer) -> SignedIn:
    admin = signed_in(claims_server, "admin@first.test", {"roles": ["Fieldpass.Admin"]})
    assert admin.claims["role"] == "admin", admin.claims
    return admin


@pytest.fixture(scope="module")
def mapped_admin(claims_server: FieldpassServer) -> SignedIn:
    """`mapped`'s bootstrap admin: the environment maps no roles."""
    admin = sign_in(claims_server, "admin@mapped.test")
    assert admin.claims["role"] == "admin", admin.claims
    return admin


def crew(suffix: str) -> str:
    """A team name of the test's own, so that tests sharing the module's server never share a team."""
    return f"{suffix}-{uuid.uuid4().hex[:8]}"


def manager_of_a_new_crew(server: FieldpassServer, domain: str) -> tuple[str, str, SignedIn]:
    """A new person's first sign-in as a manager in a new crew: (email, the crew's team name, the device)."""
    email, north = person(domain), crew("North")
    return email, north, signed_in(server, email, {"roles": ["Fieldpass.Manager"], "groups": [f"crew-{north}"]})


def team_id(server: FieldpassServer, admin: SignedIn, name: str) -> str:
    teams = assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"]
    (found,) = [team["id"] for team in teams if team["name"] == name]
    return found


def my_teams(server: FieldpassServer, device: SignedIn) -> set[str]:
    """The team names `GET /me` shows the device's person in."""
    return {team["name"] for team in assert_json(server.api("GET", "/me", token=device.access_token))["teams"]}


def idp_entries(server: FieldpassServer, admin: SignedIn, user_id: str) -> list[tuple[str, Any, Any]]:
    """The audit entries actor `idp` wrote about the person, oldest first: (action, before, after)."""
    return [
        (entry["action"], entry.get("before"), entry.get("after"))
        for entry in reversed(audit_entries(server, admin))
        if entry["actor"] == "idp" and user_id in json.dumps(entry)
    ]


def skipped_lines(server: FieldpassServer) -> list[dict[str, Any]]:
    assert server.process is not None
    records = [json.loads(line) for line in server.process.stderr_path.read_text().splitlines()]
    return [record for record in records if record["message"] == SKIPPED]


# --------------------------------------------------------------------------- the first token


def test_the_first_token_carries_the_claims_role_and_team_realm(claims_server: FieldpassServer, every_admin: SignedIn) -> None:
    server = claims_server
    north, night = crew("North"), "Night shift"
    manager_email, worker_email = person("every.test"), person("every.test")

    manager = signed_in(server, manager_email, {"roles": ["Fieldpass.Manager"], "groups": [f"crew-{north}", "staff"]})
    worker = signed_in(server, worker_email, {"roles": ["Somebody.Else"], "groups": [f"crew-{north}", NIGHT_GROUP]})

    north_id, night_id = team_id(server, every_admin, north), team_id(server, every_admin, night)
    assert manager.claims["role"] == "manager", manager.claims
    assert manager.claims["realms"] == {
        "/common": "write", "/tasks": "write", "/teams/*": "write", f"/users/{manager.user_id}": "write",
    }, manager.claims
    assert my_teams(server, manager) == {north}, "staff has no crew- prefix and is no team"
    assert worker.claims["role"] == "worker", "a value the map does not name gives the default"
    assert worker.claims["realms"] == {
        "/common": "write", f"/users/{worker.user_id}": "write", f"/teams/{north_id}": "write", f"/teams/{night_id}": "write",
    }, worker.claims
    assert idp_entries(server, every_admin, manager.user_id) == [
        ("user.role", {"role": "worker"}, {"role": "manager"}),
        ("team.add_member", {"member": "no", "user": manager.user_id}, {"member": "yes", "user": manager.user_id}),
    ]
    created = [e for e in audit_entries(server, every_admin) if e["action"] == "team.create" and e["target"] == f"team:{north_id}"]
    assert [(e["actor"], e["after"]) for e in created] == [("idp", {"name": north})], created


# --------------------------------------------------------------------------- the next sign-in


def test_with_every_sign_in_a_claim_change_applies_at_the_next_sign_in(
    claims_server: FieldpassServer, every_admin: SignedIn,
) -> None:
    server, south = claims_server, crew("South")
    email, north, first = manager_of_a_new_crew(server, "every.test")

    second = signed_in(server, email, {"roles": [], "groups": [f"crew-{south}"]})

    south_id, north_id = team_id(server, every_admin, south), team_id(server, every_admin, north)
    assert first.claims["role"] == "manager" and second.claims["role"] == "worker", (first.claims, second.claims)
    assert second.claims["realms"] == {"/common": "write", f"/users/{second.user_id}": "write", f"/teams/{south_id}": "write"}
    assert my_teams(server, second) == {south}
    assert [action for action, _, _ in idp_entries(server, every_admin, second.user_id)] == [
        "user.role", "team.add_member", "user.role", "team.add_member", "team.remove_member",
    ]
    team = assert_json(server.api("GET", f"/admin/teams/{north_id}", token=every_admin.access_token))
    assert second.user_id not in team["members"], team


def test_with_first_sign_in_the_claims_apply_once_and_admins_change_them_afterwards(
    claims_server: FieldpassServer, first_admin: SignedIn,
) -> None:
    server, south = claims_server, crew("South")
    email, north, first = manager_of_a_new_crew(server, "first.test")

    second = signed_in(server, email, {"roles": ["Fieldpass.Admin"], "groups": [f"crew-{south}"]})

    assert first.claims["role"] == "manager" and second.claims["role"] == "manager", second.claims
    assert my_teams(server, second) == {north}, "no South: the claim counted at the first sign-in only"
    teams = assert_json(server.api("GET", "/admin/teams", token=first_admin.access_token))["teams"]
    assert south not in {team["name"] for team in teams}
    token = first_admin.access_token
    changed = server.api("PUT", f"/admin/users/{second.user_id}/role", token=token, json_body={"role": "worker"})
    assert assert_json(changed)["role"] == "worker"
    north_id = team_id(server, first_admin, north)
    assert second.user_id not in assert_json(
        server.api("DELETE", f"/admin/teams/{north_id}/members/{second.user_id}", token=token)
    )["members"]


# --------------------------------------------------------------------------- what the IdP manages


def test_the_admin_api_and_cli_refuse_what_the_idp_manages(claims_server: FieldpassServer, every_admin: SignedIn) -> None:
    server = claims_server
    email, north = person("every.test"), crew("North")
    worker = signed_in(server, email, {"groups": [f"crew-{north}"]})
    office = assert_json(server.api("POST", "/admin/teams", token=every_admin.access_token, json_body={"name": crew("Office")}), 201)
    token, user = every_admin.access_token, worker.user_id
    north_id = team_id(server, every_admin, north)
    seen = {entry["id"] for entry in audit_entries(server, every_admin)}

    refusals = [
        server.api("PUT", f"/admin/users/{user}/role", token=token, json_body={"role": "manager"}),
        server.api("DELETE", f"/admin/teams/{north_id}/members/{user}", token=token),
        server.api("PUT", f"/admin/teams/{office['id']}/members/{user}", token=token),
    ]
    cli = server.cli("admin", "grant-role", email, "manager", "--env", "every", "--config", str(server.config_path))
    granted = server.api("PUT", f"/admin/users/{user}/grants", token=token, json_body={"realm_path": "/tasks", "access": "read"})

    for response in refusals:
        assert_api_error(response, 409, "managed_by_idp")
    assert cli.returncode == 1 and "identity provider" in cli.stderr, cli_output(cli)
    assert assert_json(granted)["grants"] == {"/tasks": "read"}, "explicit grants stay the admin's"
    me = assert_json(server.api("GET", "/me", token=worker.access_token))
    assert me["role"] == "worker" and {team["name"] for team in me["teams"]} == {north}, me
    added = [entry["action"] for entry in audit_entries(server, every_admin) if entry["id"] not in seen]
    assert added == ["grant.set"], added
    assert_api_error(server.api("PUT", f"/admin/users/{uuid.uuid4()}/role", token=token, json_body={"role": "manager"}), 404, "unknown_user")


def test_with_a_map_only_the_mapped_teams_are_the_idps(claims_server: FieldpassServer, mapped_admin: SignedIn) -> None:
    server = claims_server
    email = person("mapped.test")
    worker = signed_in(server, email, {"groups": ["g-north"]})
    token, user = mapped_admin.access_token, worker.user_id
    north_id = team_id(server, mapped_admin, "North")
    office = assert_json(server.api("POST", "/admin/teams", token=token, json_body={"name": crew("Office")}), 201)

    assert_api_error(server.api("DELETE", f"/admin/teams/{north_id}/members/{user}", token=token), 409, "managed_by_idp")
    assert user in assert_json(server.api("PUT", f"/admin/teams/{office['id']}/members/{user}", token=token))["members"]
    manager = assert_json(server.api("PUT", f"/admin/users/{user}/role", token=token, json_body={"role": "manager"}))
    again = signed_in(server, email, {"groups": []})

    assert manager["role"] == "manager" and again.claims["role"] == "manager", "roles stay the admins' here"
    assert my_teams(server, again) == {office["name"]}, "the sign-in left North, not the admin's team"


# --------------------------------------------------------------------------- claims that change nothing


UNUSABLE_CLAIMS = {
    # id: (the claims besides the email, the role they give or None, what the log says of each mapping)
    "missing": ({}, None, {"roles_from_idp": "missing", "teams_from_idp": "missing"}),
    "hasgroups": ({"hasgroups": True}, None, {"roles_from_idp": "missing", "teams_from_idp": "overage"}),
    "claim-names": (
        {"roles": ["Fieldpass.Admin"], "_claim_names": {"groups": "src1"}, "_claim_sources": {"src1": {"endpoint": "https://graph.example/x"}}},
        "admin", {"teams_from_idp": "overage"},
    ),
    "wrong-types": ({"roles": 7, "groups": {"crew-East": True}}, None, {"roles_from_idp": "unusable", "teams_from_idp": "unusable"}),
}


@pytest.mark.parametrize(("unusable", "role", "reasons"), UNUSABLE_CLAIMS.values(), ids=UNUSABLE_CLAIMS.keys())
def test_a_missing_claim_or_an_overage_marker_changes_nothing(
    claims_server: FieldpassServer, every_admin: SignedIn, unusable: dict[str, Any], role: str | None, reasons: dict[str, str],
) -> None:
    server = claims_server
    email, north, first = manager_of_a_new_crew(server, "every.test")
    before = idp_entries(server, every_admin, first.user_id)
    logged = len(skipped_lines(server))

    again = signed_in(server, email, unusable)

    assert again.claims["role"] == (role or "manager"), "only a usable roles claim counts; the default does not apply"
    assert my_teams(server, again) == {north}
    role_entries = [("user.role", {"role": "manager"}, {"role": role})] if role else []
    assert idp_entries(server, every_admin, again.user_id) == before + role_entries
    lines = skipped_lines(server)[logged:]
    assert len(lines) == 1 and lines[0]["level"] == "info" and lines[0]["environment"] == "every", lines
    assert {key: lines[0].get(key) for key in ("roles_from_idp", "teams_from_idp") if key in lines[0]} == reasons, lines
    assert "crew-" not in json.dumps(lines) and "graph.example" not in json.dumps(lines), "no claim value is logged"
