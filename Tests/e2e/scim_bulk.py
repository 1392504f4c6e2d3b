"""A large company's SCIM directory over plain connections: the people and a group of them,
for the large company of the e2e suite (test_large_company.py) and for Benchmarks/scim_stall.py.

Python's http.client costs the machine a sixth of what httpx does, which on two cores would
otherwise slow the server being measured."""

from __future__ import annotations

import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scim_flows import GROUP_SCHEMA, USER_SCHEMA, patch

# Members added by one PATCH while a group is built: each is a few writes of one transaction,
# which on PostgreSQL must end within the store's 5 s deadline on a busy machine too.
CHUNK = 250


def request(port: int, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, bytes]:
    """One request over a connection of its own: the status and the body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def crew_email(number: int, domain: str) -> str:
    return f"crew-{number:05d}@{domain}"


def provision(port: int, count: int, headers: dict[str, str], domain: str, in_flight: int = 8) -> list[str]:
    """`count` people `crew-NNNNN@domain`, named "Fitter NNNNN" as an IdP names them, over
    `in_flight` kept-alive connections; their SCIM ids in order."""
    numbers = iter(range(count))
    lock = threading.Lock()
    ids: dict[int, str] = {}

    def provision_some() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            while True:
                with lock:
                    number = next(numbers, None)
                if number is None:
                    return
                body = {
                    "schemas": [USER_SCHEMA],
                    "userName": crew_email(number, domain),
                    "displayName": f"Fitter {number:05d}",
                    "active": True,
                }
                connection.request("POST", "/scim/v2/Users", json.dumps(body), headers)
                response = connection.getresponse()
                answer = response.read()
                assert response.status == 201, f"{response.status} {answer[:500]!r}"
                ids[number] = json.loads(answer)["id"]
        finally:
            connection.close()

    with ThreadPoolExecutor(in_flight) as pool:
        for done in [pool.submit(provision_some) for _ in range(in_flight)]:
            done.result()
    return [ids[number] for number in range(count)]


def group_of(port: int, name: str, members: list[str], headers: dict[str, str]) -> str:
    """A new group of `members`, added CHUNK at a time (answered without them); its SCIM id."""
    status, answer = request(port, "POST", "/scim/v2/Groups", {"schemas": [GROUP_SCHEMA], "displayName": name}, headers)
    assert status == 201, answer[:500]
    group = json.loads(answer)["id"]
    for start in range(0, len(members), CHUNK):
        add = {"op": "add", "path": "members", "value": [{"value": m} for m in members[start:start + CHUNK]]}
        status, answer = request(port, "PATCH", f"/scim/v2/Groups/{group}?excludedAttributes=members", patch(add), headers)
        assert status == 200, answer[:500]
    return group
