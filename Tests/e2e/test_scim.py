"""SCIM 2.0 provisioning (RFC 7643, 7644) at /scim/v2, seen through its API, the admin API,
the token endpoints and the audit log.

A recorded Entra ID-style provisioning sequence replays as Entra sends it (`Replace` in any
case, booleans as strings, `members[value eq "…"]` paths, PATCH of `active` alone); a
deactivation stops the person's tokens at once; role groups set roles; what SCIM provisions
the admin API refuses (409 `managed_by_idp`); bad input on every route is a SCIM error and
changes nothing. Every change is audited with the actor `scim`.
"""

from __future__ import annotations

import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from helpers import (
    ADMIN_EMAIL,
    EventsReader,
    OTHER_DOMAIN,
    FieldpassServer,
    SignedIn,
    assert_api_error,
    assert_json,
    audit_entries,
    cli_output,
    sign_in,
    unique_email,
)
from oauth_flows import assert_refresh_refused, introspection
from scim_flows import (
    DEV_TOKEN,
    GROUP_SCHEMA,
    OTHER_TOKEN,
    assert_scim_error,
    new_user,
    patch,
    scim,
    scim_json,
    scim_server,  # noqa: F401  (the module's server)
)


@pytest.fixture(scope="module")
def admin(scim_server: FieldpassServer) -> SignedIn:
    return sign_in(scim_server, ADMIN_EMAIL)


def provisioned(server: FieldpassServer, email: str | None = None, **attributes: Any) -> dict[str, Any]:
    return scim_json(scim(server, "POST", "/Users", new_user(email or unique_email("scim"), **attributes)), 201)


def lifecycle_events(server: FieldpassServer) -> list[dict[str, Any]]:
    """Every event of the backend's lifecycle feed, read as the backend reads it."""
    reader = EventsReader(server.public_url)
    try:
        return reader.drain()[0]
    finally:
        reader.close()


def scim_entries(server: FieldpassServer, admin: SignedIn, target: str) -> list[tuple[str, str]]:
    """(actor, action) of the audit entries about `target`, oldest first."""
    return [(e["actor"], e["action"]) for e in reversed(audit_entries(server, admin)) if e["target"] == target]


# --------------------------------------------------------------------------- Entra ID's sequence


