"""Two SCIM PATCHes of one resource at once both take effect.

Entra ID and Okta send PATCHes in bursts, several for one person or group at the same moment.
Each PATCH is read, patched, checked and written in one transaction, under the resource's
lock: of two that each change a different attribute, or each add a different member, both
changes are there afterwards, whatever order they ran in. Twenty rounds of each, both
requests sent at the same instant over connections opened beforehand.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from helpers import FieldpassServer, describe, http_client, unique_email
from scim_flows import (
    DEV_TOKEN,
    GROUP_SCHEMA,
    new_user,
    patch,
    scim,
    scim_json,
    scim_server,  # noqa: F401  (the module's server)
)

ROUNDS = 20
HEADERS = {"authorization": f"Bearer {DEV_TOKEN}", "content-type": "application/scim+json"}


def at_once(server: FieldpassServer, path: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """PATCHes `path` with each body, each over its own connection, all released together."""
    clients = [http_client(base_url=f"{server.url}/scim/v2", headers=HEADERS) for _ in bodies]
    try:
        for client in clients:  # open each connection before the start
            assert client.get("/ServiceProviderConfig").status_code == 200
        start = threading.Barrier(len(clients))

        def send(index: int) -> httpx.Response:
            start.wait()
            return clients[index].patch(path, content=json.dumps(bodies[index]).encode())

        with ThreadPoolExecutor(max_workers=len(clients)) as pool:
            return list(pool.map(send, range(len(clients))))
    finally:
        for client in clients:
            client.close()


def each_answered(responses: list[httpx.Response]) -> None:
    for response in responses:
        assert response.status_code == 200, describe(response)


def test_two_patches_of_one_person_at_once_both_take_effect(scim_server: FieldpassServer) -> None:
    server = scim_server
    for round in range(ROUNDS):
        person = scim_json(scim(server, "POST", "/Users", new_user(
            unique_email("burst"), displayName="Before", name={"givenName": "Before", "familyName": "Kept"},
        )), 201)

        each_answered(at_once(server, f"/Users/{person['id']}", [
            patch({"op": "replace", "path": "name.givenName", "value": f"Given {round}"}),
            patch({"op": "replace", "path": "displayName", "value": f"Shown {round}"}),
        ]))

        after = scim_json(scim(server, "GET", f"/Users/{person['id']}"))
        assert (after["name"], after["displayName"]) == ({"givenName": f"Given {round}", "familyName": "Kept"}, f"Shown {round}"), (
            round, after,
        )


def group(server: FieldpassServer, round: int) -> dict[str, Any]:
    """A new empty group: a team in even rounds, a role group (its externalId maps to manager) in odd ones."""
    body: dict[str, Any] = {"schemas": [GROUP_SCHEMA], "displayName": f"Burst {unique_email('crew').split('@')[0]}"}
    if round % 2:
        body["externalId"] = "Fieldpass.Manager"
    return scim_json(scim(server, "POST", "/Groups", body), 201)


def test_two_patches_of_one_group_at_once_both_take_effect(scim_server: FieldpassServer) -> None:
    server = scim_server
    member: Callable[[], str] = lambda: scim_json(scim(server, "POST", "/Users", new_user(unique_email("joins"))), 201)["id"]
    for round in range(ROUNDS):
        joining = [member(), member()]
        target = group(server, round)

        each_answered(at_once(server, f"/Groups/{target['id']}", [
            patch({"op": "add", "path": "members", "value": [{"value": joining[0]}]}),
            patch({"op": "add", "path": "members", "value": [{"value": joining[1]}]}),
        ]))

        after = scim_json(scim(server, "GET", f"/Groups/{target['id']}"))
        assert sorted(m["value"] for m in after.get("members", [])) == sorted(joining), (round, after)
