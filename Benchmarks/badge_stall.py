"""How long one environment's crew signing in with badges holds up another environment's requests.

  .venv/bin/python Benchmarks/badge_stall.py [--short] [--bin PATH] [--rounds N] [--resets]

One SQLite server with two environments, `dev` and `other`. In `dev`, an enrolled shared
device and a crew, each with a badge and a temporary PIN. All of the crew sign in on the
device at once (`POST /shared_devices/shift` with the temporary PIN and a `new_pin`: two
scrypt hashes each, about 50 ms and 16 MiB apiece) while `other`'s `GET /me` is timed back to
back. Goal: `/me` never waits more than 100 ms longer than on a quiet server (release build).

With `--resets`, `dev`'s admin resets the PINs of eight of its people's badges eight at a
time instead (`POST /admin/users/{id}/badge/pin`, one scrypt hash each, ten each in a full
round), as an admin's script would.

Each round prints the sign-ins' statuses and seconds and the other environment's figures (n,
p50, max). Goals are reported, not failed: the exit status is 1 only when the harness fails.
`--short` (a crew of 6, one round) is what `make test` runs, so the harness cannot rot.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from stall import Timer, arguments, figures, other_me, report_goal, run

import scim_bulk  # noqa: E402
from helpers import ADMIN_EMAIL, EMAIL_DOMAIN, OTHER_DOMAIN, EnvironmentSpec, FieldpassServer, sign_in, unique_email  # noqa: E402
from helpers.dpop import DeviceKey  # noqa: E402

ENVIRONMENTS = (EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,)), EnvironmentSpec("other", (OTHER_DOMAIN,)))
JSON = {"content-type": "application/json"}


def enrolled_device(server: FieldpassServer, admin_token: str) -> DeviceKey:
    created = server.api("POST", "/admin/shared_devices", token=admin_token, json_body={"name": "Van 1"})
    if created.status_code != 201:
        raise RuntimeError(f"enrolling answered {created.status_code}: {created.text[:300]}")
    key = DeviceKey()
    url = f"{server.public_url}/shared_devices/enroll"
    headers = JSON | {"dpop": key.proof("POST", url)}
    status, answer = scim_bulk.request(
        server.port, "POST", "/shared_devices/enroll", {"enrollment_code": created.json()["enrollment_code"]}, headers)
    if status != 200:
        raise RuntimeError(f"enroll answered {status}: {answer[:300]!r}")
    return key


def crew_badges(server: FieldpassServer, admin_token: str, size: int) -> list[tuple[tuple[str, str], str]]:
    """(badge, temporary PIN) and the id of `size` new people of `dev`."""
    badges = []
    for _ in range(size):
        person = sign_in(server, unique_email("crew"))
        issued = server.api("POST", f"/admin/users/{person.user_id}/badge", token=admin_token)
        if issued.status_code != 201:
            raise RuntimeError(f"issuing a badge answered {issued.status_code}: {issued.text[:300]}")
        badges.append(((issued.json()["badge"], issued.json()["temporary_pin"]), person.user_id))
    return badges


RESETTERS = 8


def timed_rounds(
    me: Callable[[], int], rounds: int, quiet: Sequence[float], what: str, prepare: Callable[[], Callable[[], list[int]]],
) -> None:
    """`rounds` rounds of the work `prepare` makes ready (statuses of `what`), each timed while
    `other`'s `/me` is, then the goal."""
    worst = 0.0
    for number in range(rounds):
        work = prepare()
        answers: list[int] = []
        seconds: list[float] = []

        def timed() -> None:
            started = time.perf_counter()
            answers.extend(work())
            seconds.append(round(time.perf_counter() - started, 2))

        samples = Timer(me, 200).during(timed)
        worst = max(worst, max(samples))
        print(f"  round {number + 1}: {len(answers)} {what}, answered {dict(Counter(answers))} in {seconds[0]} s; "
              f"other environment's /me meanwhile {figures(samples)}", flush=True)
    report_goal(worst, quiet, f"the {what}")


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(__doc__, "a crew of 6, one round", argv, resets=True)
    size, rounds = (6, 1) if args.short else (24, args.rounds)

    def measure(server: FieldpassServer) -> None:
        admin = sign_in(server, ADMIN_EMAIL).access_token
        key = enrolled_device(server, admin)
        me = other_me(server)
        quiet = Timer(me, 200).during(lambda: time.sleep(2))
        print(f"{args.bin.resolve()} ({'short' if args.short else 'full'}): other environment's /me on a quiet server: "
              f"{figures(quiet)}", flush=True)
        if args.resets:
            # Eight of dev's badges, whose PINs its admin resets eight at a time.
            people = [person for _, person in crew_badges(server, admin, RESETTERS)]
            per_person = 2 if args.short else 10
            headers = {"authorization": f"Bearer {admin}"}

            def reset_often(user_id: str) -> list[int]:
                path = f"/admin/users/{user_id}/badge/pin"
                return [scim_bulk.request(server.port, "POST", path, None, headers)[0] for _ in range(per_person)]

            def resets() -> list[int]:
                with ThreadPoolExecutor(RESETTERS) as pool:
                    return [status for statuses in pool.map(reset_often, people) for status in statuses]

            timed_rounds(me, rounds, quiet, f"PIN resets ({RESETTERS} at a time)", lambda: resets)
            return
        url = f"{server.public_url}/shared_devices/shift"

        def one(badge: tuple[str, str]) -> int:
            body = {"badge": badge[0], "pin": badge[1], "new_pin": "40718263"}
            headers = JSON | {"dpop": key.proof("POST", url)}
            return scim_bulk.request(server.port, "POST", "/shared_devices/shift", body, headers)[0]

        def crew() -> Callable[[], list[int]]:
            badges = [badge for badge, _ in crew_badges(server, admin, size)]

            def signs_in() -> list[int]:
                with ThreadPoolExecutor(size) as pool:
                    return list(pool.map(one, badges))

            return signs_in

        timed_rounds(me, rounds, quiet, "badge sign-ins at once", crew)

    return run("badge_stall", args.bin, ENVIRONMENTS, measure)


if __name__ == "__main__":
    sys.exit(main())
