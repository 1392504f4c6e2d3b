"""Property-based fuzzing of every SCIM route: malformed and extreme bodies, filters and query
values, as a SCIM client with a valid token could send them.

SCIM lies outside the OpenAPI document, so schemathesis never reaches it. Hypothesis generates
the requests instead; every one must leave the process up, be answered with a SCIM error (or,
for a read, a SCIM answer), and change nothing: the SCIM listings and the audit log read the
same before and after. The examples are derived from the test's code (`derandomize`), so a run
in CI tries the same requests as a run here.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ADMIN_EMAIL, FieldpassServer, SignedIn, audit_entries, sign_in, unique_email
from scim_flows import (
    GROUP_SCHEMA,
    PATCH_SCHEMA,
    new_user,
    scim,
    scim_json,
    scim_server,  # noqa: F401  (the module's server)
)

SEARCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:SearchRequest"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
FUZZ = settings(
    max_examples=300, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Numbers at and past every boundary a conversion could trap on.
EXTREME_NUMBERS = st.sampled_from([
    0, -1, 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 10**30,
    1e19, -1e19, 1e300, -1e300, 1.5, -0.0, 5e-324, 1.7976931348623157e308,
])
EXTREME_TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", " ", "\u0000", "\u212aim@example.com", "a" * 70_000, '"', "\\", "eq", "[", "]", "%", "1e19", "NaN"]),
)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), EXTREME_NUMBERS, st.integers(), st.floats(allow_nan=False), EXTREME_TEXT)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(EXTREME_TEXT, inner, max_size=6)),
    max_leaves=25,
)
NOT_A_STRING = st.one_of(st.none(), st.booleans(), EXTREME_NUMBERS, st.lists(JSON_SCALARS, max_size=3), st.dictionaries(st.text(max_size=5), JSON_SCALARS, max_size=3))
NOT_JSON = st.binary(max_size=200).filter(lambda raw: not parses(raw))
QUERY_VALUES = st.one_of(
    st.text(max_size=40), st.sampled_from(["", " ", "\u0000", '"', "\\", "[", "%", "a" * 2000]), EXTREME_NUMBERS.map(str), st.integers().map(str),
    st.sampled_from(["-9223372036854775809", "9223372036854775808", "1e19", "inf", "-0", "0x10", " 1"]),
)
FILTERS = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda attribute, op, value: f"{attribute} {op} {value}",
        st.sampled_from(["userName", "externalId", "displayName", "id", "emails.value", "members", "meta.created", "x"]),
        st.sampled_from(["eq", "ne", "co", "sw", "gt", "pr", "and", "EQ"]),
        st.one_of(st.text(max_size=40).map(json.dumps), EXTREME_NUMBERS.map(str), st.just("true"), st.just("null")),
    ),
)


def parses(raw: bytes) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def admin(scim_server: FieldpassServer) -> SignedIn:
    return sign_in(scim_server, ADMIN_EMAIL)


@pytest.fixture(scope="module")
def known(scim_server: FieldpassServer) -> dict[str, str]:
    """A provisioned user and group, so that the routes with an id reach real resources."""
    user = scim_json(scim(scim_server, "POST", "/Users", new_user(unique_email("fuzz"))), 201)
    group = scim_json(scim(scim_server, "POST", "/Groups", {
        "schemas": [GROUP_SCHEMA], "displayName": f"Fuzz crew {user['id'][:8]}", "members": [{"value": user["id"]}],
    }), 201)
    return {"user": user["id"], "group": group["id"]}


def state(server: FieldpassServer, admin: SignedIn) -> tuple[Any, Any, Any]:
    """What a change would show: every user and group as SCIM lists them, and the audit log."""
    users = scim_json(scim(server, "GET", "/Users", params={"count": "200"}))
    groups = scim_json(scim(server, "GET", "/Groups", params={"count": "200"}))
    return users["Resources"], groups["Resources"], audit_entries(server, admin)


def send(server: FieldpassServer, method: str, path: str, body: Any = None, **options: Any) -> httpx.Response:
    """One SCIM request; a server that dropped it (or stopped) fails the test with its log."""
    try:
        return scim(server, method, path, body, **options)
    except httpx.TransportError as error:
        pytest.fail(f"{method} {path} got no answer ({error!r}); the server's log:\n{server.log_tail()}")


def assert_refused_and_alive(server: FieldpassServer, response: httpx.Response, *, read: bool = False) -> None:
    assert server.process is not None and server.process.proc.poll() is None, "the server stopped:\n" + server.log_tail()
    if read and response.status_code == 200:
        assert response.headers["content-type"].startswith("application/scim+json"), response.text[:300]
        return
    assert 400 <= response.status_code < 500, f"{response.status_code} {response.text[:300]}"
    body = response.json()
    assert body["schemas"] == [ERROR_SCHEMA] and body["status"] == str(response.status_code), body


@pytest.fixture
def unchanged(scim_server: FieldpassServer, admin: SignedIn, known: dict[str, str]):
    """Checks, after each test (all its examples), that SCIM and the audit log read as before."""
    before = state(scim_server, admin)
    yield
    assert state(scim_server, admin) == before


def item_path(kind: str, known: dict[str, str], which: str) -> str:
    ids = {"known": known[kind], "unknown": "0" * 36, "long": "a" * 65, "odd": "%00"}
    return f"/{'Users' if kind == 'user' else 'Groups'}/{ids[which]}"


@FUZZ
@given(
    kind=st.sampled_from(["Users", "Groups"]),
    params=st.dictionaries(
        st.sampled_from(["filter", "startIndex", "count", "attributes", "excludedAttributes", "sortBy", "sortOrder", "x"]),
        st.one_of(QUERY_VALUES, FILTERS), max_size=4,
    ),
)
def test_listing_with_any_query_answers_or_refuses(scim_server: FieldpassServer, unchanged, kind: str, params: dict[str, str]) -> None:
    assert_refused_and_alive(scim_server, send(scim_server, "GET", f"/{kind}", params=params), read=True)


@FUZZ
@given(
    path=st.sampled_from(["/Users/.search", "/Groups/.search", "/.search"]),
    members=st.fixed_dictionaries({}, optional={
        "startIndex": st.one_of(EXTREME_NUMBERS, JSON_VALUES),
        "count": st.one_of(EXTREME_NUMBERS, JSON_VALUES),
        "filter": st.one_of(FILTERS, JSON_VALUES),
        "attributes": JSON_VALUES, "excludedAttributes": JSON_VALUES, "sortBy": JSON_VALUES, "sortOrder": JSON_VALUES, "x": JSON_VALUES,
    }),
    schemas=st.one_of(st.just([SEARCH_SCHEMA]), JSON_VALUES),
)
def test_searching_with_any_body_answers_or_refuses(
    scim_server: FieldpassServer, unchanged, path: str, members: dict[str, Any], schemas: Any
) -> None:
    response = send(scim_server, "POST", path, {"schemas": schemas, **members})
    assert_refused_and_alive(scim_server, response, read=True)


@FUZZ
@given(
    target=st.sampled_from(["POST /Users", "POST /Groups", "PUT user", "PUT group", "PATCH user", "PATCH group"]),
    which=st.sampled_from(["known", "unknown", "long", "odd"]),
    body=st.one_of(
        NOT_JSON.map(lambda raw: ("raw", raw)),
        st.one_of(st.lists(JSON_VALUES, max_size=3), JSON_SCALARS).map(lambda value: ("json", value)),
    ),
)
def test_a_write_with_a_body_that_is_no_resource_changes_nothing(
    scim_server: FieldpassServer, unchanged, known: dict[str, str], target: str, which: str, body: tuple[str, Any]
) -> None:
    method, path = write_target(target, known, which)
    kind, value = body
    if kind == "raw":
        response = send(scim_server, method, path, content=value)
    else:
        response = send(scim_server, method, path, value)
    assert_refused_and_alive(scim_server, response)


@FUZZ
@given(
    target=st.sampled_from(["POST /Users", "PUT user"]),
    which=st.sampled_from(["known", "unknown"]),
    user_name=NOT_A_STRING,
    extra=st.dictionaries(st.sampled_from(["active", "name", "emails", "externalId", "displayName", "title"]), JSON_VALUES, max_size=3),
)
def test_a_user_whose_userName_is_no_string_changes_nothing(
    scim_server: FieldpassServer, unchanged, known: dict[str, str], target: str, which: str, user_name: Any, extra: dict[str, Any]
) -> None:
    method, path = write_target(target, known, which)
    body = {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], **extra, "userName": user_name}
    assert_refused_and_alive(scim_server, send(scim_server, method, path, body))


@FUZZ
@given(
    target=st.sampled_from(["PATCH user", "PATCH group"]),
    which=st.sampled_from(["known", "unknown"]),
    good=st.lists(
        st.fixed_dictionaries(
            {"op": st.sampled_from(["add", "replace", "remove", "Replace"])},
            optional={"path": st.one_of(FILTERS, EXTREME_TEXT), "value": JSON_VALUES},
        ),
        max_size=5,
    ),
    bad_op=st.one_of(NOT_A_STRING, EXTREME_TEXT.filter(lambda text: text.lower() not in {"add", "replace", "remove"})),
    position=st.integers(min_value=0, max_value=5),
)
def test_a_patch_with_one_bad_operation_changes_nothing(
    scim_server: FieldpassServer, unchanged, known: dict[str, str], target: str, which: str,
    good: list[dict[str, Any]], bad_op: Any, position: int,
) -> None:
    """Whatever the other operations would do, one that is not add, replace or remove makes
    the whole PATCH a SCIM error."""
    method, path = write_target(target, known, which)
    operations = list(good)
    operations.insert(min(position, len(operations)), {"op": bad_op, "path": "displayName", "value": "x"})
    body = {"schemas": [PATCH_SCHEMA], "Operations": operations}
    assert_refused_and_alive(scim_server, send(scim_server, method, path, body))


@FUZZ
@given(kind=st.sampled_from(["user", "group"]), which=st.sampled_from(["unknown", "long", "odd"]))
def test_deleting_what_is_not_ours_changes_nothing(
    scim_server: FieldpassServer, unchanged, known: dict[str, str], kind: str, which: str
) -> None:
    assert_refused_and_alive(scim_server, send(scim_server, "DELETE", item_path(kind, known, which)))


def write_target(target: str, known: dict[str, str], which: str) -> tuple[str, str]:
    method, _, noun = target.partition(" ")
    if noun.startswith("/"):
        return method, noun
    return method, item_path(noun, known, which)
