"""What a large company asks of Fieldpass: SCIM PATCHes at its scale, and the console's People
page, beside another company on the same server.

`dev`'s IdP provisions 10,050 people (`crew-NNNNN@example.com`, "Fitter NNNNN") as a company's
IdP brings them, SCIM POSTs, and a 10,000-member team group; `other` is small. Provisioning is
the suite's longest setup, so every test here shares the one company. The tests move members in
and out of the team; none changes who the company's people are.

SCIM: a PATCH costs what its operations ask for, within limits no IdP reaches (1,000
operations, 1,000 values in one, 100,000 values and elements touched in all, a body of 256 KiB):
past a limit it is refused (`400 tooMany`, or 413 for the body) and changes nothing. Two
100-operation PATCHes at once change the group as asked while `other`'s `GET /me` is timed back
to back.

Console: the admin signs in through a browser; the People page is then timed with that browser's
cookie over plain HTTP, so the figures are the server's answer and not Chromium's rendering.

The figures are printed as benchmark lines (the goals, another environment delayed under 100 ms
on a release build and a People page under 100 ms, are for reading, not asserted: this is the
debug build); what each answer holds is asserted.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from console_flows import console_sign_in
from helpers import (
    ADMIN_EMAIL,
    EMAIL_DOMAIN,
    OTHER_DOMAIN,
    EnvironmentSpec,
    FieldpassServer,
    MockIdP,
    SignedIn,
    assert_json,
    describe,
    percentile,
    report_benchmark,
    sign_in,
    start_server,
    store_kind,
)
import scim_bulk
from scim_flows import assert_scim_error, patch, scim

MEMBERS = 10_000
EXTRA = 50
IN_FLIGHT = 8
TOKEN = "scale-scim-token-for-the-e2e-suite-0123456789"
ENVIRONMENTS = (
    EnvironmentSpec("dev", (EMAIL_DOMAIN,), (ADMIN_EMAIL,), scim_token_env="DEV_SCIM_TOKEN", scim_token=TOKEN),
    EnvironmentSpec("other", (OTHER_DOMAIN,)),
)
HEADERS = {"authorization": f"Bearer {TOKEN}", "content-type": "application/scim+json"}
# The limits of one PATCH, as Docs/identity-providers.md states them.
MAX_OPERATIONS = 1_000
MAX_VALUES = 1_000
MAX_TOUCHED = 100_000
# The People page: requests timed after a first one, and the goal.
SAMPLES = 25
GOAL_MS = 100
# A person's link on the People page: their email, with the break opportunities (<wbr>) the
# console puts between its parts.
PERSON_LINK = re.compile(r'<a href="[^"]*/console/people/[^"?]+">((?:[^<]|<wbr>)+)</a>')


def crew_email(number: int) -> str:
    return scim_bulk.crew_email(number, EMAIL_DOMAIN)


@dataclass
class LargeCompany:
    server: FieldpassServer
    people: list[str]  # SCIM ids, in the order of their numbers; the first MEMBERS are the team's
    team: str
    admin: SignedIn  # dev's bootstrap admin, signed in once the people are there

    @property
    def members(self) -> list[str]:
        return self.people[:MEMBERS]

    @property
    def extra(self) -> list[str]:
        return self.people[MEMBERS:]


@pytest.fixture(scope="module")
def large_company(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LargeCompany]:
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp("server-large-company"), environments=ENVIRONMENTS)
    try:
        started = time.perf_counter()
        people = scim_bulk.provision(server.port, MEMBERS + EXTRA, HEADERS, EMAIL_DOMAIN, IN_FLIGHT)
        team = scim_bulk.group_of(server.port, "Field Crew", people[:MEMBERS], HEADERS)
        seconds = time.perf_counter() - started
        report_benchmark(
            f"{len(people)} people and a {MEMBERS}-member group provisioned over SCIM ({store_kind()}, debug build) "
            f"in {seconds:.1f} s, {len(people) / seconds:.0f} people a second"
        )
        yield LargeCompany(server, people, team, sign_in(server, ADMIN_EMAIL))
    finally:
        server.stop()


# --------------------------------------------------------------------------- SCIM


def request(server: FieldpassServer, method: str, path: str, body: Any = None, headers: dict[str, str] = HEADERS) -> tuple[int, bytes]:
    return scim_bulk.request(server.port, method, path, body, headers)


def members_of(company: LargeCompany, group: str) -> list[str]:
    status, answer = request(company.server, "GET", f"/scim/v2/Groups/{group}")
    assert status == 200, answer[:500]
    return [member["value"] for member in json.loads(answer).get("members", [])]


def state(company: LargeCompany) -> tuple[list[str], Any]:
    """The team's members and the newest audit entry: what a refused PATCH must leave as it was."""
    newest = assert_json(company.server.api("GET", "/admin/audit", token=company.admin.access_token, params={"limit": "1"}))
    return sorted(members_of(company, company.team)), newest["entries"]


