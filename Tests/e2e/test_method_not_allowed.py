"""A method a route does not have answers 405 with an `Allow` header that lists exactly the
methods the route has (RFC 9110 §15.5.6), on every route: the API's, read from the OpenAPI
document (so a new documented route is walked too), SCIM's (RFC 7644 §3) and the console's,
each in its own error shape. HEAD and OPTIONS are such methods: no route serves them. A path
no route has still answers 404.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from helpers import FieldpassServer, describe, http_client, is_html
from scim_flows import DEV_TOKEN, ERROR_SCHEMA, scim_server  # noqa: F401  (the module's server)

DOCUMENT = Path(__file__).resolve().parents[2] / "Sources/Fieldpass/OpenAPI/openapi.json"
# Every method a client may send; QUERY is one Fieldpass knows nothing of.
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY")
SCIM_ROUTES = {
    "/ServiceProviderConfig": {"GET"},
    "/ResourceTypes": {"GET"},
    "/ResourceTypes/{id}": {"GET"},
    "/Schemas": {"GET"},
    "/Schemas/{id}": {"GET"},
    "/Users": {"GET", "POST"},
    "/Users/.search": {"POST"},
    "/Users/{id}": {"GET", "PUT", "PATCH", "DELETE"},
    "/Groups": {"GET", "POST"},
    "/Groups/.search": {"POST"},
    "/Groups/{id}": {"GET", "PUT", "PATCH", "DELETE"},
    "/.search": {"POST"},
}
CONSOLE_ROUTES = {
    "": {"GET"},
    "/style.css": {"GET"},
    "/sign-in": {"POST"},
    "/sign-out": {"POST"},
    "/people": {"GET"},
    "/people/{id}": {"GET"},
    "/people/{id}/role": {"POST"},
    "/people/{id}/grants": {"POST"},
    "/people/{id}/grants/remove": {"POST"},
    "/people/{id}/devices/{id}/revoke": {"POST"},
    "/people/{id}/disable": {"POST"},
    "/people/{id}/enable": {"POST"},
    "/people/{id}/reset-identity": {"POST"},
    "/teams": {"GET", "POST"},
    "/teams/{id}": {"GET"},
    "/teams/{id}/rename": {"POST"},
    "/teams/{id}/delete": {"POST"},
    "/teams/{id}/members": {"POST"},
    "/teams/{id}/members/{id}/remove": {"POST"},
    "/onboarding": {"GET"},
    "/audit": {"GET"},
    "/keys": {"GET"},
}


def api_routes() -> dict[str, set[str]]:
    document = json.loads(DOCUMENT.read_text())
    return {path: {method.upper() for method in item if method.upper() in METHODS} for path, item in document["paths"].items()}


def sample(template: str) -> str:
    """`template` with a value for each `{parameter}`."""
    return re.sub(r"\{[^}]+\}", "sample-id", template)


def allowed(response: httpx.Response) -> set[str]:
    return {method.strip() for method in response.headers.get("allow", "").split(",") if method.strip()}


def wrong_answers(url: str, served: set[str], shape, headers: dict[str, str] | None = None) -> list[str]:
    """Each method `url` does not serve, sent once; what is wrong with each answer."""
    problems = []
    with http_client() as client:
        for method in sorted(set(METHODS) - served):
            response = client.request(method, url, headers=headers)
            if response.status_code != 405 or allowed(response) != served or not shape(response):
                problems.append(f"{describe(response)} Allow: {response.headers.get('allow')}")
    return problems


def api_error(response: httpx.Response) -> bool:
    if response.request.method == "HEAD":
        return response.headers.get("content-type", "").startswith("application/json")
    return response.json().get("error") == "method_not_allowed"


def scim_error(response: httpx.Response) -> bool:
    if response.request.method == "HEAD":
        return response.headers.get("content-type") == "application/scim+json"
    body = response.json()
    return body.get("schemas") == [ERROR_SCHEMA] and body.get("status") == "405"


@pytest.mark.parametrize(("path", "served"), sorted(api_routes().items()))
def test_every_api_route_refuses_its_other_methods(scim_server: FieldpassServer, path: str, served: set[str]) -> None:
    assert served, path
    assert wrong_answers(f"{scim_server.url}{sample(path)}", served, api_error) == []


@pytest.mark.parametrize(("path", "served"), sorted(SCIM_ROUTES.items()))
def test_every_scim_route_refuses_its_other_methods(scim_server: FieldpassServer, path: str, served: set[str]) -> None:
    headers = {"authorization": f"Bearer {DEV_TOKEN}"}
    assert wrong_answers(f"{scim_server.url}/scim/v2{sample(path)}", served, scim_error, headers) == []


@pytest.mark.parametrize(("path", "served"), sorted(CONSOLE_ROUTES.items()))
def test_every_console_route_refuses_its_other_methods_with_a_page(
    scim_server: FieldpassServer, path: str, served: set[str]
) -> None:
    assert wrong_answers(f"{scim_server.url}/console{sample(path)}", served, is_html) == []


@pytest.mark.parametrize("path", ["/no/such/path", "/admin/users/sample-id/nothing", "/scim/v2/Nothing", "/console/nothing"])
def test_a_path_no_route_has_is_still_not_found(scim_server: FieldpassServer, path: str) -> None:
    with http_client() as client:
        for method in ("GET", "DELETE", "OPTIONS"):
            response = client.request(method, f"{scim_server.url}{path}", headers={"authorization": f"Bearer {DEV_TOKEN}"})
            assert response.status_code == 404 and "allow" not in response.headers, describe(response)
