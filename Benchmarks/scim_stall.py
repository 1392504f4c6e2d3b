"""How long one environment's big SCIM change holds up another environment's requests.

  .venv/bin/python Benchmarks/scim_stall.py [--short] [--bin PATH] [--rounds N]

One SQLite server with two environments, `dev` (SCIM, roles from the IdP) and `other`:

- patch: `dev` has a 10,000-member team group; two 100-operation PATCHes of it (50 filtered
  removes, 50 one-value adds) run at once while `other`'s `GET /me` is timed back to back.
  Goal: `/me` never waits more than 100 ms longer than on a quiet server (release build).
- rename: `dev` has a 10,000-member role group; renaming it to the other role's group
  recomputes every member's role while `other`'s `POST /register_device` is timed back to back.
  It shows how long the rename holds SQLite's one write lock.

Each round prints the PATCHes' or the rename's status and seconds and the other
environment's figures (n, p50, max). Goals are reported, not failed: the exit status is 1 only
when the harness fails. `--short` (500 members, one round) is what `make test` runs, so the
harness cannot rot; only a full run on a release build says anything about the goal.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from stall import Timer, arguments, figures, other_me, report_goal, run

import scim_bulk  # noqa: E402
from helpers import EMAIL_DOMAIN, OTHER_DOMAIN, EnvironmentSpec, FieldpassServer  # noqa: E402

TOKEN = "bench-scim-token-0123456789-0123456789-abcdefgh"
ROLES = {"claim": "roles", "map": {"Crew Leads": "manager", "Fieldpass Admins": "admin"}}
ENVIRONMENTS = (
    EnvironmentSpec("dev", (EMAIL_DOMAIN,), roles_from_idp=ROLES, scim_token_env="DEV_SCIM_TOKEN", scim_token=TOKEN),
    EnvironmentSpec("other", (OTHER_DOMAIN,)),
)
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
SCIM_HEADERS = {"authorization": f"Bearer {TOKEN}", "content-type": "application/scim+json"}
CHANGED = 50


def request(port: int, method: str, path: str, body: object = None, headers: dict[str, str] = SCIM_HEADERS) -> tuple[int, bytes]:
    return scim_bulk.request(port, method, path, body, headers)


def expect(status: int, answer: bytes, wanted: int) -> None:
    if status != wanted:
        raise RuntimeError(f"answered {status}, not {wanted}: {answer[:300]!r}")


def timed(send: Callable[[], tuple[int, bytes]]) -> tuple[int, float]:
    started = time.perf_counter()
    status, answer = send()
    expect(status, answer, 200)
    return status, round(time.perf_counter() - started, 2)


def measure_patches(port: int, people: list[str], members: int, rounds: int, me: Callable[[], int]) -> float:
    """The largest `/me` time while two PATCHes run, over every round."""
    crew, extra = people[:members], people[members:]
    team = scim_bulk.group_of(port, "Field Crew", crew, SCIM_HEADERS)
    operations = [{"op": "remove", "path": f'members[value eq "{member}"]'} for member in crew[:CHANGED]] + [
        {"op": "add", "path": "members", "value": [{"value": member}]} for member in extra
    ]
    patch = {"schemas": [PATCH_OP], "Operations": operations}
    undo = {"schemas": [PATCH_OP], "Operations": [
        {"op": "remove", "path": f'members[value eq "{member}"]'} for member in extra
    ] + [{"op": "add", "path": "members", "value": [{"value": member} for member in crew[:CHANGED]]}]}
    print(f"patch: {members} members; each PATCH {len(json.dumps(patch))} bytes, {len(operations)} operations", flush=True)
    worst = 0.0
    for number in range(rounds):
        answers: list[tuple[int, float]] = []

        def two_patches() -> None:
            with ThreadPoolExecutor(2) as pool:
                answers.extend(pool.map(lambda _: timed(lambda: request(port, "PATCH", f"/scim/v2/Groups/{team}", patch)), range(2)))

        samples = Timer(me, 200).during(two_patches)
        worst = max(worst, max(samples))
        print(f"  round {number + 1}: PATCHes {answers}; other environment's /me meanwhile {figures(samples)}", flush=True)
        expect(*request(port, "PATCH", f"/scim/v2/Groups/{team}", undo), 200)
    return worst


def measure_rename(port: int, people: list[str], members: int, rounds: int) -> None:
    leads = scim_bulk.group_of(port, "Crew Leads", people[:members], SCIM_HEADERS)
    names = ["Fieldpass Admins", "Crew Leads"]
    counter = iter(range(10**9))
    json_headers = {"content-type": "application/json"}

    def register() -> int:
        email = f"reg-{next(counter)}-{time.time_ns()}@{OTHER_DOMAIN}"
        return request(port, "POST", "/register_device", {"email": email}, json_headers)[0]

    print(f"rename: a role group of {members} members", flush=True)
    for number in range(rounds):
        name = names[number % 2]
        operations = [{"op": "replace", "path": "displayName", "value": name}]
        answers: list[tuple[int, float]] = []

        def rename() -> None:
            answers.append(timed(lambda: request(
                port, "PATCH", f"/scim/v2/Groups/{leads}", {"schemas": [PATCH_OP], "Operations": operations})))

        samples = Timer(register, 201).during(rename)
        print(f"  rename {number + 1} to {name}: {answers}; other environment's register_device meanwhile {figures(samples)}",
              flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(__doc__, "500 members, one round", argv)
    members, rounds = (500, 1) if args.short else (10_000, args.rounds)

    def measure(server: FieldpassServer) -> None:
        started = time.perf_counter()
        people = scim_bulk.provision(server.port, members + CHANGED, SCIM_HEADERS, EMAIL_DOMAIN)
        print(f"{args.bin.resolve()} ({'short' if args.short else 'full'}): provisioned {len(people)} people in "
              f"{time.perf_counter() - started:.1f} s", flush=True)
        me = other_me(server)
        quiet = Timer(me, 200).during(lambda: time.sleep(2))
        print(f"other environment's /me on a quiet server: {figures(quiet)}", flush=True)
        worst = measure_patches(server.port, people, members, rounds, me)
        measure_rename(server.port, people, members, rounds)
        report_goal(worst, quiet, "the PATCHes")

    return run("scim_stall", args.bin, ENVIRONMENTS, measure)


if __name__ == "__main__":
    sys.exit(main())
