"""SCIM conformance: scim2-tester's checks of Users and Groups against the live server.

Every check it runs must pass, and none is skipped. The one thing the tester cannot guess
from the published schema is that `userName` is a work email of the environment (RFC 7643
leaves its format to the service): after discovery, the User model's `userName` is given
example values in the environment's domain, which the tester then uses instead of random text.
Each pick is a new address: the tester picks examples at random, and the same address picked
for two people is a real conflict that only chance made.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

import pytest
from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import CheckResult, Status, check_server

from helpers import EMAIL_DOMAIN, FieldpassServer
from scim_flows import DEV_TOKEN, scim_server  # noqa: F401  (the module's server)


class FreshEmails(Sequence[str]):
    """Looks like a list of work emails; every item read is a new one."""

    def __len__(self) -> int:
        return 1000

    def __getitem__(self, index):  # type: ignore[override]  (no slices: random.choice reads one)
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return f"conformance-{uuid.uuid4().hex[:12]}@{EMAIL_DOMAIN}"


@pytest.fixture(scope="module")
def results(scim_server: FieldpassServer) -> Iterator[list[CheckResult]]:
    with Client(base_url=f"{scim_server.url}/scim/v2", headers={"Authorization": f"Bearer {DEV_TOKEN}"}) as http:
        client = SyncSCIMClient(http)
        client.discover()
        user = client.get_resource_model("User")
        assert user is not None, "the server published no User schema"
        user.model_fields["user_name"].examples = FreshEmails()
        yield check_server(client, resource_types=["User", "Group"])


def describe(result: CheckResult) -> str:
    return f"{result.status.name} {result.title} [{result.resource_type}]: {result.reason}"


def test_scim2_tester_finds_no_failure(results: list[CheckResult]) -> None:
    failures = [describe(r) for r in results if r.status not in (Status.SUCCESS, Status.SKIPPED)]

    assert len(results) > 20, [describe(r) for r in results]
    assert not failures, "\n".join(failures)


def test_skipped_checks_are_only_the_ones_that_cannot_apply(results: list[CheckResult]) -> None:
    skipped = [describe(r) for r in results if r.status == Status.SKIPPED]

    assert not skipped, "\n".join(skipped)
