"""`GET /metrics`: Prometheus text, parsed with the Prometheus project's own parser.

One server goes through an onboarding and the token grants while the test scrapes before
and after, and checks that each counter moved by exactly what the run did: requests by
route template, method and status with their duration histogram; the onboarding funnel;
`login_failed` by reason; token grants by type and result; open event sockets; the time
from event stored to frame sent; IdP calls by environment. No label holds a raw path, a
query string, an email or a session id. With `metrics.token_env` only the scrapers' bearer
token reads it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from helpers import (
    DEV_BACKEND,
    DIRECTORY_ENVIRONMENTS,
    FieldpassServer,
    IntegrationClient,
    MockIdP,
    Samples,
    browser_login,
    http_client,
    is_confirmation_url,
    metric,
    receive,
    receive_until_close,
    scrape,
    server_env,
    server_in,
    start_server,
    unique_email,
    wait_until,
    ws_connect,
)

@pytest.fixture(scope="module")
def server(fieldpass_bin: Path, idp: MockIdP, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FieldpassServer]:
    workdir = tmp_path_factory.mktemp("metrics")
    server = server_in(workdir, fieldpass_bin, idp, server_env(None, DIRECTORY_ENVIRONMENTS), environments=DIRECTORY_ENVIRONMENTS)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return metric(after, name, **labels) - metric(before, name, **labels)


def test_an_onboarding_moves_each_counter_by_what_it_did(server: FieldpassServer) -> None:
    _, before = scrape(server)
    email = unique_email("metrics")
    registration = server.register(email, None)
    confirmed = 1 if is_confirmation_url(registration.login_url) else 0
    with ws_connect(registration.websocket_url) as ws:
        # The gauge counts a socket once it subscribed, a moment after the upgrade answered.
        wait_until(lambda: metric(scrape(server)[1], "fieldpass_event_sockets") >= 1, timeout=5, what="the socket gauge to count it")
        assert browser_login(registration.login_url, email).status_code == 200
        token_event, realm_event = receive(ws, 2)
        with IntegrationClient(server.public_url, DEV_BACKEND.id, DEV_BACKEND.secret) as backend:
            backend.authenticate()
            backend.mark_initialized(realm_event["realm_path"])
        rest = receive_until_close(ws)
        assert rest.types == ["data_ready"], rest
    failed = server.register(unique_email("metrics"), None)
    assert browser_login(failed.login_url, "x", deny=True).status_code == 400
    with http_client() as client:
        refreshed = client.post(f"{server.url}/token", data={"grant_type": "refresh_token", "refresh_token": token_event["refresh_token"]})
        assert refreshed.status_code == 200
        assert client.post(f"{server.url}/token", data={"grant_type": "password"}).status_code == 400
        assert client.post(f"{server.url}/token", data={"grant_type": "client_credentials"},
                           auth=httpx.BasicAuth(DEV_BACKEND.id, "wrong")).status_code == 401
    wait_until(lambda: metric(scrape(server)[1], "fieldpass_event_sockets") == 0, timeout=5, what="the socket gauge back to 0")

    text, after = scrape(server)
    assert moved(before, after, "fieldpass_onboarding_total", step="registered") == 2
    assert moved(before, after, "fieldpass_onboarding_total", step="confirmed") == 2 * confirmed
    assert moved(before, after, "fieldpass_onboarding_total", step="signed_in") == 1
    assert moved(before, after, "fieldpass_onboarding_total", step="data_ready") == 1
    assert moved(before, after, "fieldpass_login_failed_total", reason="access_denied") == 1
    assert moved(before, after, "fieldpass_token_grants_total", grant_type="client_credentials", result="issued") == 1
    assert moved(before, after, "fieldpass_token_grants_total", grant_type="refresh_token", result="issued") == 1
    assert moved(before, after, "fieldpass_token_grants_total", grant_type="other", result="unsupported_grant_type") == 1
    assert moved(before, after, "fieldpass_token_grants_total", grant_type="client_credentials", result="invalid_client") == 1
    # Live events were delivered and timed; the IdP's token endpoint was called for dev.
    assert moved(before, after, "fieldpass_event_delivery_seconds_count") >= 3
    assert moved(before, after, "fieldpass_idp_request_duration_seconds_count", environment="dev", operation="token") == 1
    assert moved(before, after, "http_requests_total", method="POST", route="/register_device", status="201") == 2
    assert moved(before, after, "http_requests_total", method="GET", route="/auth_callback", status="200") == 1
    # The backend's client_credentials, the refresh and the two refused grants.
    assert moved(before, after, "http_request_duration_seconds_count", method="POST", route="/token") == 4
    # No label carries what identifies a person or a session.
    for secret in (email, registration.session_id, failed.session_id, realm_event["realm_path"]):
        assert secret not in text, f"{secret} is in /metrics"
    assert "?" not in "".join(dict(labels).get("route", "") for _, labels in after)


def test_unknown_paths_share_one_route_label(server: FieldpassServer) -> None:
    _, before = scrape(server)
    with http_client() as client:
        for n in range(5):
            assert client.get(f"{server.url}/no/such/path-{n}?x={n}").status_code == 404
    text, after = scrape(server)
    assert moved(before, after, "http_requests_total", method="GET", route="NotFound", status="404") == 5
    assert "path-" not in text


def test_without_a_token_setting_metrics_are_open(server: FieldpassServer) -> None:
    with http_client() as client:
        response = client.get(f"{server.url}/metrics", headers={"authorization": "Bearer anything"})
    assert response.status_code == 200, response.text
    assert "http_requests_total" in response.text


def test_metrics_token_env_closes_metrics_to_all_but_the_token(fieldpass_bin: Path, idp: MockIdP, tmp_path: Path) -> None:
    token = secrets.token_urlsafe(32)
    server = start_server(fieldpass_bin, idp, tmp_path, {"METRICS_TOKEN_ENV": "SCRAPE_TOKEN", "SCRAPE_TOKEN": token})
    try:
        with http_client() as client:
            def get(headers: dict[str, str]) -> httpx.Response:
                return client.get(f"{server.url}/metrics", headers=headers)

            for headers, code in [
                ({}, "unauthorized"),
                ({"authorization": f"Basic {token}"}, "unauthorized"),
                ({"authorization": "Bearer " + token[:-1]}, "invalid_token"),
                ({"authorization": f"Bearer {token}x"}, "invalid_token"),
                ({"authorization": "Bearer " + secrets.token_urlsafe(32)}, "invalid_token"),
            ]:
                refused = get(headers)
                assert refused.status_code == 401, refused.text
                assert refused.headers["content-type"].startswith("application/json"), refused.headers
                assert refused.json()["error"] == code, refused.text
                assert refused.json()["error_description"], refused.text
                assert refused.headers["www-authenticate"].startswith("Bearer"), refused.headers
                assert "http_requests_total" not in refused.text
            allowed = get({"authorization": f"Bearer {token}"})
            assert allowed.status_code == 200, allowed.text
            assert allowed.headers["content-type"].startswith("text/plain; version=0.0.4"), allowed.headers
            refusals = [
                sample.value for family in text_string_to_metric_families(allowed.text) for sample in family.samples
                if sample.name == "http_requests_total" and sample.labels.get("route") == "/metrics" and sample.labels.get("status") == "401"
            ]
            assert refusals == [5], f"the refusals are counted: {refusals}"
            assert get({"authorization": f"bearer {token}"}).status_code == 200, "the scheme is case-insensitive"
        assert token not in server.log_tail(), "the token was logged"
    finally:
        server.stop()