def test_an_entra_provisioning_sequence_replays(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    email = unique_email("entra")
    object_id = str(uuid.uuid4())
    # Entra first looks the person up, finds nobody, and creates them.
    lookup = scim_json(scim(server, "GET", "/Users", params={"filter": f'userName eq "{email}"'}))
    created = scim_json(scim(server, "POST", "/Users", {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "externalId": object_id, "userName": email,
        "active": True, "displayName": "Ada Field", "emails": [{"primary": True, "type": "work", "value": email}],
        "name": {"formatted": "Ada Field", "familyName": "Field", "givenName": "Ada"},
    }), 201)
    user_id = created["id"]
    # A later cycle: attributes changed in Entra, booleans as strings, `Replace` capitalised.
    replaced = scim_json(scim(server, "PATCH", f"/Users/{user_id}", patch(
        {"op": "Replace", "path": "displayName", "value": "Ada Fielding"},
        {"op": "Replace", "path": "name.familyName", "value": "Fielding"},
        {"op": "Replace", "path": 'emails[type eq "work"].value', "value": email},
        {"op": "Replace", "path": "active", "value": "True"},
    )))
    group = scim_json(scim(server, "POST", "/Groups", {
        "schemas": [GROUP_SCHEMA], "displayName": f"North {uuid.uuid4().hex[:6]}", "externalId": str(uuid.uuid4()), "members": [],
    }), 201)
    scim_json(scim(server, "PATCH", f"/Groups/{group['id']}", patch(
        {"op": "Add", "path": "members", "value": [{"value": user_id}]},
    )))
    in_group = scim_json(scim(server, "GET", f"/Groups/{group['id']}"))
    found = scim_json(scim(server, "GET", "/Users", params={"filter": f'externalId eq "{object_id}"'}))
    deactivated = scim_json(scim(server, "PATCH", f"/Users/{user_id}", patch({"op": "Replace", "path": "active", "value": "False"})))
    deleted = scim(server, "DELETE", f"/Users/{user_id}")
    gone = scim(server, "GET", f"/Users/{user_id}")

    assert lookup["totalResults"] == 0 and lookup["Resources"] == [], lookup
    assert created["userName"] == email and created["externalId"] == object_id and created["active"] is True, created
    assert replaced["displayName"] == "Ada Fielding" and replaced["name"]["familyName"] == "Fielding", replaced
    assert replaced["emails"] == [{"primary": True, "type": "work", "value": email}], replaced
    assert [m["value"] for m in in_group["members"]] == [user_id], in_group
    assert [r["id"] for r in found["Resources"]] == [user_id], found
    assert deactivated["active"] is False, deactivated
    assert deleted.status_code == 204, deleted.text
    assert_scim_error(gone, 404)
    person = assert_json(server.api("GET", f"/admin/users/{user_id}", token=admin.access_token))
    assert person["disabled"] is True and person["email"] == email, person
    team = assert_json(server.api("GET", f"/admin/teams/{group['id']}", token=admin.access_token))
    assert team["name"] == group["displayName"], team
    assert scim_entries(server, admin, f"user:{user_id}") == [
        # Created, given the attributes it was created with, then Entra's PATCH.
        ("scim", "user.create"), ("scim", "user.update"), ("scim", "user.update"), ("scim", "user.disable"), ("scim", "user.delete"),
    ]
    assert scim_entries(server, admin, f"team:{group['id']}") == [("scim", "team.create"), ("scim", "team.add_member")]


def test_a_person_deleted_from_scim_can_be_provisioned_again(scim_server: FieldpassServer) -> None:
    server = scim_server
    first = provisioned(server)
    assert scim(server, "DELETE", f"/Users/{first['id']}").status_code == 204

    again = provisioned(server, first["userName"])

    assert again["id"] == first["id"] and again["active"] is True, again
    assert scim_json(scim(server, "GET", f"/Users/{first['id']}"))["userName"] == first["userName"]


def test_a_userName_scim_lists_already_is_a_conflict(scim_server: FieldpassServer) -> None:
    server = scim_server
    first = provisioned(server)
    signed_up = sign_in(server, unique_email("app"))

    assert_scim_error(scim(server, "POST", "/Users", new_user(first["userName"])), 409, "uniqueness")
    # Someone who signed up through the app is found by the IdP's lookup, and not created twice.
    lookup = scim_json(scim(server, "GET", "/Users", params={"filter": f'userName eq "{signed_up.email}"'}))
    assert [r["id"] for r in lookup["Resources"]] == [signed_up.user_id], lookup
    assert_scim_error(scim(server, "POST", "/Users", new_user(signed_up.email)), 409, "uniqueness")


def test_lists_page_with_startIndex_and_count(scim_server: FieldpassServer) -> None:
    server = scim_server
    for _ in range(3):
        provisioned(server)
    everyone = scim_json(scim(server, "GET", "/Users", params={"count": "200"}))

    page = scim_json(scim(server, "GET", "/Users", params={"startIndex": "2", "count": "2"}))

    assert page["totalResults"] == everyone["totalResults"] >= 3, page
    assert page["startIndex"] == 2 and page["itemsPerPage"] == 2, page
    assert [r["id"] for r in page["Resources"]] == [r["id"] for r in everyone["Resources"][1:3]]


# --------------------------------------------------------------------------- leavers


def test_deactivation_stops_the_persons_tokens_at_once(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    user = provisioned(server)
    device = sign_in(server, user["userName"])
    assert device.user_id == user["id"]
    assert_json(server.api("GET", "/me", token=device.access_token))

    scim_json(scim(server, "PATCH", f"/Users/{user['id']}", patch({"op": "replace", "value": {"active": "False"}})))

    assert_api_error(server.api("GET", "/me", token=device.access_token), 401)
    assert_refresh_refused(server, device.refresh_token)
    assert introspection(server, device.access_token)["active"] is False
    assert ("scim", "user.disable") in scim_entries(server, admin, f"user:{user['id']}")
    # The backend hears of it in the lifecycle events feed, with SCIM as the actor.
    told = [(e["type"], e["actor"]) for e in lifecycle_events(server) if (e.get("user") or {}).get("id") == user["id"]]
    assert ("user.disabled", "scim") in told and ("device.revoked", "scim") in told, told
    devices = assert_json(server.api("GET", f"/admin/users/{user['id']}/devices", token=admin.access_token))
    assert all(d.get("revoked_at") for d in devices["devices"]), devices


def test_reactivation_lets_the_person_sign_in_again(scim_server: FieldpassServer) -> None:
    server = scim_server
    user = provisioned(server, active=False)
    assert user["active"] is False

    scim_json(scim(server, "PATCH", f"/Users/{user['id']}", patch({"op": "Replace", "path": "active", "value": True})))

    assert sign_in(server, user["userName"]).user_id == user["id"]


def test_two_creations_of_one_new_person_at_once_give_one_201_and_one_409(scim_server: FieldpassServer) -> None:
    server = scim_server
    for _ in range(5):
        body = new_user(unique_email("twin"))
        with ThreadPoolExecutor(max_workers=2) as pool:
            answers = list(pool.map(lambda _: scim(server, "POST", "/Users", body), range(2)))
        assert sorted(a.status_code for a in answers) == [201, 409], [a.text for a in answers]
        listed = scim_json(scim(server, "GET", "/Users", params={"filter": f'userName eq "{body["userName"]}"'}))
        assert listed["totalResults"] == 1, listed


# --------------------------------------------------------------------------- groups, roles, and what admins may not change


def test_a_role_group_sets_its_members_role(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    user = provisioned(server)
    leads = scim(server, "GET", "/Groups", params={"filter": 'displayName eq "Crew Leads"'})
    existing = scim_json(leads)["Resources"]
    group = existing[0] if existing else scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Crew Leads"}), 201)

    scim_json(scim(server, "PATCH", f"/Groups/{group['id']}", patch({"op": "add", "path": "members", "value": [{"value": user["id"]}]})))
    promoted = assert_json(server.api("GET", f"/admin/users/{user['id']}", token=admin.access_token))
    refused = server.api("PUT", f"/admin/users/{user['id']}/role", token=admin.access_token, json_body={"role": "worker"})
    scim_json(scim(server, "PATCH", f"/Groups/{group['id']}", patch({"op": "remove", "path": f'members[value eq "{user["id"]}"]'})))

    assert promoted["role"] == "manager", promoted
    assert_api_error(refused, 409, "managed_by_idp")
    assert assert_json(server.api("GET", f"/admin/teams", token=admin.access_token))["teams"] is not None
    assert ("scim", "user.role") in scim_entries(server, admin, f"user:{user['id']}")
    assert "Crew Leads" not in [t["name"] for t in assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"]]


def test_a_role_group_means_its_current_name(scim_server: FieldpassServer, admin: SignedIn) -> None:
    """Renaming a role group moves the members it has, not only those who join later."""
    server = scim_server
    user = provisioned(server)
    group = scim_json(scim(server, "POST", "/Groups", {
        "schemas": [GROUP_SCHEMA], "displayName": f"Admins {uuid.uuid4().hex[:6]}", "externalId": "Fieldpass Admins",
        "members": [{"value": user["id"]}],
    }), 201)
    person = f"/admin/users/{user['id']}"
    assert assert_json(server.api("GET", person, token=admin.access_token))["role"] == "admin"

    scim_json(scim(server, "PATCH", f"/Groups/{group['id']}", patch({"op": "replace", "path": "externalId", "value": "Fieldpass.Manager"})))

    assert assert_json(server.api("GET", person, token=admin.access_token))["role"] == "manager"
    assert scim_entries(server, admin, f"user:{user['id']}").count(("scim", "user.role")) == 2


def test_a_group_name_scim_has_in_any_case_is_a_conflict_and_leaves_no_team(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    name = f"West {uuid.uuid4().hex[:6]}"
    first = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": name}), 201)
    leads = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"Leads {name}", "externalId": "Fieldpass Admins"}), 201)
    teams_before = assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"]

    again = scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": name.upper()})
    like_the_role_group = scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"LEADS {name}"})

    assert_scim_error(again, 409, "uniqueness")
    assert_scim_error(like_the_role_group, 409, "uniqueness")
    assert assert_json(server.api("GET", "/admin/teams", token=admin.access_token))["teams"] == teams_before
    named = scim_json(scim(server, "GET", "/Groups", params={"filter": f'displayName eq "{name}"'}))["Resources"]
    assert [group["id"] for group in named] == [first["id"]]
    assert leads["id"] not in [team["id"] for team in teams_before]