class Timed(threading.Thread):
    """Sends one request after another until `done` is set; keeps the milliseconds of each."""

    def __init__(self, send: Callable[[], int]) -> None:
        super().__init__(daemon=True)
        self.send = send
        self.samples: list[float] = []
        self.statuses: set[int] = set()
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            started = time.perf_counter()
            self.statuses.add(self.send())
            self.samples.append((time.perf_counter() - started) * 1000)

    def during(self, work: Callable[[], None]) -> list[float]:
        """The samples of the requests sent while `work` ran."""
        self.start()
        time.sleep(0.2)
        first = len(self.samples)
        try:
            work()
        finally:
            self.done.set()
            self.join()
        return self.samples[first:]


def figures(samples: list[float]) -> str:
    return f"{len(samples)} requests, p50 {percentile(samples, 0.5):.1f} ms, max {max(samples):.1f} ms"


def test_two_large_patches_at_once_change_the_group_as_asked(large_company: LargeCompany) -> None:
    server = large_company.server
    leaving, joining = large_company.members[:EXTRA], large_company.extra
    operations = [{"op": "remove", "path": f'members[value eq "{m}"]'} for m in leaving]
    operations += [{"op": "add", "path": "members", "value": [{"value": m}]} for m in joining]
    body = patch(*operations)
    worker = sign_in(server, f"worker@{OTHER_DOMAIN}")
    me = Timed(lambda: request(server, "GET", "/me", headers={"authorization": f"Bearer {worker.access_token}"})[0])
    answers: list[tuple[int, bytes]] = []

    def two_patches() -> None:
        with ThreadPoolExecutor(2) as pool:
            answers.extend(pool.map(lambda _: request(server, "PATCH", f"/scim/v2/Groups/{large_company.team}", body), range(2)))

    samples = me.during(two_patches)

    assert [status for status, _ in answers] == [200, 200], [answer[:300] for _, answer in answers]
    assert me.statuses == {200}
    members = set(members_of(large_company, large_company.team))
    assert len(members) == MEMBERS and members.isdisjoint(leaving) and members.issuperset(joining)
    report_benchmark(
        f"another environment's GET /me while two {len(operations)}-operation PATCHes ({len(json.dumps(body))} bytes each) "
        f"of a {MEMBERS}-member group ran at once ({store_kind()}, debug build): {figures(samples)} "
        "(goal on a release build: under 100 ms)"
    )


def touching(count: int) -> dict[str, Any]:
    """`count` operations that each look at every member: a value selection on `display`, which
    no index answers (and which selects nobody, so an accepted one changes nothing)."""
    return patch(*[{"op": "remove", "path": 'members[display eq "nobody"]'} for _ in range(count)])


