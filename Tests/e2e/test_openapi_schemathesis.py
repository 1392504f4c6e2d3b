"""The live server against its own `/openapi.json`, with schemathesis generating requests
for every operation from the document: no response may be a 5xx, and every response must
match the document (status code, content type, headers, body schema); a method the document
does not declare for a path must answer 405 with an `Allow` that matches the document.

Admin routes are called with the bootstrap admin's token, integration routes with the
service account's, the rest as the document says (mostly without credentials), so both
the answers to valid callers and the refusals are checked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import schemathesis
from schemathesis import GenerationMode
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.meta import CoverageScenario, coverage_scenario
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from helpers import (
    ADMIN_EMAIL,
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    start_server,
    sign_in,
    unique_email,
)

DOCUMENT = Path(__file__).resolve().parents[2] / "Sources/Fieldpass/OpenAPI/openapi.json"
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@dataclass
class LiveAPI:
    server: FieldpassServer
    admin_token: str
    service_token: str

    def headers_for(self, path: str) -> dict[str, str]:
        if path.startswith("/integration"):
            return {"authorization": f"Bearer {self.service_token}"}
        if path.startswith("/admin") or path.startswith("/me"):
            return {"authorization": f"Bearer {self.admin_token}"}
        return {}


@pytest.fixture(scope="module")
def live_api(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveAPI]:
    server = start_server(fieldpass_bin, idp, tmp_path_factory.mktemp("openapi"), environments=DIRECTORY_ENVIRONMENTS)
    try:
        admin = sign_in(server, ADMIN_EMAIL)
        # A realm of each state, so feed requests with either filter answer at once instead of long-polling.
        worker = sign_in(server, unique_email("openapi"))
        assert server.mark_initialized(worker.realm_path).returncode == 0
        server.register(unique_email("openapi-pending"))
        with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
            service_token = backend.authenticate()["access_token"]
        yield LiveAPI(server, admin.access_token, service_token)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def openapi_schema(live_api: LiveAPI):
    return schemathesis.openapi.from_url(f"{live_api.server.url}/openapi.json")


def documented_cases() -> list[tuple[str, str, GenerationMode]]:
    """(method, path, mode) for every operation in the repository's document: positive
    always, negative where there is an input to get wrong."""
    document = json.loads(DOCUMENT.read_text())
    cases = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            cases.append((method.upper(), path, GenerationMode.POSITIVE))
            if operation.get("parameters") or item.get("parameters") or operation.get("requestBody"):
                cases.append((method.upper(), path, GenerationMode.NEGATIVE))
    return cases


@pytest.mark.parametrize(
    ("method", "path", "mode"), documented_cases(), ids=lambda value: value.value if isinstance(value, GenerationMode) else value
)
def test_every_response_matches_the_document(    openapi_schema, live_api: LiveAPI, method: str, path: str, mode: GenerationMode
) -> None:
    """Positive: requests the document allows. Negative: requests it does not (wrong
    types, missing fields, bad formats), which must be refused as the document says."""
    operation = openapi_schema[path][method]
    headers = live_api.headers_for(path)

    @given(case=operation.as_strategy(mode))
    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def call(case) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS, timeout=40)

    call()


@pytest.mark.parametrize("path", json.loads(DOCUMENT.read_text())["paths"])
def test_undeclared_methods_are_refused_as_the_document_says(openapi_schema, live_api: LiveAPI, path: str) -> None:
    """schemathesis' own probes of the methods the document does not declare for `path`
    (its coverage phase), checked by its own rules: 405, with an `Allow` header."""
    probes = []
    for method in HTTP_METHODS & openapi_schema.raw_schema["paths"][path].keys():
        operation = openapi_schema[path][method.upper()]
        generation = openapi_schema.config.generation_for(operation=operation, phase="coverage")
        cases = openapi_schema.iter_coverage_cases(operation, generation_modes=[GenerationMode.NEGATIVE], generation_config=generation)
        probes += [case for case in cases if coverage_scenario(case) == CoverageScenario.UNSPECIFIED_HTTP_METHOD]
    assert probes, path
    for case in probes:
        case.call_and_validate(headers=live_api.headers_for(path), checks=[not_a_server_error, unsupported_method, allow_header_conformance])