def test_admins_cannot_change_a_scim_team(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    user = provisioned(server)
    team = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"South {uuid.uuid4().hex[:6]}"}), 201)

    calls = [
        server.api("PUT", f"/admin/teams/{team['id']}/members/{user['id']}", token=admin.access_token),
        server.api("PATCH", f"/admin/teams/{team['id']}", token=admin.access_token, json_body={"name": "Renamed"}),
        server.api("DELETE", f"/admin/teams/{team['id']}", token=admin.access_token),
    ]
    disabled = assert_json(server.api("POST", f"/admin/users/{user['id']}/disable", token=admin.access_token))
    enable = server.api("POST", f"/admin/users/{user['id']}/enable", token=admin.access_token)

    for response in calls:
        assert_api_error(response, 409, "managed_by_idp")
    assert disabled["disabled"] is True
    assert_api_error(enable, 409, "managed_by_idp")
    assert scim_json(scim(server, "GET", f"/Groups/{team['id']}"))["displayName"] == team["displayName"]


def test_a_person_scim_deleted_is_enabled_only_by_the_idp(scim_server: FieldpassServer, admin: SignedIn) -> None:
    """SCIM answers 404 for a person it deleted, so an admin who enabled them would leave a
    person active whom the IdP can never disable again."""
    server = scim_server
    user = provisioned(server)
    assert scim(server, "DELETE", f"/Users/{user['id']}").status_code == 204

    assert_api_error(server.api("POST", f"/admin/users/{user['id']}/enable", token=admin.access_token), 409, "managed_by_idp")
    cli = server.cli("admin", "enable", user["userName"], "--env", "dev", "--config", str(server.config_path))
    assert cli.returncode != 0 and "SCIM" in cli_output(cli), cli_output(cli)
    person = assert_json(server.api("GET", f"/admin/users/{user['id']}", token=admin.access_token))
    assert person["disabled"] is True, person
    # The IdP brings them back by creating them again.
    again = scim_json(scim(server, "POST", "/Users", new_user(user["userName"])), 201)
    assert again["id"] == user["id"] and again["active"] is True, again


