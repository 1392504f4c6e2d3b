"""The lifecycle events feed of the integration API (`GET /integration/events`): every change
of a person, a device or a team, once each and in order, with who made it.

Seen only through the API, the CLI and the audit log. The admin's, the CLI's and the IdP's
changes each show their actor; a long-poll wakes at a change; another environment's events
never show; and on PostgreSQL, 200 changes made at once by admins, SCIM and sign-ins through
two instances reach a reader once each, in order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from helpers import (
    ADMIN_EMAIL,
    OTHER_BACKEND,
    OTHER_DOMAIN,
    EnvironmentSpec,
    EventsReader,
    FieldpassServer,
    MockIdP,
    ServiceAccountSpec,
    SignedIn,
    admin_cli,
    assert_json,
    server_env,
    server_in,
    sign_in,
    start_cluster,
    unique_email,
)
from scim_flows import SCIM_ENVIRONMENTS, USER_SCHEMA, scim, scim_json

DEVICE = {"name": "Pixel 8", "platform": "android"}


@pytest.fixture
def reader(directory_server: FieldpassServer) -> Iterator[EventsReader]:
    events = EventsReader(directory_server.public_url)
    yield events
    events.close()


def call(server: FieldpassServer, admin: SignedIn, method: str, path: str, body: Any = None) -> Any:
    response = server.api(method, path, token=admin.access_token, json_body=body)
    assert response.status_code in (200, 201, 204), f"{method} {path}: {response.status_code} {response.text}"
    return response.json() if response.content else None


def about(events: list[dict[str, Any]], user_id: str) -> list[tuple[str, str]]:
    """(type, actor) of the events concerning `user_id`."""
    return [(e["type"], e["actor"]) for e in events if (e.get("user") or {}).get("id") == user_id]


def test_admin_changes_appear_once_each_with_the_admin_as_actor(
    directory_server: FieldpassServer, admin: SignedIn, reader: EventsReader
) -> None:
    server = directory_server
    _, start = reader.drain()
    worker = sign_in(server, unique_email())
    call(server, admin, "PUT", f"/admin/users/{worker.user_id}/role", {"role": "manager"})
    team = call(server, admin, "POST", "/admin/teams", {"name": f"North-{worker.user_id[:8]}"})
    call(server, admin, "PUT", f"/admin/teams/{team['id']}/members/{worker.user_id}")
    call(server, admin, "DELETE", f"/admin/teams/{team['id']}/members/{worker.user_id}")
    call(server, admin, "PATCH", f"/admin/teams/{team['id']}", {"name": f"South-{worker.user_id[:8]}"})
    call(server, admin, "DELETE", f"/admin/users/{worker.user_id}/devices/{worker.claims['device_id']}")
    call(server, admin, "POST", f"/admin/users/{worker.user_id}/disable")
    call(server, admin, "POST", f"/admin/users/{worker.user_id}/enable")
    call(server, admin, "DELETE", f"/admin/teams/{team['id']}")

    events, _ = reader.drain(start)
    assert about(events, worker.user_id) == [
        ("user.created", "device"), ("user.updated", "admin"), ("user.updated", "admin"), ("user.updated", "admin"),
        ("device.revoked", "admin"), ("user.disabled", "admin"), ("user.enabled", "admin"),
    ], events
    mine = [e for e in events if (e.get("user") or {}).get("id") == worker.user_id]
    assert mine[0]["user"]["email"] == worker.email and mine[0]["environment"] == "dev", mine[0]
    assert mine[1]["before"] == {"role": "worker"} and mine[1]["after"] == {"role": "manager"}, mine[1]
    assert mine[1]["actor_id"] == admin.user_id, mine[1]
    assert [m["after"] for m in mine[2:4]] == [{"team_member": "true"}, {"team_member": "false"}], mine[2:4]
    assert mine[4]["device"]["id"] == worker.claims["device_id"] and mine[4]["reason"] == "revoked", mine[4]
    teams = [(e["type"], e.get("before"), e.get("after")) for e in events if (e.get("team") or {}).get("id") == team["id"] and "user" not in e]
    assert [t[0] for t in teams] == ["team.created", "team.renamed", "team.deleted"], teams
    assert teams[1][1]["name"].startswith("North-") and teams[1][2]["name"].startswith("South-"), teams
    cursors = [e["cursor"] for e in events]
    assert len(set(cursors)) == len(cursors), "an event repeated"
    # Every event matches an audit entry of the same change.
    audit = assert_json(server.api("GET", "/admin/audit", token=admin.access_token))
    actions = {entry["action"] for entry in audit["entries"] if entry["target"] == f"user:{worker.user_id}"}
    assert {"user.role", "user.disable", "user.enable", "device.revoke"} <= actions, actions


def test_a_cli_change_names_the_cli_and_a_self_service_revocation_the_user(
    directory_server: FieldpassServer, reader: EventsReader
) -> None:
    server = directory_server
    _, start = reader.drain()
    worker = sign_in(server, unique_email(), DEVICE)
    admin_cli(server, "grant-role", worker.email, "manager")
    revoked = server.api("DELETE", f"/me/devices/{worker.claims['device_id']}", token=worker.access_token)
    assert revoked.status_code in (200, 204), revoked.text
    events, _ = reader.drain(start)
    assert about(events, worker.user_id) == [
        ("user.created", "device"), ("user.updated", "cli"), ("device.revoked", "user"),
    ], events


def test_a_long_poll_wakes_within_a_second_of_a_change(
    directory_server: FieldpassServer, admin: SignedIn, reader: EventsReader
) -> None:
    _, start = reader.drain()
    answer: dict[str, Any] = {}

    def poll() -> None:
        answer["page"] = reader.page(start, wait=20)
        answer["at"] = time.monotonic()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    time.sleep(1.0)
    assert thread.is_alive(), "the long-poll answered before any change"
    changed_at = time.monotonic()
    call(directory_server, admin, "POST", "/admin/teams", {"name": f"Poll-{int(changed_at * 1000)}"})
    thread.join(timeout=10)
    assert not thread.is_alive(), "the long-poll did not answer"
    assert [e["type"] for e in answer["page"]["events"]] == ["team.created"], answer
    assert answer["at"] - changed_at < 1.0, f"woke {answer['at'] - changed_at:.2f}s after the change"


def test_another_environments_events_are_never_visible(
    directory_server: FieldpassServer, reader: EventsReader
) -> None:
    other = EventsReader(directory_server.public_url, OTHER_BACKEND)
    try:
        _, dev_start = reader.drain()
        _, other_start = other.drain()
        stranger = sign_in(directory_server, unique_email("stranger", OTHER_DOMAIN))
        worker = sign_in(directory_server, unique_email())
        dev_events, dev_cursor = reader.drain(dev_start)
        other_events, other_cursor = other.drain(other_start)
        assert about(other_events, stranger.user_id) == [("user.created", "device")], other_events
        assert all(e["environment"] == "other" for e in other_events), other_events
        assert all(e["environment"] == "dev" for e in dev_events), dev_events
        assert about(dev_events, stranger.user_id) == [] and about(other_events, worker.user_id) == []
        # One environment's cursor is no key to the other's events (it is refused), and no
        # feed takes the realm feed's cursor.
        _, realm_cursor = reader.client.drain()
        for foreign in (other_cursor, realm_cursor):
            refused = reader.response(foreign)
            assert refused.status_code == 400 and refused.json()["error"] == "invalid_cursor", refused.text
    finally:
        other.close()


# --------------------------------------------------------------------------- the IdP's claims

CLAIMS_ENVIRONMENTS = (
    EnvironmentSpec(
        "claims", ("claims.test",), service_accounts=(ServiceAccountSpec("claims-backend", "CLAIMS_BACKEND_SECRET",
                                                                        "claims-backend-e2e-secret-long-enough-to-count"),),
        roles_from_idp={"claim": "roles", "map": {"Fieldpass.Manager": "manager"}, "default": "worker", "sync": "every_sign_in"},
    ),
)


@pytest.fixture(scope="module")
def claims_server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    server = server_in(tmp_path_factory.mktemp("server-lifecycle-claims"), fieldpass_bin, idp,
                       server_env(None, CLAIMS_ENVIRONMENTS), environments=CLAIMS_ENVIRONMENTS)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_sign_in_whose_claims_change_the_role_names_the_idp(claims_server: FieldpassServer) -> None:
    reader = EventsReader(claims_server.public_url, CLAIMS_ENVIRONMENTS[0].service_accounts[0])
    try:
        _, start = reader.drain()
        email = unique_email("crew", "claims.test")
        claims_server.idp.set_user(email, {"email": email, "roles": []})
        first = sign_in(claims_server, email)
        claims_server.idp.set_user(email, {"email": email, "roles": ["Fieldpass.Manager"]})
        sign_in(claims_server, email)
        events, _ = reader.drain(start)
    finally:
        reader.close()
    assert about(events, first.user_id) == [("user.created", "device"), ("user.updated", "idp")], events
    assert events[-1]["before"] == {"role": "worker"} and events[-1]["after"] == {"role": "manager"}, events[-1]


# --------------------------------------------------------------------------- two instances

CHANGES = 200


@pytest.mark.postgres_only
def test_200_changes_from_admins_scim_and_sign_ins_on_two_instances_arrive_once_each_in_order(
    fieldpass_bin: Path, idp: MockIdP, tmp_path: Path
) -> None:
    cluster = start_cluster(fieldpass_bin, idp, tmp_path, 2, environments=SCIM_ENVIRONMENTS)
    try:
        a, b = cluster.instances
        admin = sign_in(a, ADMIN_EMAIL)
        reader = EventsReader(a.url)
        try:
            _, start = reader.drain()
            seen: list[dict[str, Any]] = []
            done = threading.Event()

            def follow() -> None:
                cursor, turn = start, 0
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline and not (done.is_set() and len(seen) >= CHANGES):
                    page = reader.page(cursor, wait=2, base_url=(a.url, b.url)[turn % 2])
                    seen.extend(page["events"])
                    cursor, turn = page["cursor"], turn + 1

            follower = threading.Thread(target=follow, daemon=True)
            follower.start()
            teams = CHANGES // 5
            provisioned = (CHANGES - 2 * teams) // 2
            names = [f"Crew-{index}-{unique_email('t')[:10]}" for index in range(teams)]

            def admin_changes(index: int) -> None:
                """Two changes in a row through alternating instances: a team created, then renamed."""
                first, second = (a, b) if index % 2 else (b, a)
                created = first.api("POST", "/admin/teams", token=admin.access_token, json_body={"name": names[index]})
                assert created.status_code == 201, created.text
                renamed = second.api("PATCH", f"/admin/teams/{created.json()['id']}", token=admin.access_token,
                                     json_body={"name": names[index] + "-renamed"})
                assert renamed.status_code == 200, renamed.text

            def sign_in_change(index: int) -> None:
                sign_in((a, b)[index % 2], unique_email(f"crowd{index}"))

            def scim_change(index: int) -> None:
                """What an IdP's provisioning sends for a newcomer: userName alone, so one event."""
                body = {"schemas": [USER_SCHEMA], "userName": unique_email(f"provisioned{index}")}
                scim_json(scim((a, b)[index % 2], "POST", "/Users", body), 201)

            with ThreadPoolExecutor(max_workers=8) as pool:
                futures = [pool.submit(admin_changes, i) for i in range(teams)]
                futures += [pool.submit(scim_change, i) for i in range(provisioned)]
                futures += [pool.submit(sign_in_change, i) for i in range(CHANGES - 2 * teams - provisioned)]
                for future in futures:
                    future.result()
            done.set()
            follower.join(timeout=150)
            extra, _ = reader.drain(seen[-1]["cursor"] if seen else start, base_url=b.url)
        finally:
            reader.close()
    finally:
        cluster.stop()
    cursors = [e["cursor"] for e in seen]
    assert len(cursors) == len(set(cursors)) == CHANGES, f"{len(cursors)} events, {len(set(cursors))} distinct"
    assert extra == [], f"the feed went on after the {CHANGES}: {extra[:3]}"
    created = [e["user"]["email"] for e in seen if e["type"] == "user.created"]
    assert len(created) == len(set(created)) == CHANGES - 2 * teams, created[:5]
    assert sum(1 for e in seen if e["type"] == "user.created" and e["actor"] == "scim") == provisioned
    # In order: each team's creation comes before its renaming, whichever instance made them.
    steps: dict[str, list[str]] = {}
    for event in seen:
        if event["type"].startswith("team."):
            steps.setdefault(event["team"]["id"], []).append(event["type"])
    assert len(steps) == teams and all(s == ["team.created", "team.renamed"] for s in steps.values()), steps
    assert sorted(e["after"]["name"] for e in seen if e["type"] == "team.renamed") == sorted(n + "-renamed" for n in names)
    assert {e["actor"] for e in seen} == {"admin", "device", "scim"}, {e["actor"] for e in seen}