def test_a_patch_at_its_limits_is_accepted(large_company: LargeCompany) -> None:
    members = large_company.members[EXTRA:EXTRA + MAX_OPERATIONS // 2]
    before = state(large_company)
    # Half the operations take members out by selection, the other half put them back.
    back_and_forth = patch(
        *[{"op": "remove", "path": f'members[value eq "{m}"]'} for m in members],
        *[{"op": "add", "path": "members", "value": [{"value": m}]} for m in members],
    )
    largest = patch({"op": "add", "path": "members", "value": [{"value": m} for m in large_company.members[EXTRA:EXTRA + MAX_VALUES]]})
    # Each pass counts as many as the group has members, and the team's index one pass more.
    passes = MAX_TOUCHED // MEMBERS - 2

    for body in (back_and_forth, largest, touching(passes)):
        status, answer = request(large_company.server, "PATCH", f"/scim/v2/Groups/{large_company.team}", body)
        assert status == 200, answer[:500]
    assert state(large_company)[0] == before[0]


@pytest.mark.parametrize("limit", ["operations", "values", "touched", "body"])
def test_a_patch_past_a_limit_is_refused_and_changes_nothing(large_company: LargeCompany, limit: str) -> None:
    joining = large_company.extra[0]
    if limit == "operations":
        body = patch(*[{"op": "add", "path": "members", "value": [{"value": joining}]} for _ in range(MAX_OPERATIONS + 1)])
    elif limit == "values":
        body = patch({"op": "add", "path": "members", "value": [{"value": m} for m in large_company.people[: MAX_VALUES + 1]]})
    elif limit == "touched":
        body = touching(MAX_TOUCHED // MEMBERS + 1)
    else:
        body = patch(*[{"op": "add", "path": "members", "value": [{"value": joining, "display": "x" * 1000}]} for _ in range(300)])
    before = state(large_company)

    response = scim(large_company.server, "PATCH", f"/Groups/{large_company.team}", body, token=TOKEN)

    if limit == "body":
        assert_scim_error(response, 413)
    else:
        assert_scim_error(response, 400, "tooMany")
    assert state(large_company) == before


# --------------------------------------------------------------------------- console


def timed_page(client: httpx.Client, url: str) -> tuple[list[str], list[float]]:
    """The emails `url` lists, and the milliseconds of SAMPLES requests after a first one."""
    first = client.get(url)
    assert first.status_code == 200, describe(first)
    listed = [link.replace("<wbr>", "") for link in PERSON_LINK.findall(first.text)]
    samples = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        response = client.get(url)
        samples.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, describe(response)
        assert [link.replace("<wbr>", "") for link in PERSON_LINK.findall(response.text)] == listed
    return listed, samples


def test_the_people_page_stays_fast_with_ten_thousand_people(large_company: LargeCompany, browsers) -> None:
    server = large_company.server
    browser = browsers()
    console_sign_in(browser, server, ADMIN_EMAIL)
    assert browser.heading == "People", browser.describe()
    cookie = browser.cookie("fieldpass_console").value

    with httpx.Client(trust_env=False, timeout=10, cookies={"fieldpass_console": cookie}) as client:
        first_page, first_samples = timed_page(client, f"{server.url}/console/people")
        by_email, email_samples = timed_page(client, f"{server.url}/console/people?q=crew-07421")
        by_name, name_samples = timed_page(client, f"{server.url}/console/people?q=fitter+093")

    # By email: the admin, then the first 49 of the crew; a page link onwards.
    assert first_page == [ADMIN_EMAIL] + [crew_email(number) for number in range(49)]
    assert by_email == [crew_email(7421)]
    assert by_name == [crew_email(number) for number in range(9300, 9350)], "the first 50 of the 100 Fitter 093xx"

    figures = {"first page": first_samples, "search by email": email_samples, "search by name": name_samples}
    line = "; ".join(
        f"{name} p50 {percentile(samples, 0.5):.1f} ms, p95 {percentile(samples, 0.95):.1f} ms"
        for name, samples in figures.items()
    )
    slowest = max(percentile(samples, 0.5) for samples in figures.values())
    verdict = "within" if slowest < GOAL_MS else "OVER"
    report_benchmark(f"console People page, {len(large_company.people)} people ({store_kind()}, debug build): {line} ({verdict} the {GOAL_MS} ms goal)")