def test_deleting_a_group_deletes_its_team(scim_server: FieldpassServer, admin: SignedIn) -> None:
    server = scim_server
    team = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"East {uuid.uuid4().hex[:6]}"}), 201)

    assert scim(server, "DELETE", f"/Groups/{team['id']}").status_code == 204

    assert_scim_error(scim(server, "GET", f"/Groups/{team['id']}"), 404)
    assert_api_error(server.api("GET", f"/admin/teams/{team['id']}", token=admin.access_token), 404)


def test_the_answer_to_a_patch_is_projected_as_its_query_asks(scim_server: FieldpassServer) -> None:
    server = scim_server
    user = provisioned(server)
    group = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"North {uuid.uuid4().hex[:6]}"}), 201)
    join = patch({"op": "add", "path": "members", "value": [{"value": user["id"]}]})

    without_members = scim_json(scim(server, "PATCH", f"/Groups/{group['id']}", join, params={"excludedAttributes": "members"}))
    name_only = scim_json(scim(server, "PUT", f"/Groups/{group['id']}", {**group, "members": [{"value": user["id"]}]}, params={"attributes": "displayName"}))

    assert "members" not in without_members and without_members["displayName"] == group["displayName"], without_members
    assert sorted(name_only) == ["displayName", "id", "schemas"], name_only
    assert [m["value"] for m in scim_json(scim(server, "GET", f"/Groups/{group['id']}"))["members"]] == [user["id"]]


# --------------------------------------------------------------------------- bad input


def state(server: FieldpassServer, admin: SignedIn) -> tuple[Any, ...]:
    """What SCIM and the audit log show, to compare before and after a refused request."""
    users = scim_json(scim(server, "GET", "/Users", params={"count": "200"}))
    groups = scim_json(scim(server, "GET", "/Groups", params={"count": "200"}))
    return users, groups, len(audit_entries(server, admin))


@pytest.fixture(scope="module")
def targets(scim_server: FieldpassServer) -> dict[str, str]:
    server = scim_server
    user = provisioned(server)
    group = scim_json(scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": f"West {uuid.uuid4().hex[:6]}"}), 201)
    other_user = scim_json(scim(server, "POST", "/Users", new_user(unique_email("o", OTHER_DOMAIN)), token=OTHER_TOKEN), 201)
    other_group = scim_json(
        scim(server, "POST", "/Groups", {"schemas": [GROUP_SCHEMA], "displayName": "Theirs"}, token=OTHER_TOKEN), 201
    )
    return {"user": user["id"], "group": group["id"], "other_user": other_user["id"], "other_group": other_group["id"]}


WRITES = [("POST", "/Users"), ("PUT", "/Users/{user}"), ("PATCH", "/Users/{user}"), ("POST", "/Groups"), ("PUT", "/Groups/{group}"), ("PATCH", "/Groups/{group}")]
ALL_ROUTES = WRITES + [("GET", "/Users"), ("GET", "/Users/{user}"), ("DELETE", "/Users/{user}"), ("GET", "/Groups"),
                       ("GET", "/Groups/{group}"), ("DELETE", "/Groups/{group}"), ("GET", "/ServiceProviderConfig"),
                       ("GET", "/ResourceTypes"), ("GET", "/Schemas")]


def bodies(path: str, kind: str) -> Any:
    user = "/Users" in path
    if kind == "unknown_attribute":
        return (new_user(unique_email("u"), favouriteColour="green") if user
                else {"schemas": [GROUP_SCHEMA], "displayName": "Unknown", "colour": "green"})
    if kind == "wrong_domain":
        return new_user(unique_email("u", "elsewhere.test")) if user else {"schemas": [GROUP_SCHEMA], "displayName": "X", "members": [{"value": "nobody"}]}
    raise AssertionError(kind)


def as_patch(method: str, body: Any) -> Any:
    if method != "PATCH":
        return body
    return patch({"op": "replace", "value": {k: v for k, v in body.items() if k != "schemas"}})


@pytest.mark.parametrize(("method", "path"), WRITES, ids=[f"{m} {p}" for m, p in WRITES])
@pytest.mark.parametrize("kind", ["malformed_json", "unknown_attribute", "wrong_domain", "oversized"])
def test_bad_bodies_are_scim_errors_and_change_nothing(
    scim_server: FieldpassServer, admin: SignedIn, targets: dict[str, str], method: str, path: str, kind: str,
) -> None:
    server = scim_server
    url = path.format(**targets)
    before = state(server, admin)

    if kind == "malformed_json":
        response = scim(server, method, url, content=b'{"schemas": [')
        expected = (400, "invalidSyntax")
    elif kind == "oversized":
        response = scim(server, method, url, content=b'{"displayName": "' + b"x" * (300 * 1024) + b'"}')
        expected = (413, None)
    else:
        response = scim(server, method, url, as_patch(method, bodies(path, kind)))
        expected = (400, "invalidSyntax" if kind == "unknown_attribute" else "invalidValue")

    assert_scim_error(response, *expected)
    assert state(server, admin) == before


@pytest.mark.parametrize(("method", "path"), ALL_ROUTES, ids=[f"{m} {p}" for m, p in ALL_ROUTES])
@pytest.mark.parametrize("token", [None, "wrong-token-of-sufficient-length-0123456789", "Basic-instead"])
def test_no_or_a_wrong_token_is_refused(
    scim_server: FieldpassServer, admin: SignedIn, targets: dict[str, str], method: str, path: str, token: str | None,
) -> None:
    server = scim_server
    before = state(server, admin)
    body = {"schemas": [GROUP_SCHEMA], "displayName": "Nope"} if method in ("POST", "PUT") else None
    if method == "PATCH":
        body = patch({"op": "replace", "path": "displayName", "value": "Nope"})

    response = scim(server, method, path.format(**targets), body, token=token)

    assert_scim_error(response, 401)
    assert state(server, admin) == before


ITEM_ROUTES = [("GET", "/Users/{other_user}"), ("PUT", "/Users/{other_user}"), ("PATCH", "/Users/{other_user}"),
               ("DELETE", "/Users/{other_user}"), ("GET", "/Groups/{other_group}"), ("PUT", "/Groups/{other_group}"),
               ("PATCH", "/Groups/{other_group}"), ("DELETE", "/Groups/{other_group}")]


@pytest.mark.parametrize(("method", "path"), ITEM_ROUTES, ids=[f"{m} {p}" for m, p in ITEM_ROUTES])
def test_another_environments_ids_are_unknown(
    scim_server: FieldpassServer, admin: SignedIn, targets: dict[str, str], method: str, path: str,
) -> None:
    server = scim_server
    before = state(server, admin)
    body = None
    if method == "PUT":
        body = new_user(unique_email("x")) if "Users" in path else {"schemas": [GROUP_SCHEMA], "displayName": "Mine"}
    if method == "PATCH":
        body = patch({"op": "replace", "path": "displayName", "value": "Mine"})

    response = scim(server, method, path.format(**targets), body, token=DEV_TOKEN)

    assert_scim_error(response, 404)
    assert state(server, admin) == before
    assert scim_json(scim(server, "GET", path.format(**targets).split("?")[0], token=OTHER_TOKEN))["id"]


def test_members_must_be_people_of_the_environment(scim_server: FieldpassServer, admin: SignedIn, targets: dict[str, str]) -> None:
    server = scim_server
    before = state(server, admin)

    response = scim(server, "PATCH", f"/Groups/{targets['group']}", patch(
        {"op": "add", "path": "members", "value": [{"value": targets["other_user"]}]},
    ))

    assert_scim_error(response, 400, "invalidValue")
    assert state(server, admin) == before


@pytest.mark.parametrize("params", [{"filter": 'userName co "a"'}, {"filter": 'title eq "x"'}, {"filter": "userName eq"}, {"count": "many"}])
def test_unsupported_filters_are_scim_errors(scim_server: FieldpassServer, params: dict[str, str]) -> None:
    response = scim(scim_server, "GET", "/Users", params=params)

    assert_scim_error(response, 400, "invalidFilter" if "filter" in params else "invalidValue")


def test_unknown_endpoints_and_methods_are_scim_errors(scim_server: FieldpassServer) -> None:
    assert_scim_error(scim(scim_server, "GET", f"/{uuid.uuid4()}"), 404)
    assert_scim_error(scim(scim_server, "POST", "/ServiceProviderConfig", {}), 405)
    assert_scim_error(scim(scim_server, "DELETE", "/Users"), 405)


# --------------------------------------------------------------------------- the token


def test_scim_token_prints_a_fresh_token(scim_server: FieldpassServer) -> None:
    first, second = scim_server.cli("scim", "token"), scim_server.cli("scim", "token")

    assert first.returncode == 0 and second.returncode == 0, cli_output(first)
    tokens = first.stdout.strip(), second.stdout.strip()
    assert len(tokens[0]) == 43 and tokens[0] != tokens[1], tokens


def test_a_short_token_stops_start_up_naming_the_key(scim_server: FieldpassServer) -> None:
    server = scim_server
    env = {**server.env, "DEV_SCIM_TOKEN": "too-short"}
    run = subprocess.run(
        [str(server.binary), "serve", "--config", str(server.config_path)], env=env, capture_output=True, text=True, timeout=30,
    )

    assert run.returncode != 0, run
    assert "environments.dev.scim.token_env" in run.stderr + run.stdout, (run.stdout, run.stderr)
    assert "too-short" not in run.stderr + run.stdout
